# The races between the kernel and the event path, judged by the kernel: in
# each phase a storm of processes races the daemon (fork right after exec,
# exec of unmatched helpers, su and setuid shells of two users, a reload,
# SMT off and on, a kill -9 and restart, a container exec'd into after a
# restart). Once it settles, every live process of the test is read with
# cs-cookies (its own PR_SCHED_CORE_GET, not coresched) and compared with
# the documented policy: members of one key share one non-zero cookie,
# different keys differ, and processes no group claims carry the cookie
# inherited from a placed ancestor ("sticky isolation"), or 0 without one.
# ReconcileSec=0: no periodic rescan repairs what the event path missed.
#
# RACE_N sets the storm's size (default 20, 8 for a sanitized build; the
# fork-after-exec phase starts RACE_N parents of 3 children each, 30 give
# the 90 children of the original report); RACE_SETTLE the seconds a phase
# may take to converge once all its processes run (default 12).
# RACE_RECONCILE=SECONDS turns the periodic rescan on, to see what it
# repairs (the test is meant for 0, the default).
. /tests/integration/lib.sh
. /tests/integration/daemon-lib.sh

if [ -e /etc/coresched-sanitized ]; then N=${RACE_N:-8}; else N=${RACE_N:-20}; fi
SETTLE=${RACE_SETTLE:-12}
W=/tmp/$T
SMT=/sys/devices/system/cpu/smt/control
mkdir -p "$W"
for b in forker execer usershell server outsider; do cp /usr/libexec/coresched-tests/cs-forker "$BIN/$b"; done
cp /tests/conf-shipped/rules.d/60-containers.conf "$CFG/rules.d/"
cat > "$CFG/coreschedd.conf" <<EOF2
[Daemon]
ReconcileSec=${RACE_RECONCILE:-0}
[Group forkers]
MatchExe=$BIN/forker
[Group execers]
MatchExe=$BIN/execer
[Group tenants]
MatchUser=tester other
Per=user
EOF2
daemon_start || exit 1

# ---- launching: every process of a phase descends from one of $roots ----
roots="" want=0 t0=$(date +%s)
L() { "$@" </dev/null >>"$W/out" 2>&1 & roots="$roots $!"; }
# forker: a matched binary that forks 3 children at once after its exec
forker() { L "$BIN/forker" 3; want=$((want + 4)); }
# execer: a matched binary that, once placed, forks children that exec an
# unmatched binary (a copy of the helper, or a shell running sleep)
execer() { L "$BIN/execer" -w $((SETTLE / 2)) 3 "$BIN/outsider" 0; want=$((want + 4)); }
execer_sh() { L "$BIN/execer" -w $((SETTLE / 2)) 2 /bin/sh -c 'sleep 1000 & wait'; want=$((want + 5)); }
# su_shell USER: a shell of USER by su, forking its children right away
su_shell() { L su -s /bin/sh "$1" -c 'sleep 1000 & sleep 1000 & sleep 1000 & wait'; want=$((want + 4)); }
# setuid_shell UID: a root launcher switching to UID, then forking at once
setuid_shell() { L "$BIN/usershell" -u "$1:$1" 3; want=$((want + 4)); }
# clone_parent_worker UID: a root server whose worker switches to UID and
# clones 3 workers with CLONE_PARENT at once: the fork events name the
# server, whose program and name they show; only their user is another
# (the server, root, is in no key: 4 members of the 5); a program of its
# own, which no other case runs as another user
clone_parent_worker() { L "$BIN/server" -p -u "$1:$1" 3; want=$((want + 4)); }
# bystanders: unrelated processes of the test that must stay at 0
bystanders() { L "$BIN/outsider" 0; L sleep 1000; }
# mix I: the storm of the later phases, one of each kind by turns
mix() {
	forker
	if [ $(($1 % 2)) = 0 ]; then execer; else execer_sh; fi
	case $(($1 % 4)) in
	0) su_shell tester ;;
	1) setuid_shell 1001 ;;
	2) setuid_shell 1000 ;;
	3) su_shell other ;;
	esac
}

