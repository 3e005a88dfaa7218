#!/bin/bash
# coreschedd --dry-run on this host, whose kernel lacks core scheduling:
# the daemon starts, takes process events, and `coresched ps -J` shows for
# each process of the test the group, key, origin and (planned) cookie the
# rules give it: matched processes and their children forked right after
# the exec, a matched process's unmatched helpers (kept in its key), a
# Per=process group, unmatched processes (none, 0x0), an explicit
# placement, a process matched by its real uid and one by its effective
# uid alone (not matched), processes matched by the cgroup they exec in
# (MatchCgroup=) and one in another cgroup (not). The start log says
# where the ids come from (a pidfd on Linux 6.13+, status before). The
# queries say it is a dry run; the daemon makes no prctl(PR_SCHED_CORE)
# call (checked with strace when installed).
# Needs root (the proc connector) and the proc connector itself.
T=host/daemon-dry-run
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/host/lib.bash"
d=$top/build/coreschedd
cs=$top/build/coresched
json=$top/build/helpers/cs-json
forker=$top/build/helpers/cs-forker

need_root_for_events
daemon_workdir dry
for b in forker execer outsider solo; do cp "$forker" "$W/bin/$b"; done
# Two cgroups for MatchCgroup=, under a cgroup2 mount of the whole
# hierarchy where this host has one (none: those checks say SKIP).
cgmnt=$(awk '{ for (i = 7; i < NF; i++) if ($i == "-") { if ($(i + 1) == "cgroup2" && $4 == "/") print $5; break } }' \
	/proc/self/mountinfo | head -n1)
cga= cgb=
if [ -n "$cgmnt" ] && mkdir "$cgmnt/cs-dry-$$-a" 2>/dev/null; then
	if mkdir "$cgmnt/cs-dry-$$-b" 2>/dev/null; then
		cga=/cs-dry-$$-a cgb=/cs-dry-$$-b
	else
		rmdir "$cgmnt/cs-dry-$$-a"
	fi
fi
[ -n "$cga" ] && trap 'daemon_cleanup; rmdir "$cgmnt$cga" "$cgmnt$cgb"' EXIT
cat > "$W/cfg/coreschedd.conf" <<EOF
[Daemon]
ReconcileSec=0
ControlGroup=65532
[Group boxed]
MatchCgroup=${cga:-/cs-dry-no-such-cgroup}
[Group forkers]
MatchExe=$W/bin/forker
[Group execers]
MatchExe=$W/bin/execer
[Group solo]
MatchExe=$W/bin/solo
Per=process
[Group spare]
MatchComm=no-such-comm
[Group locked]
Lock=yes
AllowUsers=65534
[Group open]
AllowUsers=65534
[Group sessions]
MatchUser=65533
EOF

# stop_daemon: SIGTERM; $stop_rc is its exit status
stop_daemon() {
	local p
	p=$("$cs" status -J 2>/dev/null | "$json" pid) && kill "$p"
	wait "$dpid" 2>/dev/null
	stop_rc=$?
	dpid=
}

# A real daemon's placement, left in its state file: the dry run's cookies
# are not the kernel's, so it neither restores nor rewrites that file.
sleep 1000 </dev/null >/dev/null 2>&1 &
real=$!
real_line="$real $(awk '{print $22}' /proc/$real/stat) assign forkers - deadbeef 0"
printf '# coreschedd explicit placements: PID START ORIGIN GROUP KEY [COOKIE [PLACER]]\n%s\n' \
	"$real_line" > "$W/coreschedd.state"

start_dry_run --strace
grep -q 'Dry run: ' "$W/log" && grep -q 'Started (dry run: nothing is applied)' "$W/log"
result start-says-dry-run 0 '' $? "$(cat "$W/log")"

# A second daemon beside the first one's socket (another socket name, the
# same directory and state files) refuses to start before it reads or
# writes anything: the first one's record of placements stays as it was.
sum_before=$(cat "$W"/coreschedd*.state 2>/dev/null | md5sum)
out=$(timeout 20 "$d" --dry-run --config-dir "$W/cfg" --socket "$W/sock2" 2>&1); rc=$?
extra=; [ "$(cat "$W"/coreschedd*.state 2>/dev/null | md5sum)" = "$sum_before" ] || extra="a state file changed"
[ -e "$W/sock2" ] && extra="$extra; it made a socket"
result second-daemon-refused 1 "Another coreschedd holds $W/coreschedd.lock" $rc "$out" "$extra"

# Where the ids of each process come from, said at start: through pidfds on
# Linux 6.13 and later (PIDFD_GET_INFO), from status before. The kernel's
# version decides what it must say, not the daemon's own check.
IFS=. read -r kmaj kmin _ <<< "$(uname -r)"
if [ "$kmaj" -gt 6 ] || { [ "$kmaj" -eq 6 ] && [ "${kmin%%[!0-9]*}" -ge 13 ]; }; then
	want='Process ids are read through pidfds (PIDFD_GET_INFO)'
else
	want='Process ids are read from /proc/PID/status: the kernel has no PIDFD_GET_INFO (Linux 6.13)'
fi
grep -qF "$want" "$W/log"
result start-says-id-source 0 '' $? "kernel $(uname -r), wanted: $want; log: $(cat "$W/log")"
if [ -n "$cgmnt" ] && [ "$want" = 'Process ids are read through pidfds (PIDFD_GET_INFO)' ]; then
	want="Cgroup paths are known by their ids, as the cgroup2 mount at $cgmnt shows them"
	grep -qF "$want" "$W/log"
	result start-says-cgroup-source 0 '' $? "wanted: $want; log: $(cat "$W/log")"
fi

# ---- the processes ----
L() { "$@" </dev/null >/dev/null 2>&1 & pids+=($!); }
L "$W/bin/forker" 3                       # forks the moment its exec is done
L "$W/bin/forker" 0
L "$W/bin/execer" 2 "$W/bin/outsider" 0   # children exec an unmatched helper at once
L "$W/bin/execer" -w 1 1 "$W/bin/outsider" 0 # ... once it has been placed
L "$W/bin/solo" 0
L "$W/bin/solo" 0
L "$W/bin/outsider" 0
L sleep 1000
L "$W/bin/outsider" 0                     # placed explicitly below
L "$W/bin/execer" -w 1 1 /bin/sh -c 'sleep 1000 & wait' # a helper that forks again
fork1=${pids[0]} fork2=${pids[1]} exec1=${pids[2]} exec2=${pids[3]}
solo1=${pids[4]} solo2=${pids[5]} out1=${pids[6]} slp=${pids[7]} out2=${pids[8]} exec3=${pids[9]}

