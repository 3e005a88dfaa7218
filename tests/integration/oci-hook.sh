# The container hook with a real runtime: runc runs busybox containers whose
# config.json has `coresched oci-hook` at createRuntime. Cookies are read
# back from the kernel, including by the entrypoint's first command.
. /tests/integration/lib.sh
. /tests/integration/daemon-lib.sh

RUNC=/usr/sbin/runc
if ! ls "$RUNC" >/dev/null 2>&1; then
	skip runc "$RUNC is not in the VM (install Debian's runc on the host)"
	exit 0
fi

W=/tmp/oci
ROOTFS=$W/rootfs
mkdir -p "$ROOTFS"/bin "$ROOTFS"/usr/bin "$ROOTFS"/proc "$ROOTFS"/dev "$ROOTFS"/tmp "$ROOTFS"/out
cp /bin/busybox "$ROOTFS/bin/busybox"
for a in sh sleep cat echo; do ln -s busybox "$ROOTFS/bin/$a"; done
# coresched and every library in the VM: they sit at the same paths.
cp /usr/bin/coresched "$ROOTFS/usr/bin/coresched"
for d in /lib /lib64 /usr/lib; do
	[ -d "$d" ] && mkdir -p "$ROOTFS$d" && cp -a "$d/." "$ROOTFS$d/"
done

# bundle ID FAILMODE ANNOTATIONS: a bundle whose entrypoint records its
# cookie first, then leaves a child and sleeps.
bundle() {
	b=$W/$1
	mkdir -p "$b/out"
	cat > "$b/config.json" <<EOF
{
  "ociVersion": "1.0.2",
  "process": {
    "terminal": false,
    "user": { "uid": 0, "gid": 0 },
    "args": ["/bin/sh", "-c", "coresched get > /out/first; sleep 1000 & exec sleep 1000"],
    "env": ["PATH=/usr/bin:/bin"],
    "cwd": "/"
  },
  "root": { "path": "$ROOTFS" },
  "hostname": "$1",
  "mounts": [
    { "destination": "/proc", "type": "proc", "source": "proc" },
    { "destination": "/dev", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "mode=755"] },
    { "destination": "/out", "type": "bind", "source": "$b/out", "options": ["rbind", "rw"] }
  ],
  "annotations": { $3 },
  "hooks": {
    "createRuntime": [
      { "path": "/usr/bin/coresched", "args": ["coresched", "oci-hook", "--fail-mode", "$2"], "timeout": 20 }
    ]
  },
  "linux": {
    "cgroupsPath": "/ocit-$1",
    "namespaces": [ { "type": "pid" }, { "type": "mount" }, { "type": "ipc" }, { "type": "uts" } ]
  }
}
EOF
}

started=""
# start ID FAILMODE ANNOTATIONS: run it detached; runc's output in $W/ID.log
start() {
	bundle "$@"
	started="$started $1"
	"$RUNC" run -d --no-pivot --no-new-keyring -b "$W/$1" "$1" > "$W/$1.log" 2>&1 < /dev/null
}
stop_all() { for c in $started; do "$RUNC" delete -f "$c" >/dev/null 2>&1; done; }
trap 'stop_all; cleanup' EXIT

procs() { cat "/sys/fs/cgroup/ocit-$1/cgroup.procs" 2>/dev/null; }
nprocs_at_least() { [ "$(procs "$1" | wc -l)" -ge "$2" ]; }
init_pid() { "$RUNC" state "$1" 2>/dev/null | sed -n 's/^ *"pid": *\([0-9]*\),*$/\1/p'; }
# The distinct cookies of every process in the container, one line each.
container_cookies() { for p in $(procs "$1"); do cookie "$p"; done | sort -u; }
first_get() { sed -n 's/^cookie of pid [0-9]* is //p' "$W/$1/out/first" 2>/dev/null; }
first_ready() { [ -n "$(first_get "$1")" ]; }

# ready ID: the entrypoint recorded its cookie and left its child
ready() { wait_for first_ready "$1" && wait_for nprocs_at_least "$1" 2; }

cp /tests/conf-shipped/rules.d/60-containers.conf "$CFG/rules.d/"
cat > "$CFG/coreschedd.conf" <<EOF
[Daemon]
ReconcileSec=2
[Group shared]
Description=Joined by annotation
EOF
daemon_start || exit 1