# ---- judging -------------------------------------------------------------
# The policy, from the kernel's view of every live process of the test
# (descendants of this shell, and the pids listed in $W/map with their key):
# uid tester/other -> key user:UID; an exe or an ancestor's exe forker or
# execer -> that group; anything else "none", expected 0x0. Prints
# "mismatch ..." lines, "key NAME MEMBERS COOKIE" lines and a last line
# "total PROCESSES MEMBERS MISMATCHES".
JUDGE='
FILENAME == ARGV[1] { map[$1] = $2; next }
{ ck[$1] = $3; pp[$1] = $4; uid[$1] = $5; exe[$1] = $6 }
function keyof(p,   q, n) {
	if (p in map) return map[p]
	for (q = p; q + 0 != top; q = pp[q])
		if (!(q in pp) || q + 0 <= 1 || ++n > 100) return ""
	if (p + 0 == dpid) return ""
	if (uid[p] == 1000 || uid[p] == 1001) return "user:" uid[p]
	for (q = p; q + 0 != top; q = pp[q]) {
		if (exe[q] == bin "/forker") return "forkers"
		if (exe[q] == bin "/execer") return "execers"
	}
	return "none"
}
END {
	for (p in ck) {
		k = keyof(p)
		if (k == "") continue
		key[p] = k; total++
		if (k == "none") continue
		members[k]++; members_all++
		if (ck[p] != "0x0" && ck[p] !~ /^!/ && ++cnt[k, ck[p]] > best[k]) { best[k] = cnt[k, ck[p]]; ref[k] = ck[p] }
	}
	for (p in key) {
		k = key[p]
		want = k == "none" ? "0x0" : (k in ref ? ref[k] : "non-zero")
		if (ck[p] != want) {
			printf "mismatch pid %s exe %s key %s: expected %s, actual %s\n", p, exe[p], k, want, ck[p]
			bad++
		}
	}
	for (k in members) {
		printf "key %s %d %s\n", k, members[k], (k in ref ? ref[k] : "none")
		for (k2 in members)
			if (k < k2 && (k in ref) && (k2 in ref) && ref[k] == ref[k2]) {
				printf "mismatch keys %s and %s share cookie %s (%d processes)\n", k, k2, ref[k], members[k2]
				bad += members[k2]
			}
	}
	printf "total %d %d %d\n", total, members_all, bad
}'
judge() {
	cs-cookies -x > "$W/snap"
	touch "$W/map"
	awk -v top=$$ -v dpid="$DPID" -v bin="$BIN" "$JUDGE" "$W/map" "$W/snap"
}

# phase NAME: wait until the $want processes of the storm run (up to 60 s:
# a sanitized build starts slowly, and that is not the daemon's race), then
# up to $SETTLE seconds more for them to agree with the policy; then report
# and judge once.
phase() {
	name=$1 hard=$(($(date +%s) + 60)) deadline=""
	while :; do
		judge > "$W/judged"
		set -- $(tail -n1 "$W/judged")
		total=$2 members=$3 bad=$4 now=$(date +%s)
		if [ "$members" -ge "$want" ]; then
			[ "$bad" = 0 ] && break
			[ -z "$deadline" ] && deadline=$((now + SETTLE))
			[ "$now" -ge "$deadline" ] && break
		fi
		[ "$now" -ge "$hard" ] && break
		sleep 0.5
	done
	grep '^mismatch' "$W/judged" | sort -k3n | head -n 25 | sed "s/^/daemon-race: phase $name: /"
	n=$(grep -c '^mismatch' "$W/judged")
	[ "$n" -gt 25 ] && echo "daemon-race: phase $name: ... and $((n - 25)) more mismatch lines"
	[ "$n" -gt 0 ] && echo "daemon-race: phase $name: mismatches by key, exe and cookie:$(awk '/^mismatch pid/ {
		sub(/:$/, "", $7); n = split($5, e, "/"); c[$7 " " e[n] " " $NF]++ }
		END { for (k in c) printf " [%s]=%d", k, c[k] }' "$W/judged")"
	echo "daemon-race: phase $name: keys:$(grep '^key' "$W/judged" | sort | awk '{printf " %s=%s(%s)", $2, $3, $4}'); $(($(date +%s) - t0)) s from the storm's start"
	echo "daemon-race: phase $name: $total processes, $bad mismatches"
	storm_verdict "$name" "$members" "$want" "$bad" "$total"
}

# reap: kill everything the phase started, so that the next starts afresh
reap() { storm_reap; : > "$W/map"; }

trap 'reap; cleanup' EXIT

# daemon_kill / daemon_spawn: a crash, and a start that does not wait for
# the control socket, so the start-up scan races the storm too
daemon_kill() { kill -9 "$DPID"; wait "$DPID" 2>/dev/null; }
daemon_spawn() { rm -f "$SOCK"; coreschedd --config-dir "$CFG" >>"$DLOG" 2>&1 & DPID=$!; cleanup_pids="$cleanup_pids $DPID"; }
daemon_ready() { wait_for test -S "$SOCK" || fail daemon-restart "no control socket: $(tail -n3 "$DLOG")"; }

# ---- 1. fork right after exec ----
bystanders
i=0; while [ $i -lt "$N" ]; do forker; i=$((i + 1)); done
phase fork-after-exec
reap

# ---- 2. members exec unmatched helpers: sticky isolation ----
bystanders
i=0; while [ $i -lt "$N" ]; do
	if [ $((i % 2)) = 0 ]; then execer; else execer_sh; fi
	i=$((i + 1))
done
phase exec-unmatched
reap

# ---- 3. su and setuid shells of two users, and CLONE_PARENT workers, MatchUser= Per=user ----
bystanders
i=0; while [ $i -lt $((N / 2)) ]; do
	su_shell tester; su_shell other; setuid_shell 1000; setuid_shell 1001
	clone_parent_worker 1000; clone_parent_worker 1001
	i=$((i + 1))
done
phase su-setuid
reap