# children COUNT PARENT: the pids of PARENT's children, once COUNT exist
children() {
	local i c
	for i in $(seq 50); do
		c=$(pgrep -P "$2" | sort -n)
		[ "$(wc -w <<<"$c")" -ge "$1" ] && { echo $c; return 0; }
		sleep 0.1
	done
	echo $c
}
fk=$(children 3 "$fork1") ex1=$(children 2 "$exec1") ex2=$(children 1 "$exec2") sh3=$(children 1 "$exec3")
sl3=$(children 1 "$sh3")

# field PID NAME: a member of the daemon's row for PID ("" when none)
field() { "$cs" ps -J -o +EXE "$1" 2>/dev/null | "$json" "processes.0.$2" 2>/dev/null; }
# settle PID EXE: wait until the daemon's row for PID shows it running EXE
settle() {
	local i
	for i in $(seq 100); do
		[ "$(field "$1" exe)" = "$2" ] && return 0
		sleep 0.1
	done
	return 1
}
for p in $fork1 $fork2 $fk; do settle "$p" "$W/bin/forker"; done
for p in $exec1 $exec2 $exec3; do settle "$p" "$W/bin/execer"; done
for p in $ex1 $ex2 $out1 $out2; do settle "$p" "$W/bin/outsider"; done
settle "$sh3" "$(readlink -f /bin/sh)"
settle "$sl3" "$(readlink -f "$(command -v sleep)")"
for p in $solo1 $solo2; do settle "$p" "$W/bin/solo"; done
settle "$slp" "$(readlink -f "$(command -v sleep)")"

# expect NAME PID GROUP ORIGIN: the row's group and origin, and a cookie
# that is 0x0 exactly when GROUP is "null"
expect() {
	local name=$1 pid=$2 group=$3 origin=$4 g o c
	g=$(field "$pid" group) o=$(field "$pid" origin) c=$(field "$pid" cookie)
	if [ "$g" != "$group" ] || [ "$o" != "$origin" ] || [ "$group" = null -a "$c" != 0x0 ] ||
	   [ "$group" != null -a "$c" = 0x0 ] || [ -z "$c" ]; then
		echo "FAIL: $T/$name: PID $pid: group $g origin $o cookie $c, expected group $group origin $origin"
		return 1
	fi
	echo "PASS: $T/$name"
}
cookie() { field "$1" cookie; }
# same NAME PID...: one cookie for all
same() {
	local name=$1 c0 p; shift
	c0=$(cookie "$1")
	for p in "$@"; do
		[ "$(cookie "$p")" = "$c0" ] || { echo "FAIL: $T/$name: PID $p has $(cookie "$p"), PID $1 has $c0"; return 1; }
	done
	echo "PASS: $T/$name"
}

expect forker-matched "$fork1" forkers rule
for p in $fk; do expect forker-child-$p "$p" forkers rule; done
same forkers-share-one-cookie "$fork1" "$fork2" $fk
expect execer-matched "$exec1" execers rule
# Forked once the execer was placed, a helper keeps its key; and so does
# what the helper starts.
expect helper-kept "$ex2" execers sticky
expect helper-shell-kept "$sh3" execers sticky
expect helper-shell-child-kept "$sl3" execers sticky
same execers-and-helpers-share "$exec1" "$exec2" "$exec3" $ex2 "$sh3" "$sl3"
# Forked before the daemon saw the execer's exec and exec'd at once, a
# helper carried cookie 0 and is judged on its own (none), unless the
# daemon saw it before its exec (then it still ran the execer: kept).
for p in $ex1; do
	g=$(field "$p" group) o=$(field "$p" origin) c=$(field "$p" cookie)
	if [ "$g/$o/$c" = "null/none/0x0" ] || [ "$g/$o/$c" = "execers/sticky/$(cookie "$exec1")" ]; then
		echo "PASS: $T/racing-helper"
	else
		echo "FAIL: $T/racing-helper: PID $p: group $g origin $o cookie $c"
	fi
done
expect solo-1 "$solo1" solo rule
expect solo-2 "$solo2" solo rule
[ "$(cookie "$solo1")" != "$(cookie "$solo2")" ] && [ "$(field "$solo1" key)" != "$(field "$solo2" key)" ]
result solo-own-cookies 0 '' $? "$(cookie "$solo1") $(cookie "$solo2")"
[ "$(cookie "$fork1")" != "$(cookie "$exec1")" ] && [ "$(cookie "$fork1")" != "$(cookie "$solo1")" ]
result groups-differ 0 '' $? "forkers $(cookie "$fork1") execers $(cookie "$exec1") solo $(cookie "$solo1")"
expect unmatched-outsider "$out1" null none
expect unmatched-sleep "$slp" null none

# MatchUser= is judged by the real uid: read through the pidfd the daemon
# holds (PIDFD_GET_INFO, Linux 6.13), or from status on older kernels. A
# process whose effective uid alone is the rule's is not the rule's.
sleep_exe=$(readlink -f "$(command -v sleep)")
"$top/build/helpers/cs-runas" 65533 65533 sleep 1000 </dev/null >/dev/null 2>&1 &
usr=$!
python3 -c 'import os; os.setresgid(65532, 65533, 65533); os.setresuid(65532, 65533, 65533)
os.execvp("sleep", ["sleep", "1000"])' </dev/null >/dev/null 2>&1 &
eff=$!
pids+=("$usr" "$eff")
settle "$usr" "$sleep_exe"
settle "$eff" "$sleep_exe"
uid_of() { "$cs" ps -J -o +UID "$1" 2>/dev/null | "$json" processes.0.uid 2>/dev/null; }
expect user-matched "$usr" sessions rule
[ "$(uid_of "$usr")" = 65533 ]
result user-uid-shown 0 '' $? "uid $(uid_of "$usr")"
expect effective-uid-not-matched "$eff" null none
[ "$(uid_of "$eff")" = 65532 ]
result real-uid-shown 0 '' $? "uid $(uid_of "$eff")"

