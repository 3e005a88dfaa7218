# Helpers for tests that run coreschedd (sourced after lib.sh).
CFG=/tmp/cfg-$T
SOCK=/run/coresched/io.coresched
DLOG=/tmp/coreschedd-$T.log
BIN=/tmp/bin-$T
mkdir -p "$CFG/rules.d" "$BIN"

# worker NAME: a copy of cs-threads under NAME, so rules can tell them apart
worker() { cp /usr/libexec/coresched-tests/cs-threads "$BIN/$1"; }

# daemon_start [ARGS]: CORESCHED_DAEMON names another build to run (the
# fault-injection one)
daemon_start() {
	rm -f "$SOCK"
	"${CORESCHED_DAEMON:-coreschedd}" --config-dir "$CFG" "$@" >>"$DLOG" 2>&1 &
	DPID=$!
	cleanup_pids="$cleanup_pids $DPID"
	wait_for test -S "$SOCK" || { fail daemon-start "no control socket; log: $(cat $DLOG)"; return 1; }
}
# daemon_stop: SIGTERM and its exit status; a daemon that does not stop
# cleanly shows the end of its log (a sanitizer's report lands there).
daemon_stop() {
	local rc
	kill "$DPID" 2>/dev/null
	wait "$DPID" 2>/dev/null
	rc=$?
	[ $rc -ne 0 ] && tail -n 25 "$DLOG" | sed "s/^/# $T: coreschedd exited $rc: /"
	return $rc
}

# cookie_is PID EXPECTED: wait up to 10 s for PID's cookie to become EXPECTED
cookie_is() { [ "$(cookie "$1")" = "$2" ]; }
settles() { wait_for cookie_is "$1" "$2"; }