# ---- 4. reload in the middle of the storm (the first one adds a group) ----
bystanders
i=0; while [ $i -lt "$N" ]; do
	mix $i
	case $i in
	$((N / 4))) printf '[Group spare]\nMatchExe=%s/spare\n' "$BIN" > "$CFG/rules.d/20-spare.conf"; kill -HUP "$DPID" ;;
	$((N / 2)) | $((3 * N / 4))) kill -HUP "$DPID" ;;
	esac
	i=$((i + 1))
done
phase reload
reap

# ---- 5. SMT off and on in the middle of the storm ----
if [ -w "$SMT" ]; then
	bystanders
	i=0; while [ $i -lt "$N" ]; do
		mix $i
		case $i in
		$((N / 3))) echo off > "$SMT" ;;
		$((2 * N / 3))) echo on > "$SMT" ;;
		esac
		i=$((i + 1))
	done
	[ "$(cat /sys/devices/system/cpu/smt/active)" = 1 ] || fail smt-back "smt/active is not 1 after 'on'"
	phase smt-off-on
	reap
else
	skip smt-off-on "no writable $SMT"
fi

# ---- 6. kill -9 and restart in the middle of the storm ----
bystanders
i=0; while [ $i -lt "$N" ]; do
	mix $i
	case $i in
	$((N / 3))) daemon_kill ;;
	$((2 * N / 3))) daemon_spawn ;;
	esac
	i=$((i + 1))
done
daemon_ready
phase restart
reap

# ---- 7. containers exec'd into after a restart ----
RUNC=/usr/sbin/runc
if [ ! -x "$RUNC" ]; then
	skip container-exec "$RUNC is not in the VM (install Debian's runc on the host)"
	exit 0
fi
ROOTFS=$W/rootfs
mkdir -p "$ROOTFS"/bin "$ROOTFS"/usr/bin "$ROOTFS"/proc "$ROOTFS"/dev "$ROOTFS"/tmp
cp /bin/busybox "$ROOTFS/bin/busybox"
for a in sh sleep; do ln -s busybox "$ROOTFS/bin/$a"; done
# container ID: a hooked busybox container whose entrypoint leaves a child
container() {
	mkdir -p "$W/$1"
	cat > "$W/$1/config.json" <<EOF
{
  "ociVersion": "1.0.2",
  "process": { "terminal": false, "user": { "uid": 0, "gid": 0 },
    "args": ["/bin/sh", "-c", "sleep 1000 & exec sleep 1000"],
    "env": ["PATH=/bin"], "cwd": "/" },
  "root": { "path": "$ROOTFS" },
  "hostname": "$1",
  "mounts": [
    { "destination": "/proc", "type": "proc", "source": "proc" },
    { "destination": "/dev", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "mode=755"] }
  ],
  "hooks": { "createRuntime": [
    { "path": "/usr/bin/coresched", "args": ["coresched", "oci-hook", "--fail-mode", "closed"], "timeout": 20 } ] },
  "linux": { "cgroupsPath": "/race-$1",
    "namespaces": [ { "type": "pid" }, { "type": "mount" }, { "type": "ipc" }, { "type": "uts" } ] }
}
EOF
	"$RUNC" run -d --no-pivot --no-new-keyring -b "$W/$1" "$1" > "$W/$1.log" 2>&1 < /dev/null
}
procs() { cat "/sys/fs/cgroup/race-$1/cgroup.procs" 2>/dev/null; }
nprocs_at_least() { [ "$(procs "$1" | wc -l)" -ge "$2" ]; }
trap '"$RUNC" delete -f c1 >/dev/null 2>&1; "$RUNC" delete -f c2 >/dev/null 2>&1; reap; cleanup' EXIT

bystanders
for c in c1 c2; do
	if ! container $c || ! wait_for nprocs_at_least $c 2; then
		fail container-exec "runc run $c failed: $(cat "$W/$c.log")"
		exit 0
	fi
done
cs-cookies > "$W/snap"
for c in c1 c2; do
	echo "daemon-race: container $c before the restart: $(procs $c | while read -r p; do awk -v p="$p" '$1 == p { print $3 }' "$W/snap"; done | sort -u | tr '\n' ' ')"
done
daemon_kill
daemon_spawn
daemon_ready
e=0; while [ $e -lt $((N / 10 + 1)) ]; do
	for c in c1 c2; do
		"$RUNC" exec -d $c /bin/sh -c 'sleep 1000 & sleep 1000 & exec sleep 1000' >> "$W/exec.log" 2>&1
	done
	e=$((e + 1))
done
# members: every process in the containers' cgroups, wherever its parent
want=$((2 * (2 + 3 * e)))
wait_for nprocs_at_least c2 $((2 + 3 * e))
set_map() { for c in c1 c2; do procs $c | sed "s/\$/ container:$c/"; done > "$W/map"; }
# phase() rereads $W/map on every pass; refresh it from the cgroups first.
judge() {
	set_map
	cs-cookies -x > "$W/snap"
	awk -v top=$$ -v dpid="$DPID" -v bin="$BIN" "$JUDGE" "$W/map" "$W/snap"
}
phase container-exec