# MatchCgroup= by the cgroup each process execs in: two processes exec in
# cgroup a (the second's path known by the id the kernel gives with its
# ids, on Linux 6.13 and later, once the first's read showed it), one in b.
if [ -n "$cga" ]; then
	for c in "$cga" "$cga" "$cgb"; do
		L sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" 0' sh "$cgmnt$c" "$W/bin/outsider"
	done
	box1=${pids[-3]} box2=${pids[-2]} box3=${pids[-1]}
	for p in $box1 $box2 $box3; do settle "$p" "$W/bin/outsider"; done
	cg_of() { "$cs" ps -J -o +CGROUP "$1" 2>/dev/null | "$json" processes.0.cgroup 2>/dev/null; }
	expect cgroup-matched "$box1" boxed rule
	expect cgroup-matched-second "$box2" boxed rule
	expect cgroup-other-not-matched "$box3" null none
	[ "$(cg_of "$box1")" = "$cga" ] && [ "$(cg_of "$box2")" = "$cga" ] && [ "$(cg_of "$box3")" = "$cgb" ]
	result cgroup-shown 0 '' $? "$(cg_of "$box1") $(cg_of "$box2") $(cg_of "$box3"), wanted $cga $cga $cgb"
else
	echo "SKIP: $T/cgroup-matched: no cgroup2 mount of the whole hierarchy to make cgroups in"
fi

# An explicit placement is recorded (and kept in the state file) like any.
out=$("$cs" assign --group forkers "$out2" 2>&1)
result assign 0 '^coresched: coreschedd is in a dry run: nothing is applied; the processes keep' $? "$out"
expect assigned "$out2" forkers assign
same assigned-shares "$fork1" "$out2"
grep -q "^$out2 " "$W/coreschedd.dry-run.state" 2>/dev/null
result state-file-records 0 '' $? "$(cat "$W/coreschedd.dry-run.state" 2>&1)"
expect real-placement-not-restored "$real" null none

# A command run in a group is not isolated: run says so, -v or not.
out=$("$cs" run -g forkers -- true 2>&1)
result run-group-says-dry 0 "^coresched: coreschedd is in a dry run: nothing is applied; the command runs without the group's cookie$" $? "$out"
# -v names each process placed, with its group and cookie.
out=$("$cs" assign -v --group forkers "$out2" 2>&1)
result assign-verbose 0 "^coresched: assigned PID $out2 to group forkers, cookie 0x[0-9a-f]+\$" $? "$out"
out=$("$cs" run -v -g forkers -- true 2>&1)
result run-group-verbose 0 '^coresched: joined group forkers, cookie 0x[0-9a-f]+$' $? "$out"

# What run -g started in a Lock=yes group may not leave it through the
# daemon either: an unprivileged caller cannot move it, not even the
# process itself with a fresh coresched run (events not yet seen).
runas=$top/build/helpers/cs-runas
chmod 755 "$W"
out=$("$runas" 65534 65534 "$cs" run -g open -- "$cs" run -g locked -- true 2>&1)
result unlocked-may-move 0 '' $? "$out"
out=$("$runas" 65534 65534 "$cs" run -g locked -- "$cs" run -g open -- true 2>&1)
result locked-no-move-by-run 6 'runs locked in its group' $? "$out"
"$runas" 65534 65534 "$cs" run -g locked -- sleep 1000 </dev/null >/dev/null 2>&1 &
pids+=($!) lk=$!
settle "$lk" "$(readlink -f "$(command -v sleep)")"
out=$("$runas" 65534 65534 "$cs" assign --group open "$lk" 2>&1)
result locked-no-move-by-assign 6 'runs locked in its group' $? "$out"
expect locked-stays "$lk" locked run
out=$("$cs" assign --group open "$lk" 2>&1)
result locked-root-may-move 0 '' $? "$out"

# Root's clear is an explicit placement too: the user whose process it is
# may not put it back into a group through the daemon.
"$runas" 65534 65534 sleep 1000 </dev/null >/dev/null 2>&1 &
pids+=($!) cl=$!
settle "$cl" "$(readlink -f "$(command -v sleep)")"
out=$("$cs" clear -v "$cl" 2>&1)
result root-clear 0 "^coresched: cleared PID $cl\$" $? "$out"
out=$("$runas" 65534 65534 "$cs" assign --group open "$cl" 2>&1)
result root-clear-kept-by-assign 6 'another user' $? "$out"
expect root-clear-kept "$cl" null none

# A setuid program the user started (real uid the user's, effective root):
# the kernel shows the user neither its exe nor its cookie, and neither
# does the daemon: ps leaves it out and explain refuses, while the user's
# plain process is shown and explained.
cp "$(readlink -f "$(command -v sleep)")" "$W/bin/suid-sleep"
chown 0:0 "$W/bin/suid-sleep" && chmod 4755 "$W/bin/suid-sleep"
"$runas" 65534 65534 "$W/bin/suid-sleep" 1000 </dev/null >/dev/null 2>&1 &
pids+=($!) su=$!
if ! settle "$su" "$W/bin/suid-sleep" || [ "$(awk '/^Uid:/ { print $2 " " $3 }' /proc/$su/status)" != "65534 0" ]; then
	echo "SKIP: $T/setuid-hidden: no setuid-root process as 65534 here (a nosuid mount?): $(grep '^Uid:' /proc/$su/status 2>&1)"
else
	out=$("$runas" 65534 65534 "$cs" ps -J 2>&1)
	grep -q "\"pid\": *$cl\b" <<<"$out" && ! grep -q "\"pid\": *$su\b" <<<"$out"
	result setuid-hidden-from-ps 0 '' $? "$out"
	out=$("$runas" 65534 65534 "$cs" explain "$su" 2>&1)
	result setuid-explain-refused 6 'its own processes' $? "$out"
	out=$("$runas" 65534 65534 "$cs" explain "$cl" 2>&1)
	result own-explained 0 '' $? "$out"
	out=$("$cs" explain "$su" 2>&1)
	result setuid-explained-to-root 0 'suid-sleep' $? "$out"
fi

