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

# Storms (daemon-race.sh, attack-lib.sh): a phase starts its processes
# under $roots and counts in $want those it waits for.
# storm_verdict NAME HAVE WANT BAD JUDGED: all found and none mismatched,
# and the daemon still runs.
storm_verdict() {
	if [ "$2" -lt "$3" ]; then
		fail "$1" "only $2 of the $3 processes of the storm were found"
	elif [ "$4" != 0 ]; then
		fail "$1" "$4 mismatches among $5 judged"
	else
		pass "$1"
	fi
	kill -0 "$DPID" 2>/dev/null || fail "$1-daemon-alive" "coreschedd exited: $(tail -n3 "$DLOG")"
}
# storm_reap [DIR/]: kill everything below $roots (and, with DIR/, every
# process running a program in DIR: the orphans), so that the next phase
# starts afresh.
storm_reap() {
	victims=$(cs-cookies -x | awk -v roots="$roots" -v bin="${1:-}" '
		BEGIN { n = split(roots, r, " "); for (i = 1; i <= n; i++) root[r[i]] = 1 }
		{ pp[$1] = $4; if (bin != "" && index($6, bin) == 1) orphan[$1] = 1 }
		END { for (p in pp) { if (p in orphan) { print p; continue }
			for (q = p; q in pp && q > 1; q = pp[q]) if (q in root) { print p; break } } }')
	[ -n "$victims" ] && kill -9 $victims 2>/dev/null
	for r in $roots; do wait "$r" 2>/dev/null; done
	roots="" want=0 t0=$(date +%s)
}
