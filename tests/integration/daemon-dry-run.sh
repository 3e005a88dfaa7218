# A dry run on a kernel that has core scheduling. First alone:
# coreschedd --dry-run plans groups, but the kernel's cookies (cs-cookies,
# its own PR_SCHED_CORE_GET) stay 0 on every task, the daemon's included.
# Then beside a daemon that applies the same policy, both watching the
# same processes start: which processes share a cookie in the kernel is
# what the dry run planned (matched processes, children forked right after
# the exec, a matched process's unmatched helpers, Per=process, none).
. /tests/integration/lib.sh
. /tests/integration/daemon-lib.sh

DRY=/tmp/$T-dry.sock
for b in forker execer outsider solo; do cp /usr/libexec/coresched-tests/cs-forker "$BIN/$b"; done
cat > "$CFG/coreschedd.conf" <<EOF2
[Daemon]
ReconcileSec=0
[Group forkers]
MatchExe=$BIN/forker
[Group execers]
MatchExe=$BIN/execer
[Group solo]
MatchExe=$BIN/solo
Per=process
EOF2
# Tasks earlier tests left with a cookie: not this test's to judge.
cs-cookies -t | awk '$3 != "0x0" { print $2 }' > /tmp/$T-before
coreschedd --config-dir "$CFG" --socket "$DRY" --dry-run >>"$DLOG" 2>&1 &
dry=$!
cleanup_pids="$cleanup_pids $dry"
wait_for test -S "$DRY" || { fail dry-start "no control socket; log: $(cat "$DLOG")"; exit 1; }
dcs() { CORESCHED_SOCKET=$DRY coresched "$@"; }
expect status-dry-run "$(dcs status -J | cs-json dry_run)" true
# Where each process's ids come from, as the kernel's version says (the
# test kernel, 6.12, has no PIDFD_GET_INFO: status).
kver=$(uname -r); kmaj=${kver%%.*}; kmin=${kver#*.}; kmin=${kmin%%[!0-9]*}
if [ "$kmaj" -gt 6 ] || { [ "$kmaj" -eq 6 ] && [ "$kmin" -ge 13 ]; }; then
	want='Process ids are read through pidfds (PIDFD_GET_INFO)'
else
	want='Process ids are read from /proc/PID/status: the kernel has no PIDFD_GET_INFO (Linux 6.13)'
fi
if grep -qF "$want" "$DLOG"; then
	pass says-id-source
else
	fail says-id-source "kernel $kver, wanted: $want; log: $(tail -n 20 "$DLOG")"
fi
planned() { dcs ps -J "$1" 2>/dev/null | cs-json processes.0.cookie; }
# for wait_for, which retries a command: each try reads again
planned_set() { local c; c=$(planned "$1"); [ -n "$c" ] && [ "$c" != 0x0 ]; }

bg "$BIN/forker" 3; a=$!
wait_for planned_set $a
expect_set planned-alone "$(planned $a)"
sleep 1
expect kernel-untouched "$(cs-cookies -t | awk 'NR == FNR { old[$1]; next } $3 != "0x0" && !($2 in old)' /tmp/$T-before -)" ""

# Beside the real one, on processes both see start.
daemon_start || exit 1
bg "$BIN/forker" 3; f1=$!
bg "$BIN/forker" 0; f2=$!
bg "$BIN/execer" -w 5 2 "$BIN/outsider" 0; e1=$!   # helpers forked once placed
bg "$BIN/execer" -w 5 1 /bin/sh -c 'sleep 1000 & wait'; e2=$!
bg "$BIN/solo" 0; s1=$!
bg "$BIN/solo" 0; s2=$!
bg "$BIN/outsider" 0; o1=$!
wait_for tagged $e1
wait_for kids_ready $f1 3
wait_for kids_ready $e1 2
wait_for kids_ready $e2 1
sh=$(kids $e2)
wait_for kids_ready "$sh" 1
pids="$f1 $f2 $e1 $e2 $s1 $s2 $o1 $(kids $f1) $(kids $e1) $sh $(kids "$sh")"
# All but the outsider are placed by both daemons, each in its own time
# (a child forked at once may be read well after its parent); then a
# moment for anything that would move one again
for p in $pids; do
	[ "$p" = "$o1" ] && continue
	wait_for tagged "$p"
	wait_for planned_set "$p"
done
sleep 1

# classes SOURCE PIDS...: "pid:class", pids of one class sharing a
# cookie (class 0: cookie 0), classes numbered by first appearance
classes() {
	local src=$1 seen="" p c i
	shift
	for p in "$@"; do
		c=$($src "$p")
		if [ "$c" = 0x0 ] || [ -z "$c" ]; then echo "$p:${c:-none}"; continue; fi
		i=$(printf '%s\n' $seen | grep -n -x -- "$c" | cut -d: -f1)
		[ -z "$i" ] && { seen="$seen $c"; i=$(printf '%s\n' $seen | grep -c .); }
		echo "$p:$i"
	done
}
plan=$(classes planned $pids)
real=$(classes cookie $pids)
echo "$T: planned $(echo $plan)"
echo "$T: kernel  $(echo $real)"
n=$(printf '%s\n' $real | grep -vc ':0x0$')
[ "$n" -ge 12 ] && pass real-groups || fail real-groups "$n placed: $(echo $real)"
expect real-matches-plan "$(echo $real)" "$(echo $plan)"
daemon_stop
kill "$dry"
wait "$dry" 2>/dev/null