# A thread id names no process: the reason says so (the kernel's pidfd_open()
# answers EINVAL, or ENOENT since Linux 6.15, which read as something else).
"$runas" 65534 65534 "$top/build/helpers/cs-threads" 1 </dev/null >/dev/null 2>&1 &
pids+=($!) th=$!
settle "$th" "$top/build/helpers/cs-threads"
for i in $(seq 100); do tid=$(ls "/proc/$th/task" | grep -vx "$th" | head -n1); [ -n "$tid" ] && break; sleep 0.1; done
for who in root user; do
	if [ $who = root ]; then out=$("$cs" assign --group open "$tid" 2>&1); else
		out=$("$runas" 65534 65534 "$cs" assign --group open "$tid" 2>&1); fi
	result thread-id-$who 1 "cannot assign PID $tid: $tid is a thread of process $th: name the process\$" $? "$out"
done
# explain of a thread id explains its process, to its user and to root
out=$("$runas" 65534 65534 "$cs" explain -J "$tid" 2>&1)
result thread-id-explained-user 0 "\"pid\": *$th\b" $? "$out"
out=$("$cs" explain -J "$tid" 2>&1)
result thread-id-explained-root 0 "\"pid\": *$th\b" $? "$out"

# ps of a PID the daemon does not track, or of a group not configured:
# an error naming it, not an empty table. Bad parameters on the socket are
# named (InvalidParameter).
out=$("$cs" ps 999999 2>&1)
result ps-unknown-pid 5 'PID 999999: not a process coreschedd tracks' $? "$out"
out=$("$cs" ps -g nosuch 2>&1)
result ps-unknown-group 1 "no such group 'nosuch'" $? "$out"
if command -v python3 >/dev/null; then
	out=$(python3 - "$W/sock" <<'PY' 2>&1
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
for m, p in [("Assign", {"group": "open", "pids": ["abc", 4294967297]}), ("Explain", {"pid": 99999999999}),
             ("Clear", {"pids": [0]}), ("ListProcesses", {"pids": "x"}), ("ListProcesses", {"user": "root"}),
             ("ListProcesses", {"group": 5})]:
    s.sendall(json.dumps({"method": "io.coresched." + m, "parameters": p}).encode() + b"\0")
    r = b""
    while not r.endswith(b"\0"):
        r += s.recv(65536)
    r = json.loads(r[:-1])
    print(m, r.get("error"), r.get("parameters", {}).get("parameter"))
PY
)
	want='Assign org.varlink.service.InvalidParameter pids
Explain org.varlink.service.InvalidParameter pid
Clear org.varlink.service.InvalidParameter pids
ListProcesses org.varlink.service.InvalidParameter pids
ListProcesses org.varlink.service.InvalidParameter user
ListProcesses org.varlink.service.InvalidParameter group'
	[ "$out" = "$want" ]
	result bad-parameters-named 0 '' $? "$out"
fi
# An unprivileged listing reads the credentials of at most 512 of the
# caller's processes, and says it stopped.
many=()
for i in $(seq 600); do "$runas" 65534 65534 sleep 1000 </dev/null >/dev/null 2>&1 & many+=($!); done
for i in $(seq 100); do
	[ "$("$cs" ps -u 65534 -J 2>/dev/null | grep -c '"pid"')" -ge 600 ] && break
	sleep 0.1
done
out=$("$runas" 65534 65534 "$cs" ps -J 2>&1)
n=$(grep -c '"pid"' <<<"$out")
[ "$n" -le 512 ] && [ "$n" -ge 500 ]
result ps-unprivileged-capped 0 'only the first 512 of your processes' $? "$n rows; $(grep coresched: <<<"$out")"
kill "${many[@]}" 2>/dev/null
wait "${many[@]}" 2>/dev/null

# A process of the user's that holds capabilities the user lacks (kept
# across setuid, and made dumpable again) is not theirs to share a cookie
# with: the kernel's own check wants the target's permitted capabilities
# within the caller's.
if ! command -v python3 >/dev/null; then
	echo "SKIP: $T/capabilities-refused: no python3 to keep capabilities across setuid"
else
	python3 -c '
import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
libc.prctl(8, 1, 0, 0, 0)           # PR_SET_KEEPCAPS
os.setgroups([]); os.setresgid(65534, 65534, 65534); os.setresuid(65534, 65534, 65534)
libc.prctl(4, 1, 0, 0, 0)           # PR_SET_DUMPABLE
time.sleep(1000)' </dev/null >/dev/null 2>&1 &
	pids+=($!) capped=$!
	for i in $(seq 100); do [ "$(stat -c %u /proc/$capped/status 2>/dev/null)" = 65534 ] && break; sleep 0.1; done
	out=$(grep '^CapPrm:' /proc/$capped/status)
	result capabilities-kept 0 'CapPrm:\s*0*[1-9a-f]' 0 "$out"
	out=$("$runas" 65534 65534 "$cs" assign --group open "$capped" 2>&1)
	result capabilities-refused 6 'capabilit' $? "$out"
fi

# A zombie is no process to place, for its owner as for root; not one the
# owner is denied as though it were someone else's.
"$runas" 65534 65534 /bin/sh -c 'sh -c "exit 0" & exec sleep 1000' </dev/null >/dev/null 2>&1 &
pids+=($!) zp=$!
for i in $(seq 100); do
	zombie=$(ps -o pid=,stat= --ppid "$zp" 2>/dev/null | awk '$2 ~ /^Z/ {print $1}')
	[ -n "$zombie" ] && break
	sleep 0.1
done
out=$("$runas" 65534 65534 "$cs" assign --group open "$zombie" 2>&1)
result zombie-user 5 "cannot assign PID $zombie: no such process\$" $? "$out"
out=$("$cs" assign --group open "$zombie" 2>&1)
result zombie-root 5 "cannot assign PID $zombie: no such process\$" $? "$out"

# A delegate (ControlGroup=, gid 65532 here) may reload, but may not have
# the daemon, which reads as root, parse a directory of its choosing: the
# errors quote the lines they are about, here one of a file only root may
# read, through a link the delegate made.
mkdir -m 755 "$W/delegate" && chown 65532:65532 "$W/delegate"
printf 'secret-line-%s\n' "$$" > "$W/root-only" && chmod 600 "$W/root-only"
"$runas" 65532 65532 ln -s "$W/root-only" "$W/delegate/coreschedd.conf"
out=$("$runas" 65532 65532 "$cs" reload -v 2>&1)
result delegate-reload 0 '^coresched: reloaded: [0-9]+ groups, configuration generation [0-9]+$' $? "$out"
out=$("$runas" 65532 65532 "$cs" check-config "$W/delegate" 2>&1)
result delegate-check-dir-refused 6 'needs root' $? "$out" "$(grep "secret-line" <<<"$out")"
out=$("$cs" check-config "$W/delegate" 2>&1)
result root-check-dir 1 "secret-line-$$" $? "$out"

