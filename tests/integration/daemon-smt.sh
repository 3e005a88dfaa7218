# SMT switched off while the daemon runs: it keeps running, and once SMT is
# back it reconciles what it could not tag meanwhile.
. /tests/integration/lib.sh
. /tests/integration/daemon-lib.sh

ctl=/sys/devices/system/cpu/smt/control
[ -w $ctl ] || { skip daemon-smt "no writable $ctl"; exit 0; }
worker member
cat > "$CFG/coreschedd.conf" <<EOF2
[Daemon]
ReconcileSec=1
[Group g]
MatchExe=$BIN/member
EOF2
daemon_start || exit 1
bg "$BIN/member" 1; a=$!
wait_for tagged $a
c=$(cookie $a)
expect_set smt-before "$c"
echo off > $ctl
bg "$BIN/member" 1; b=$!
sleep 1.5
kill -0 $DPID && pass smt-off-daemon-alive || fail smt-off-daemon-alive "daemon exited: $(tail -3 $DLOG)"
echo on > $ctl
settles $b "$c"
expect smt-back-reconciled "$(cookie $b)" "$c"
expect smt-back-kept "$(cookie $a)" "$c"
daemon_stop

# smt_is 0|1: /sys says SMT is that now
smt_is() { [ "$(cat /sys/devices/system/cpu/smt/active)" = "$1" ]; }

# SMT off across a wider set, with no periodic reconcile to hide a gap
# (ReconcileSec=0: SMT coming back is the only repair). While it is off:
# a storm of members, the first member of a group that has no cookie yet,
# Per=process parents whose children run a helper, a member's children
# running an unmatched helper. Once it is back on, each is judged by the
# kernel's word: the members share their group's cookie, the new group's
# is another, each Per=process child has its own, the helpers their
# parent's.
worker fresh
cp /usr/libexec/coresched-tests/cs-forker "$BIN/pp"
cp /usr/libexec/coresched-tests/cs-forker "$BIN/fk"
cat > "$CFG/coreschedd.conf" <<EOF2
[Daemon]
ReconcileSec=0
[Group g]
MatchExe=$BIN/member
MatchExe=$BIN/fk
[Group fresh]
MatchExe=$BIN/fresh
[Group pp]
MatchExe=$BIN/pp
Per=process
EOF2
daemon_start || exit 1
bg "$BIN/member" 1 > /dev/null; a=$!
wait_for tagged $a
c=$(cookie $a)
expect_set wide-before "$c"
echo off > $ctl
wait_for smt_is 0
storm=""
for i in $(seq 1 20); do bg "$BIN/member" 0 > /dev/null; storm="$storm $!"; done
bg "$BIN/fresh" 0 > /dev/null; f=$!
bg "$BIN/pp" 3 /bin/sleep 1000; p1=$!
bg "$BIN/pp" 3 /bin/sleep 1000; p2=$!
bg "$BIN/fk" 3 /bin/sleep 1000; h=$!
wait_for kids_ready $p1 3; wait_for kids_ready $p2 3; wait_for kids_ready $h 3
sleep 1
kill -0 $DPID && pass wide-off-daemon-alive || fail wide-off-daemon-alive "daemon exited: $(tail -3 $DLOG)"
echo on > $ctl
wait_for smt_is 1
# all_at COOKIE PID...: each PID carries COOKIE (one wait for all, so that
# a daemon that repairs nothing fails in 10 s, not 10 s a process)
all_at() { local w=$1 q; shift; for q in "$@"; do [ "$(cookie $q)" = "$w" ] || return 1; done; }
# all_own COOKIE PID...: each PID carries a cookie set, not COOKIE
all_own() { local w=$1 q; shift; for q in "$@"; do own_cookie $q "$w" || return 1; done; }
# off_from COOKIE PID...: the PIDs that do not carry COOKIE, with theirs
off_from() { local w=$1 q; shift; for q in "$@"; do [ "$(cookie $q)" = "$w" ] || echo -n " $q:$(cookie $q)"; done; }
wait_for all_at "$c" $storm $a $h
bad=$(off_from "$c" $storm $a $h)
expect wide-members-share "${bad:-none}" none
wait_for tagged $f
expect_distinct wide-new-group-own "$(cookie $f)" "$c"
bad="" seen=""
for p in $p1 $p2; do
	wait_for tagged $p
	pc=$(cookie $p)
	wait_for all_own "$pc" $(kids $p)
	for ch in $(kids $p); do
		cc=$(cookie $ch)
		case " $seen " in *" $cc "*) bad="$bad $ch:shared:$cc" ;; esac
		if [ "$cc" = 0x0 ] || [ -z "$cc" ] || [ "$cc" = "$pc" ] || [ "$cc" = "$c" ]; then bad="$bad $ch:$cc"; fi
		seen="$seen $cc $pc"
	done
done
expect wide-per-process-own "${bad:-none}" none
wait_for all_at "$c" $(kids $h)
bad=$(off_from "$c" $(kids $h))
expect wide-helpers-follow "${bad:-none}" none
daemon_stop
cleanup; cleanup_pids=""

