# coresched-runtime in front of real runc, as Docker and containerd use it:
# bundles without hooks get coresched's hook from the wrapper. The
# entrypoint reads its own cookie before any code of its own runs.
. /tests/integration/lib.sh
. /tests/integration/daemon-lib.sh

RUNC=/usr/sbin/runc
if ! ls "$RUNC" >/dev/null 2>&1; then
	skip runc "$RUNC is not in the VM (install Debian's runc on the host)"
	exit 0
fi
# No runtime.conf: the wrapper finds runc in PATH, as installed.
if [ -e /etc/coresched/runtime.conf ]; then
	fail setup "/etc/coresched/runtime.conf exists in the VM"
	exit 1
fi
SHIM=coresched-runtime
W=/tmp/ocirt
ROOT=$W/state # runc's --root, passed as the engines do
ROOTFS=$W/rootfs
mkdir -p "$ROOTFS"/bin "$ROOTFS"/proc "$ROOTFS"/dev "$ROOTFS"/tmp
cp /bin/busybox "$ROOTFS/bin/busybox"
for a in sh sleep cat; do ln -s busybox "$ROOTFS/bin/$a"; done
cp /usr/libexec/coresched-tests/cs-first "$ROOTFS/bin/cs-first"
for d in /lib /lib64 /usr/lib; do
	[ -d "$d" ] && mkdir -p "$ROOTFS$d" && cp -a "$d/." "$ROOTFS$d/"
done

# bundle ID [create]: a bundle with no hooks whose entrypoint is the
# probe (with create: which then tries to change its cookie).
bundle() {
	b=$W/$1 try=${2:+, \"$2\"}
	mkdir -p "$b/out"
	cat > "$b/config.json" <<JSON
{
  "ociVersion": "1.0.2",
  "process": {
    "terminal": false,
    "user": { "uid": 0, "gid": 0 },
    "args": ["/bin/cs-first", "/out/first"$try],
    "env": ["PATH=/bin"],
    "cwd": "/"
  },
  "root": { "path": "$ROOTFS" },
  "hostname": "$1",
  "mounts": [
    { "destination": "/proc", "type": "proc", "source": "proc" },
    { "destination": "/dev", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "mode=755"] },
    { "destination": "/out", "type": "bind", "source": "$b/out", "options": ["rbind", "rw"] }
  ],
  "linux": {
    "cgroupsPath": "/ocirt-$1",
    "namespaces": [ { "type": "pid" }, { "type": "mount" }, { "type": "ipc" }, { "type": "uts" } ]
  }
}
JSON
}

started=""
stop_all() { for c in $started; do "$RUNC" --root "$ROOT" delete -f "$c" >/dev/null 2>&1; done; }
trap 'stop_all; cleanup' EXIT

procs() { cat "/sys/fs/cgroup/ocirt-$1/cgroup.procs" 2>/dev/null; }
nprocs_at_least() { [ "$(procs "$1" | wc -l)" -ge "$2" ]; }
init_pid() { "$RUNC" --root "$ROOT" state "$1" 2>/dev/null | sed -n 's/^ *"pid": *\([0-9]*\),*$/\1/p'; }
first() { cat "$W/$1/out/first" 2>/dev/null; }
first_ready() { [ -n "$(first "$1")" ]; }
# key_cookie KEY: the cookie coreschedd keeps for KEY of group containers
key_cookie() { coresched list -n -r -o GROUP,KEY,COOKIE 2>/dev/null | awk -v k="$1" '$1 == "containers" && $2 == k { print $3 }'; }
has_hook() { grep -q '"path": "/usr/bin/coresched"' "$W/$1/config.json" && grep -q '"oci-hook"' "$W/$1/config.json"; }

cp /tests/conf-shipped/rules.d/60-containers.conf "$CFG/rules.d/"
printf '[Daemon]\nReconcileSec=2\n' > "$CFG/coreschedd.conf"
daemon_start || exit 1

# Container a as containerd starts it: global options, create, then start.
bundle a
started="$started a"
if ! "$SHIM" --root "$ROOT" --log "$W/a-runc.log" --log-format json create --bundle "$W/a" \
	--pid-file "$W/a.pid" --no-pivot --no-new-keyring a > "$W/a.log" 2>&1 < /dev/null; then
	fail create "coresched-runtime create failed: $(cat "$W/a.log" "$W/a-runc.log" 2>/dev/null)"
	exit 1
fi
pass create
if has_hook a; then pass hook-added; else fail hook-added "$(cat "$W/a/config.json")"; fi
[ -z "$(first a)" ] && pass created-not-started || fail created-not-started "the entrypoint ran before start"
"$SHIM" --root "$ROOT" start a > "$W/a-start.log" 2>&1
if ! wait_for first_ready a; then
	fail start "the entrypoint recorded nothing: $(cat "$W/a-start.log")"
	exit 1
fi
pass start
ia=$(init_pid a)
ca=$(cookie "$ia")
fa=$(first a)
echo "cookies: container a: at the entrypoint's start $fa, init $ca, key container:a $(key_cookie container:a); host shell $(cookie $$)"
expect_set entrypoint-first-cookie "$fa"
expect entrypoint-is-init "$fa" "$ca"
expect entrypoint-is-key-cookie "$fa" "$(key_cookie container:a)"
expect origin-hook "$(coresched ps -o ORIGIN -n "$ia" 2>/dev/null | tr -d ' ')" hook
expect pid-file "$(cat "$W/a.pid" 2>/dev/null)" "$ia"