# A caller in another pid namespace (a container's) names its own pids,
# which are other processes here: a request naming pids is refused, not
# read as the daemon's; coresched run, which names none, still works.
if ! "$runas" 65534 65534 unshare -Upf --map-root-user true 2>/dev/null; then
	echo "SKIP: $T/foreign-pidns: no unprivileged user and pid namespaces here"
else
	inns() { "$runas" 65534 65534 unshare -Upf --map-root-user env CORESCHED_SOCKET="$W/sock" "$@"; }
	out=$(inns "$cs" assign --group open 1 2>&1)
	result foreign-pidns-assign 1 'another pid namespace' $? "$out"
	out=$(inns "$cs" explain 1 2>&1)
	result foreign-pidns-explain 1 'another pid namespace' $? "$out"
	out=$(inns "$cs" ps 1 2>&1)
	result foreign-pidns-ps-pids 1 'another pid namespace' $? "$out"
	out=$(inns "$cs" run -g open -- true 2>&1)
	result foreign-pidns-run 0 '' $? "$out"
fi
# The container hook of a runtime in a pid namespace of its own (a
# container's) gets the init's pid as that runtime sees it: pid 1 there
# is not the daemon's pid 1, which must stay where it is.
if ! unshare -pf true 2>/dev/null; then
	echo "SKIP: $T/foreign-pidns-hook: no pid namespaces here"
else
	out=$(printf '{"ociVersion":"1.0.2","id":"nested","status":"creating","pid":1,"annotations":{"io.coresched.group":"open"}}' |
		CORESCHED_SOCKET="$W/sock" unshare -pf "$cs" oci-hook 2>&1)
	result foreign-pidns-hook 1 'refused to place container nested: io.coresched.NotSupported .*another pid namespace' $? "$out"
	out=$("$cs" ps -J 1 2>&1)
	grep -q '"group": *"open"' <<<"$out" && echo "FAIL: $T/foreign-pidns-hook-init-untouched: $out" ||
		echo "PASS: $T/foreign-pidns-hook-init-untouched"
fi

# A caller in another user namespace that shares the daemon's pids (a
# sandbox's, unshare -U): the kernel lets it act on no process outside its
# namespace, not even one of its own uid (it reads not even the environ of
# one), and neither does the daemon: assign refuses and ps leaves it out.
# In its own namespace it places what it may trace, and coresched run.
if ! "$runas" 65534 65534 unshare -U --map-root-user true 2>/dev/null; then
	echo "SKIP: $T/foreign-userns: no unprivileged user namespaces here"
else
	inuserns() { "$runas" 65534 65534 unshare -U --map-root-user env CORESCHED_SOCKET="$W/sock" "$@"; }
	"$runas" 65534 65534 sleep 1000 </dev/null >/dev/null 2>&1 &
	pids+=($!) outside=$!
	settle "$outside" "$(readlink -f "$(command -v sleep)")"
	inuserns cat /proc/$outside/environ >/dev/null 2>&1
	result foreign-userns-kernel-refuses 1 '' $? ''
	out=$(inuserns "$cs" assign --group open "$outside" 2>&1)
	result foreign-userns-assign-outside 6 'user namespace' $? "$out"
	expect foreign-userns-outside-unplaced "$outside" null none
	out=$(inuserns "$cs" ps -J 2>&1)
	result foreign-userns-ps-outside 0 '' $? "$out" "$(grep -w "\"pid\": $outside" <<<"$out")"
	out=$(inuserns sh -c '"$1" assign --group open $$' sh "$cs" 2>&1)
	result foreign-userns-assign-own 0 '' $? "$out"
	out=$(inuserns "$cs" run -g open -- true 2>&1)
	result foreign-userns-run 0 '' $? "$out"
	# One it made inside its own (a rootless engine's container with a
	# mapping of its own): the kernel lets it, and so does the daemon.
	out=$(inuserns sh -c 'unshare -U --map-root-user sleep 1000 </dev/null >/dev/null 2>&1 & p=$!
		until [ "$(readlink /proc/$p/ns/user)" != "$(readlink /proc/self/ns/user)" ]; do sleep 0.05; done
		"$1" assign --group open $p; r=$?; kill $p; exit $r' sh "$cs" 2>&1)
	result foreign-userns-assign-nested 0 '' $? "$out"
fi

# A process of the caller's uid in a user namespace root made (a
# service's PrivateUsers=): the kernel lets the caller act on it no more
# than on a process of another user, and neither does the daemon.
mkfifo "$W/maps"
unshare -U sh -c 'read _ <"$1"; exec "$2" 65534 65534 sleep 1000' sh "$W/maps" "$runas" </dev/null >/dev/null 2>&1 &
pids+=($!) rootns=$!
until [ "$(readlink /proc/$rootns/ns/user)" != "$(readlink /proc/self/ns/user)" ]; do sleep 0.05; done
env printf '0 0 1\n65534 65534 1\n' >"/proc/$rootns/uid_map" &&
	env printf '0 0 1\n65534 65534 1\n' >"/proc/$rootns/gid_map" && echo >"$W/maps"
settle "$rootns" "$(readlink -f "$(command -v sleep)")" ||
	echo "FAIL: $T/root-userns-start: PID $rootns did not become sleep in its namespace"
"$runas" 65534 65534 cat /proc/$rootns/environ >/dev/null 2>&1
result root-userns-kernel-refuses 1 '' $? ''
out=$("$runas" 65534 65534 "$cs" assign --group open "$rootns" 2>&1)
result root-userns-assign 6 'user namespace' $? "$out"
expect root-userns-unplaced "$rootns" null none
out=$("$runas" 65534 65534 "$cs" ps -J 2>&1)
result root-userns-ps 0 '' $? "$out" "$(grep -w "\"pid\": $rootns" <<<"$out")"

