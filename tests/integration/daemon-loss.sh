# Forced event loss (a tiny receive buffer) still converges: the daemon
# sees ENOBUFS, rescans, and every process agrees with policy.
. /tests/integration/lib.sh
. /tests/integration/daemon-lib.sh

cp /usr/libexec/coresched-tests/cs-spin "$BIN/stormer"
worker longer
cat > "$CFG/coreschedd.conf" <<EOF2
[Daemon]
ReconcileSec=0
ReceiveBuffer=4096
[Group long]
MatchExe=$BIN/longer
EOF2
daemon_start || exit 1
kill -STOP $DPID # let the socket overflow while it cannot read
for i in $(seq 1 300); do "$BIN/stormer" 0; done
for i in $(seq 1 10); do bg "$BIN/longer" 1; done
kill -CONT $DPID
last=$(echo $cleanup_pids | awk '{print $NF}')
tagged() { c=$(cookie "$1"); [ -n "$c" ] && [ "$c" != 0x0 ]; }
# The rescan takes longer in a slow (sanitized) build under TCG on a busy
# host: up to 60 s there (one sanitized run needed more than 30).
for try in 1 2 3 4 5 6; do wait_for tagged "$last" && break; done
if grep -q "Events were lost" "$DLOG"; then pass loss-detected; else fail loss-detected "no resync in log: $(tail -3 $DLOG)"; fi
want=$(cookie "$last")
expect_set loss-tagged "$want"
bad=0
for p in $cleanup_pids; do
	[ "$(readlink /proc/$p/exe 2>/dev/null)" = "$BIN/longer" ] || continue
	[ "$(cookie $p)" = "$want" ] || bad=$((bad + 1))
done
expect loss-converged "$bad" 0