# Container b by run -d, the bundle found in the cwd.
bundle b
started="$started b"
(cd "$W/b" && "$SHIM" --root "$ROOT" run -d --no-pivot --no-new-keyring b > "$W/b.log" 2>&1 < /dev/null)
if wait_for first_ready b; then
	fb=$(first b)
	expect_set run-first-cookie "$fb"
	expect run-is-key-cookie "$fb" "$(key_cookie container:b)"
	expect_distinct containers-differ "$fa" "$fb"
else
	fail run "the entrypoint recorded nothing: $(cat "$W/b.log")"
fi
cp "$W/b/config.json" "$W/b.once"
"$SHIM" --root "$ROOT" delete -f b > "$W/b-delete.log" 2>&1
if "$RUNC" --root "$ROOT" state b >/dev/null 2>&1; then fail delete-passes "b still exists: $(cat "$W/b-delete.log")"
else pass delete-passes; fi
# The same bundle again: the hook is there once, the file unchanged.
(cd "$W/b" && "$SHIM" --root "$ROOT" run -d --no-pivot --no-new-keyring b > "$W/b2.log" 2>&1 < /dev/null)
if cmp -s "$W/b/config.json" "$W/b.once" && [ "$(grep -c '"oci-hook"' "$W/b/config.json")" = 1 ]; then
	pass rerun-idempotent
else
	fail rerun-idempotent "$(cat "$W/b/config.json")"
fi

# exec through the wrapper goes straight to runc; the daemon places the
# process by the container's cgroup.
before=$(procs a)
"$SHIM" --root "$ROOT" exec -d a sleep 1000 > "$W/exec.log" 2>&1
# exec_new: the process runc exec started, once it runs the command (runc
# may return before the exec; its init shows runc's command line till then)
exec_new() {
	ex=$(procs a | grep -vxF "$before" | while read -r p; do
		[ "$(tr '\0' ' ' < /proc/$p/cmdline 2>/dev/null)" = "sleep 1000 " ] && echo "$p"; done | tail -n1)
	[ -n "$ex" ]
}
wait_for exec_new
if [ -z "$ex" ]; then
	fail exec-joins "no exec'd process in container a: $(cat "$W/exec.log")"
else
	settles "$ex" "$fa"
	expect exec-joins "$(cookie "$ex")" "$fa"
fi

# A malformed config.json: a clear error, and runc never runs.
mkdir -p "$W/bad"
printf '{"ociVersion": "1.0.2",\n "process": {"args": ["/bin/sh"]\n' > "$W/bad/config.json"
"$SHIM" --root "$ROOT" run -d --bundle "$W/bad" bad > "$W/bad.log" 2>&1 < /dev/null
rc=$?
if [ $rc -ne 0 ] && grep -q "^coresched-runtime: $W/bad/config.json:3: invalid JSON: " "$W/bad.log"; then
	pass malformed-refused
else
	fail malformed-refused "status $rc: $(cat "$W/bad.log")"
fi
if "$RUNC" --root "$ROOT" state bad >/dev/null 2>&1 || [ -d /sys/fs/cgroup/ocirt-bad ]; then
	fail malformed-not-started "runc created container bad"
else
	pass malformed-not-started
fi

# [Container] Lock=yes (read from coreschedd's configuration): the wrapper
# adds the lock to the bundle's seccomp profile; the entrypoint reads its
# cookie but cannot change it, by the kernel's word from outside too.
printf '[Daemon]\nReconcileSec=2\n[Container]\nLock=yes\n' > "$CFG/coreschedd.conf"
coresched reload >/dev/null 2>&1
for mode in free locked; do
	bundle $mode create
	started="$started $mode"
	if [ $mode = free ]; then cdir=/nonexistent; else cdir=$CFG; fi
	(cd "$W/$mode" && CORESCHED_CONFIG_DIR=$cdir "$SHIM" --root "$ROOT" run -d --no-pivot --no-new-keyring $mode \
		> "$W/$mode.log" 2>&1 < /dev/null)
	wait_for grep -q '^after ' "$W/$mode/out/first" ||
		fail "$mode-ran" "the entrypoint recorded nothing: $(cat "$W/$mode.log")"
done
# The control: without Lock= the container may change its cookie.
expect unlocked-may-change "$(sed -n 's/^create //p' "$W/free/out/first")" OK
fl=$(head -n1 "$W/locked/out/first")
expect_set locked-first-cookie "$fl"
expect locked-refused "$(sed -n 's/^create //p' "$W/locked/out/first")" '!EPERM'
expect locked-reads-same "$(sed -n 's/^after //p' "$W/locked/out/first")" "$fl"
il=$(init_pid locked)
expect locked-kernel-cookie "$(cookie "$il")" "$fl"
grep -q '"SCMP_CMP_MASKED_EQ"' "$W/locked/config.json" && pass locked-profile-added ||
	fail locked-profile-added "$(cat "$W/locked/config.json")"
expect locked-seccomp "$(sed -n 's/^Seccomp:[[:space:]]*//p' /proc/$il/status)" 2

# The hook the wrapper added is the one that decides: with the daemon
# down it refuses the container (fail mode closed).
daemon_stop
bundle down
started="$started down"
"$SHIM" --root "$ROOT" run -d --no-pivot --no-new-keyring --bundle "$W/down" down > "$W/down.log" 2>&1 < /dev/null
rc=$?
if [ $rc -ne 0 ] && grep -q 'coreschedd is not running and fail mode is closed: refusing to start container down untagged' "$W/down.log"; then
	pass daemon-down-refused
else
	fail daemon-down-refused "status $rc: $(cat "$W/down.log")"
fi
[ -z "$(first down)" ] && [ -z "$(procs down)" ] && pass daemon-down-nothing-runs ||
	fail daemon-down-nothing-runs "entrypoint: $(first down); processes: $(procs down)"