# A session call on a connection whose process was gone before the daemon
# accepted it places no one, though newer kernels still give a pidfd of
# it (one that reads as exited) and its pid names another process by now.
h=$top/build/helpers
rm -f "$W/go" "$W/reuse.out"
kill -STOP "$dpid"
"$h/cs-reuse" "$W/sock" "$W/go" '{"method":"io.coresched.OpenSession","parameters":{"uid":65533,"gid":65533}}' \
	> "$W/reuse.out" 2>&1 &
wait $!
kill -CONT "$dpid"
gone=$(head -n1 "$W/reuse.out")
if ! "$h/cs-pidat" "$gone" sleep 1000 </dev/null >/dev/null 2>"$W/pidat.err"; then
	echo "SKIP: $T/session-gone-caller: the pid could not be given to another process: $(cat "$W/pidat.err")"
else
	pids+=("$gone")
	settle "$gone" "$(readlink -f "$(command -v sleep)")"
	touch "$W/go"
	for i in $(seq 100); do [ "$(wc -l < "$W/reuse.out")" -gt 1 ] && break; sleep 0.1; done
	result session-gone-caller-refused 0 '"error":"io.coresched.NoSuchProcess"' 0 "$(sed -n 2p "$W/reuse.out")"
	expect session-gone-caller-places-no-one "$gone" null none
fi

# A session opened by a process placed explicitly (coresched assign, run
# -g, the container hook, or a child of one) leaves it where it was put,
# as the shell it forks would stay without the module: su or sudo, which
# root runs at any user's request, does not undo another's placement. An
# opener nobody placed goes to the user's key.
cat > "$W/opener.py" <<'EOF'
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b'{"method":"io.coresched.OpenSession","parameters":{"uid":65533,"gid":65533}}\0')
buf = b""
while not buf.endswith(b"\0"):
    d = s.recv(4096)
    if not d:
        break
    buf += d
s.close()
with open(sys.argv[2], "w") as f:
    f.write(buf.rstrip(b"\0").decode() + "\n")
time.sleep(1000)
EOF
sh -c 'exec python3 "$1" "$2" "$3"' sh "$W/opener.py" "$W/sock" "$W/opened.free" </dev/null >/dev/null 2>&1 &
pids+=($!) free=$!
sh -c '"$1" assign -g forkers $$ >/dev/null 2>&1 && exec python3 "$2" "$3" "$4"' sh "$cs" "$W/opener.py" "$W/sock" \
	"$W/opened.placed" </dev/null >/dev/null 2>&1 &
pids+=($!) kept=$!
for i in $(seq 100); do [ -s "$W/opened.free" ] && [ -s "$W/opened.placed" ] && break; sleep 0.1; done
result session-opener-placed 0 '"placed": *true' 0 "$(cat "$W/opened.free" 2>&1)"
expect session-opener-in-users-key "$free" sessions session
result session-explicit-opener-not-placed 0 '"placed": *false' 0 "$(cat "$W/opened.placed" 2>&1)"
expect session-explicit-opener-kept "$kept" forkers assign

# The control socket's limits follow a reload, as the rest of the
# configuration does: one connection per user, then two.
answered() { # N: connections of nobody's at once that get an answer
	"$runas" 65534 65534 python3 -c '
import socket, sys
socks = []
for i in range(int(sys.argv[2])):
    s = socket.socket(socket.AF_UNIX); s.settimeout(3); s.connect(sys.argv[1]); socks.append(s)
n = 0
for s in socks:
    try:
        s.sendall(b"{\"method\":\"org.varlink.service.GetInfo\"}\0")
        n += s.recv(65536).endswith(b"\0")
    except OSError:
        pass
print(n)' "$W/sock" "$1"
}
limits() {
	sed -i '/^MaxClientsPerUser=/d; /^IdleTimeoutSec=/d' "$W/cfg/coreschedd.conf"
	[ -n "$1" ] && sed -i "s/^ReconcileSec=0\$/&\nMaxClientsPerUser=$1/" "$W/cfg/coreschedd.conf"
	"$cs" reload >/dev/null 2>&1
}
if ! command -v python3 >/dev/null; then
	echo "SKIP: $T/limits-on-reload: no python3 for the raw connections"
else
	limits 1
	result limits-on-reload-one 0 '^1$' 0 "$(answered 2)"
	limits 2
	result limits-on-reload-two 0 '^2$' 0 "$(answered 2)"
	limits ""
fi

# ---- what the queries say ----
js=$("$cs" status -J)
result status-json-dry-run 0 '' $? "$js"
[ "$("$json" dry_run <<<"$js")" = true ] && [ "$("$json" core_scheduling <<<"$js")" = null ] &&
	[ "$("$json" counters.errors <<<"$js")" = 0 ] && [ "$("$json" counters.assignments <<<"$js")" -gt 0 ]
result status-json-fields 0 '' $? "$js"
out=$("$cs" status)
result status-text 0 '^dry run: yes \(nothing is applied to the kernel\)$' $? "$out"
# The untagged window: the execs placed from their events were counted,
# each from the kernel's stamp (more than nothing), and its quantiles are
# in order; one more matching exec adds one, and the text says so.
n0=$("$json" window.placements <<<"$js")
[ "$n0" -ge 5 ] && [ "$("$json" window.p50_usec <<<"$js")" -gt 0 ] &&
	[ "$("$json" window.p50_usec <<<"$js")" -le "$("$json" window.p99_usec <<<"$js")" ] &&
	[ "$("$json" window.p99_usec <<<"$js")" -le "$("$json" window.max_usec <<<"$js")" ]
result status-window 0 '' $? "$js"
L "$W/bin/solo" 0
for i in $(seq 50); do
	n1=$("$cs" status -J | "$json" window.placements)
	[ "$n1" -gt "$n0" ] && break
	sleep 0.1