# UnmatchedExec=clear, SMT off when a member runs an unmatched program:
# the clear the kernel refused then is made once SMT is back, with no
# reconcile to make it.
# a shell of its own path (the VM's sh is busybox, which runs what its
# name says: keep that name)
mkdir -p "$BIN/sh"; cp "$(readlink -f /bin/sh)" "$BIN/sh/busybox"
cat > "$CFG/coreschedd.conf" <<EOF2
[Daemon]
ReconcileSec=0
UnmatchedExec=clear
[Group g]
MatchExe=$BIN/sh/busybox
EOF2
daemon_start || exit 1
rm -f /tmp/smt-go
bg "$BIN/sh/busybox" sh -c 'while [ ! -e /tmp/smt-go ]; do :; done; exec /bin/sleep 1000'; l=$!
wait_for tagged $l
echo off > $ctl
wait_for smt_is 0
touch /tmp/smt-go
left() { [ -n "$(readlink /proc/$l/exe)" ] && [ "$(readlink /proc/$l/exe)" != "$BIN/sh/busybox" ]; }
wait_for left || fail clear-while-off-exec "PID $l still runs $(readlink /proc/$l/exe)"
sleep 1
echo on > $ctl
wait_for smt_is 1
settles $l 0x0
expect clear-while-off-made "$(cookie $l)" 0x0
rm -f /tmp/smt-go
daemon_stop
cleanup; cleanup_pids=""

# Started while SMT is switched off: the daemon waits instead of exiting 4,
# and once SMT is on starts as after a restart. A member placed before the
# restart keeps its cookie (adopted), members started during the wait
# join it, a group added to the configuration during the wait places its
# first member with a cookie of its own; a stop during the wait is a clean
# one. Where smt/control says SMT cannot come back (forceoff,
# notsupported) or cannot be read, the start ends with exit status 4.
cat > "$CFG/coreschedd.conf" <<EOF2
[Daemon]
ReconcileSec=0
[Group g]
MatchExe=$BIN/member
EOF2
daemon_start || exit 1
bg "$BIN/member" 0 > /dev/null; a=$!
wait_for tagged $a
c=$(cookie $a)
daemon_stop
echo off > $ctl
wait_for smt_is 0
# started_waiting: the daemon runs, has said it waits, and serves no socket
started_waiting() { kill -0 $DPID 2>/dev/null && grep -q "waiting for it to be switched on" "$DLOG"; }
# start_waiting: the daemon in the background (daemon_start waits for its
# socket), then a wait until it says it waits for SMT
start_waiting() {
	rm -f "$SOCK"
	coreschedd --config-dir "$CFG" >>"$DLOG" 2>&1 & DPID=$!
	cleanup_pids="$cleanup_pids $DPID"
	wait_for started_waiting
}
if start_waiting; then pass start-off-waits; else fail start-off-waits "$(tail -3 $DLOG)"; fi
storm=""
for i in $(seq 1 5); do bg "$BIN/member" 0 > /dev/null; storm="$storm $!"; done
bg "$BIN/fresh" 0 > /dev/null; f=$!
printf '[Group fresh]\nMatchExe=%s\n' "$BIN/fresh" >> "$CFG/coreschedd.conf"
sleep 1.5
kill -0 $DPID 2>/dev/null && pass start-off-still-waiting || fail start-off-still-waiting "exited: $(tail -3 $DLOG)"
echo on > $ctl
wait_for smt_is 1
wait_for test -S "$SOCK" || fail start-off-socket "no control socket once SMT is on: $(tail -3 $DLOG)"
wait_for all_at "$c" $a $storm
expect start-off-adopted-kept "$(cookie $a)" "$c"
bad=$(off_from "$c" $storm)
expect start-off-members-join "${bad:-none}" none
wait_for tagged $f
expect_distinct start-off-new-group-own "$(cookie $f)" "$c"
daemon_stop; rc=$?
expect start-off-stop-after "$rc" 0
# a stop during the wait
echo off > $ctl
wait_for smt_is 0
: > "$DLOG"
start_waiting || fail stop-while-waiting-start "$(tail -3 $DLOG)"
kill $DPID; wait $DPID; rc=$?
expect stop-while-waiting-rc "$rc" 0
# SMT still off, smt/control made to say otherwise in a mount namespace of
# the daemon's own: nothing to wait for.
# exits_4 NAME MOUNT: after MOUNT in that namespace, the start ends with 4
# and says why
exits_4() {
	: > "$DLOG"
	timeout 20 unshare -m --propagation private sh -c "$2 && exec coreschedd --config-dir $CFG" >>"$DLOG" 2>&1
	rc=$?
	expect "start-control-$1-exit-4" "$rc $(grep -c 'SMT is absent or forced off' "$DLOG")" "4 1"
}
for word in forceoff notsupported notimplemented ""; do
	printf '%s\n' "$word" > /tmp/smt-control-fake
	exits_4 "${word:-empty}" "mount --bind /tmp/smt-control-fake $ctl"
done
rm -f /tmp/smt-control-fake
# no smt/control at all (an empty directory in place of smt/)
exits_4 absent "mount -t tmpfs none ${ctl%/control}"
echo on > $ctl
wait_for smt_is 1
