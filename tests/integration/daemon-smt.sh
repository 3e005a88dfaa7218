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
settles $a "$(cookie $a)"
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

# Started while SMT is switched off (as after booting with nosmt): the
# daemon runs instead of exiting 4, and once SMT is switched on it tags
# what the rules name, members started before and while it was off alike.
daemon_stop
echo off > $ctl
bg "$BIN/member" 1; d=$!
daemon_start || exit 1
bg "$BIN/member" 1; e=$!
sleep 1.5
kill -0 $DPID && pass smt-off-start-alive || fail smt-off-start-alive "daemon exited: $(tail -3 $DLOG)"
grep -q 'SMT is switched off' $DLOG && pass smt-off-start-says-so || fail smt-off-start-says-so "$(tail -3 $DLOG)"
expect smt-off-start-status "$(coresched status 2>/dev/null | sed -n 's/^SMT: //p')" no
echo on > $ctl
wait_for tagged $d
c2=$(cookie $d)
expect_set smt-on-after-start "$c2"
settles $e "$c2"
expect smt-on-after-start-same-key "$(cookie $e)" "$c2"
settles $a "$c2"
expect smt-on-after-start-earlier-member "$(cookie $a)" "$c2"
daemon_stop