done
[ "$n1" = $((n0 + 1)) ]
result status-window-one-more 0 '' $? "before $n0, after $n1"
out=$("$cs" status)
result status-window-text 0 "^untagged window: $n1 placements, p50 [0-9]+ us, p90 [0-9]+ us, p99 [0-9]+ us, max [0-9]+ us\$" $? "$out"
note='^coresched: coreschedd is in a dry run: nothing is applied'
out=$("$cs" ps 2>&1 >/dev/null)
result ps-note-stderr 0 "$note" $? "$out"
out=$("$cs" list -J 2>/dev/null)
[ "$("$json" dry_run <<<"$out")" = true ] && [ "$("$json" groups.# <<<"$out")" -ge 4 ]
result list-json-dry-run 0 '' $? "$out"
out=$("$cs" list 2>&1 >/dev/null)
result list-note-stderr 0 "$note" $? "$out"
out=$("$cs" ps -J "$fork1" 2>/dev/null)
result ps-json-dry-run 0 '"dry_run": true' $? "$out"
out=$("$cs" explain "$fork1" 2>&1)
result explain-planned 0 "planned cookie \(not applied\): $(cookie "$fork1")" $? "$out"
out=$("$cs" explain -J "$fork1" 2>/dev/null)
[ "$("$json" dry_run <<<"$out")" = true ] && [ "$("$json" agrees <<<"$out")" = true ]
result explain-json 0 '' $? "$out"

# The replies match the interface description the daemon serves (fields,
# types, nullability; every method it serves is described), as root and as
# an unprivileged user.
idl=$top/tests/host/varlink-idl.py
if ! command -v python3 >/dev/null; then
	echo "SKIP: $T/replies-match-idl: no python3 to read the replies"
else
	sleep 1000 </dev/null >/dev/null 2>&1 &
	pids+=($!)
	box=$!
	out=$(python3 "$idl" "$W/sock" '["Status"]' '["ListGroups"]' '["ListProcesses"]' \
		"[\"Explain\",{\"pid\":$fork1}]" '["CheckConfig"]' \
		"[\"AssignContainer\",{\"pid\":$box,\"id\":\"idl\",\"policy\":\"trusted\"}]" 2>&1)
	result replies-match-idl 0 '' $? "$out"
	out=$("$runas" 65534 65534 sh -c 'sleep 1000 </dev/null >/dev/null 2>&1 & p=$!
		python3 - "$1" "[\"ListProcesses\"]" "[\"Explain\",{\"pid\":$p}]" "[\"Status\"]" "[\"ListGroups\"]"
		r=$?; kill $p; exit $r' sh "$W/sock" <"$idl" 2>&1)
	result replies-match-idl-unprivileged 0 '' $? "$out"
fi

stop_daemon
result clean-stop 0 '' "$stop_rc" "$(cat "$W/log")" "$(grep -m1 -E 'Sanitizer|runtime error' "$W/log")"
grep -qxF "$real_line" "$W/coreschedd.state" && ! grep -q "^$out2 " "$W/coreschedd.state"
result real-state-untouched 0 '' $? "$(cat "$W/coreschedd.state" 2>&1)"
if [ -e "$W/strace" ]; then
	n=$(grep -cE 'prctl\((PR_SCHED_CORE|0x3e|62),' "$W/strace")
	other=$(grep -c 'prctl(' "$W/strace")
	if [ "$n" = 0 ] && [ "$other" -gt 0 ]; then
		echo "PASS: $T/no-sched-core-prctl"
	else
		echo "FAIL: $T/no-sched-core-prctl: $n PR_SCHED_CORE calls ($other prctl calls traced)"
	fi
else
	echo "SKIP: $T/no-sched-core-prctl: strace is not installed"
fi

# DryRun=yes in the file does the same without the option.
printf '[Daemon]\nDryRun=yes\n[Group g]\nMatchExe=%s\n' "$W/bin/outsider" > "$W/cfg/coreschedd.conf"
if start_daemon; then
	out=$("$cs" status -J)
	result dryrun-key 0 '"dry_run": true' $? "$out"
	expect dryrun-key-placed "$out1" g rule
	# The mode is fixed at start-up: a reload that turns it off says so.
	sed -i 's/^DryRun=yes/DryRun=no/' "$W/cfg/coreschedd.conf"
	out=$("$cs" reload 2>&1)
	result reload-keeps-dry-run 0 '"dry_run": true' $? "$("$cs" status -J 2>&1) $out"
	grep -q 'DryRun=no takes effect at the next start' "$W/log"
	result reload-says-so 0 '' $? "$(cat "$W/log")"
	stop_daemon
	result dryrun-key-clean-stop 0 '' "$stop_rc" "$(cat "$W/log")" "$(grep -m1 -E 'Sanitizer|runtime error' "$W/log")"
else
	echo "FAIL: $T/dryrun-key: DryRun=yes did not start: $why"
fi

# TimeSliceUSec=: the slice the kernel then reports for the daemon (Linux
# 6.12 and later take a task's own); 0 keeps the kernel's, which is what
# this shell has; a reload that changes it says it waits for the next start.
slice_of() { sed -n 's/^se\.slice[[:space:]]*:[[:space:]]*//p' "/proc/$1/sched" 2>/dev/null; }
printf '[Daemon]\nDryRun=yes\nTimeSliceUSec=500\nLogLevel=debug\n' > "$W/cfg/coreschedd.conf"
if [ -z "$(slice_of $$)" ]; then
	echo "SKIP: $T/time-slice: /proc/PID/sched shows no se.slice on this kernel ($(uname -r))"
elif start_daemon; then
	got=$(slice_of "$dpid")
	if grep -q 'does not take one of 500 us' "$W/log"; then
		echo "SKIP: $T/time-slice: this kernel ($(uname -r)) takes no slice of a task's own (Linux 6.12 and later do)"
	else
		result time-slice 0 '' 0 "" "$([ "$got" = 500000 ] || echo "se.slice is '$got', TimeSliceUSec=500 asks for 500000")"
		# What it got is logged at the debug level.
		grep -q '^coreschedd: Time slice: 500 us$' "$W/log"
		result time-slice-logged 0 '' $? "$(grep -i slice "$W/log")"
	fi
	sed -i 's/^TimeSliceUSec=500$/TimeSliceUSec=0/' "$W/cfg/coreschedd.conf"
	out=$("$cs" reload 2>&1)
	grep -q 'TimeSliceUSec=0 takes effect at the next start' "$W/log"
	result time-slice-reload-says-so 0 '' $? "$out $(tail -n3 "$W/log")"
	result time-slice-reload-keeps 0 '' 0 "" "$([ "$(slice_of "$dpid")" = "$got" ] || echo "se.slice went from $got to $(slice_of "$dpid") at a reload")"
	stop_daemon
	if start_daemon; then
		got=$(slice_of "$dpid") want=$(slice_of $$)
		result time-slice-off 0 '' 0 "" "$([ "$got" = "$want" ] || echo "TimeSliceUSec=0: se.slice is '$got', the kernel's (this shell's) '$want'")"
		stop_daemon
	else
		echo "FAIL: $T/time-slice-off: TimeSliceUSec=0 did not start: $why"
	fi
