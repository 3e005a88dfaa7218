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