if ! start ca closed '' || ! ready ca; then
	fail run "runc run failed: $(cat "$W/ca.log")"
	exit 1
fi
pass run
start cb closed ''; ready cb
ia=$(init_pid ca); ib=$(init_pid cb)
ca=$(cookie "$ia"); cb=$(cookie "$ib")
expect_set container-tagged "$ca"
expect entrypoint-first-command "$(first_get ca)" "$ca"
expect one-cookie-per-container "$(container_cookies ca)" "$ca"
expect_distinct containers-differ "$ca" "$cb"
echo "cookies: container ca $ca (every process: $(container_cookies ca | tr "\n" " ")), container cb $cb, host shell $(cookie $$)"
expect host-untouched "$(cookie $$)" 0x0
expect origin-hook "$(coresched ps -o ORIGIN -n "$ia" 2>/dev/null | tr -d ' ')" hook
expect key-container "$(coresched ps -o KEY -n "$ia" 2>/dev/null | tr -d ' ')" container:ca

# runc exec starts a child of runc, not of the init: only the daemon's
# cgroup mapping can place it.
before=$(procs ca)
"$RUNC" exec -d ca sleep 1000 > "$W/exec.log" 2>&1
# exec_new: the process runc exec started (not the entrypoint's own sleep),
# once it runs the command (runc may return before the exec)
exec_new() {
	ex=$(procs ca | grep -vxF "$before" | while read -r p; do
		[ "$(tr '\0' ' ' < /proc/$p/cmdline 2>/dev/null)" = "sleep 1000 " ] && echo "$p"; done | tail -n1)
	[ -n "$ex" ]
}
wait_for exec_new
if [ -z "$ex" ]; then
	fail exec-joins "no exec'd process in the container: $(cat "$W/exec.log")"
else
	settles "$ex" "$ca"
	expect exec-joins "$(cookie "$ex")" "$ca"
fi

start p1 closed '"io.kubernetes.cri.sandbox-id": "pod-x"'; ready p1
start p2 closed '"io.kubernetes.cri.sandbox-id": "pod-x"'; ready p2
start p3 closed '"io.kubernetes.cri-o.SandboxID": "pod-y"'; ready p3
p1c=$(cookie "$(init_pid p1)"); p2c=$(cookie "$(init_pid p2)"); p3c=$(cookie "$(init_pid p3)")
expect_set pod-tagged "$p1c"
expect pod-shared "$p2c" "$p1c"
expect_distinct pod-not-container "$p1c" "$ca"
expect_distinct pods-differ "$p1c" "$p3c"

start g1 closed '"io.coresched.group": "shared"'; ready g1
start g2 closed '"io.coresched.group": "shared"'; ready g2
g1c=$(cookie "$(init_pid g1)")
expect_set group-tagged "$g1c"
expect group-shared "$(cookie "$(init_pid g2)")" "$g1c"
expect_distinct group-not-container "$g1c" "$ca"

start tr closed '"io.coresched.policy": "trusted"'; ready tr
expect trusted-zero "$(cookie "$(init_pid tr)")" 0x0
expect trusted-entrypoint-zero "$(first_get tr)" 0x0

start nogroup closed '"io.coresched.group": "nonesuch"'
rc=$?
if [ $rc -ne 0 ] && grep -q 'NoSuchGroup' "$W/nogroup.log"; then pass unknown-group-refused; else
	fail unknown-group-refused "runc status $rc: $(cat "$W/nogroup.log")"; fi

daemon_stop
start fc closed ''
rc=$?
if [ $rc -ne 0 ] && grep -q 'coreschedd is not running and fail mode is closed: refusing to start container fc untagged' "$W/fc.log"; then
	pass fail-closed-refuses
else
	fail fail-closed-refuses "runc status $rc: $(cat "$W/fc.log")"
fi
[ -z "$(procs fc)" ] && pass fail-closed-nothing-runs || fail fail-closed-nothing-runs "processes: $(procs fc)"

if start fo open '' && ready fo; then
	foc=$(cookie "$(init_pid fo)")
	expect_set fail-open-tagged "$foc"
	expect fail-open-entrypoint "$(first_get fo)" "$foc"
	expect_distinct fail-open-own-cookie "$foc" "$ca"
else
	fail fail-open-starts "runc: $(cat "$W/fo.log")"
fi