else
	echo "FAIL: $T/time-slice: TimeSliceUSec=500 did not start: $why"
fi

# A reload that shortens ReconcileSec= from a day to a second: reconciles
# follow within seconds, not a day later.
printf '[Daemon]\nDryRun=yes\nReconcileSec=86400\n' > "$W/cfg/coreschedd.conf"
if start_daemon; then
	rec() { "$cs" status -J 2>/dev/null | "$json" counters.reconciles; }
	sleep 1.5 # past the first tick, which schedules the next reconcile
	sed -i 's/^ReconcileSec=86400$/ReconcileSec=1/' "$W/cfg/coreschedd.conf"
	"$cs" reload >/dev/null 2>&1
	before=$(rec) # the reload's own rescan counted
	for i in $(seq 50); do [ "$(rec)" -gt "$before" ] 2>/dev/null && break; sleep 0.1; done
	result reconcile-shortened-on-reload 0 '' 0 "" \
		"$([ "$(rec)" -gt "$before" ] 2>/dev/null || echo "reconciles $before after the reload, $(rec) 5 s later")"
	stop_daemon
else
	echo "FAIL: $T/reconcile-shortened-on-reload: ReconcileSec=86400 did not start: $why"
fi

# A comm is its process's to choose (a program's file name): the daemon's
# log, on stderr when it runs outside systemd, shows its control bytes as
# \xNN, so that no process can forge a line of its own or drive the
# terminal of an administrator who reads it.
printf '[Daemon]\nDryRun=yes\nLogLevel=debug\n[Group esc]\nMatchExe=%s/bin/z*q\n' "$W" > "$W/cfg/coreschedd.conf"
esc_name="z$(printf '\033')[2Jq"
cp "$sleep_exe" "$W/bin/$esc_name" && chmod 755 "$W/bin/$esc_name"
if start_daemon; then
	"$W/bin/$esc_name" 1000 </dev/null >/dev/null 2>&1 & # placed at its exec, as z\x1b[2Jq
	esc_pid=$!
	pids+=("$esc_pid")
	settle "$esc_pid" "$W/bin/$esc_name"
	for i in $(seq 50); do grep -qF "PID $esc_pid (z\\x1b[2Jq) -> esc" "$W/log" && break; sleep 0.1; done
	extra=
	grep -qF "PID $esc_pid (z\\x1b[2Jq) -> esc" "$W/log" || extra="no escaped line for PID $esc_pid"
	LC_ALL=C grep -q $'\033' "$W/log" && extra="$extra; an escape byte in the log"
	result log-escapes-controls 0 '' 0 "" "${extra#; }${extra:+: $(tail -n5 "$W/log" | od -c | head -8)}"
	stop_daemon
else
	echo "FAIL: $T/log-escapes-controls: LogLevel=debug did not start: $why"
fi

# A comm the kernel cut inside a character (a program named with more than
# 15 bytes of UTF-8) is not UTF-8: the daemon's replies still are, the
# stray byte sent as U+FFFD, and ps and explain answer for everyone.
printf '[Daemon]\nDryRun=yes\n' > "$W/cfg/coreschedd.conf"
long_name=$(printf '\303\251%.0s' 1 2 3 4 5 6 7 8 9) # é nine times: 18 bytes
cp "$sleep_exe" "$W/bin/$long_name" && chmod 755 "$W/bin/$long_name"
if start_daemon; then
	"$W/bin/$long_name" 1000 </dev/null >/dev/null 2>&1 &
	cut_pid=$!
	pids+=("$cut_pid")
	settle "$cut_pid" "$W/bin/$long_name"
	out=$("$cs" ps -n -o PID,COMM "$cut_pid" 2>&1); rc=$?
	result cut-comm-ps 0 "^ *$cut_pid +$(printf '\303\251%.0s' 1 2 3 4 5 6 7)$(printf '\357\277\275')\$" $rc "$out"
	out=$("$cs" ps 2>&1 >/dev/null); rc=$?
	result cut-comm-ps-all 0 '' $rc "$out"
	out=$("$cs" explain "$cut_pid" 2>&1); rc=$?
	result cut-comm-explain 0 "^comm: $(printf '\303\251%.0s' 1 2 3 4 5 6 7)$(printf '\357\277\275')\$" $rc "$out"
	stop_daemon
else
	echo "FAIL: $T/cut-comm: the dry run did not start: $why"
fi

# A container's id and sandbox become keys: one with a NUL inside, a
# control character or U+FFFD (what a lone surrogate escape is read as)
# could stand for another container's, and is refused.
if start_daemon; then
	sleep 1000 </dev/null >/dev/null 2>&1 &
	ctr=$!
	pids+=("$ctr")
	out=$(python3 - "$W/sock" "$ctr" "$idl" <<'EOF' 2>&1
import importlib.util, sys
spec = importlib.util.spec_from_file_location("varlink_idl", sys.argv[3])
vl = importlib.util.module_from_spec(spec)
spec.loader.exec_module(vl)
def call(params):
    return vl.call(sys.argv[1], "io.coresched.AssignContainer", params)
pid = int(sys.argv[2])
bad = 0
for field, value in (("id", "ctr\x00one"), ("id", "a\udc00"), ("id", "a\ufffd"), ("id", "a\x1bb"),
                     ("id", "a\x9bb"), ("sandbox", "sb\x00x")):
    params = {"pid": pid, "id": "ctr-ok", "policy": "trusted", field: value}
    r = call(params)
    if r.get("error") != "org.varlink.service.InvalidParameter" or r.get("parameters", {}).get("parameter") != field:
        print("accepted %s=%r: %s" % (field, value, r)); bad = 1
r = call({"pid": pid, "id": "caf\u00e9-1", "policy": "trusted"})
if r.get("error") == "org.varlink.service.InvalidParameter":
    print("refused a printable UTF-8 id: %s" % r); bad = 1
sys.exit(bad)
EOF
)
	result container-names-refused 0 '' $? "$out"
	stop_daemon
else
	echo "FAIL: $T/container-names-refused: the dry run did not start: $why"
fi
