# Sourced by the host tests (not a test itself: run-checks runs *.sh).

# result NAME WANT_RC PATTERN RC OUTPUT [FAILURE]: one PASS/FAIL line for a
# command that exited RC printing OUTPUT; FAILURE, when given, is a further
# reason the caller found to fail it.
result() {
	local name=$1 want=$2 pat=$3 rc=$4 out=$5 extra=${6:-}

	if [ "$rc" != "$want" ]; then
		echo "FAIL: $T/$name: exit status $rc, expected $want; output: $out"
	elif [ -n "$pat" ] && ! grep -qE -- "$pat" <<<"$out"; then
		echo "FAIL: $T/$name: output lacks /$pat/: $out"
	elif [ -n "$extra" ]; then
		echo "FAIL: $T/$name: $extra"
	else
		echo "PASS: $T/$name"
	fi
}

# The daemon's tests. need_root_for_events: SKIP unless root (the proc
# connector needs CAP_NET_ADMIN).
need_root_for_events() {
	if [ "$(id -u)" != 0 ]; then
		echo "SKIP: $T: needs root (the proc connector needs CAP_NET_ADMIN)"
		exit 0
	fi
}

# daemon_workdir NAME: a work directory $W (with bin/ and cfg/), the
# socket in it, and a cleanup on exit that stops the daemon ($dpid), every
# pid in ${pids[@]} and $real, and removes $W. Needs $d and $cs.
daemon_workdir() {
	W=$(mktemp -d "/tmp/cs-$1-XXXXXX")
	export CORESCHED_SOCKET=$W/sock
	pids=() dpid= real=
	trap daemon_cleanup EXIT
	mkdir -p "$W/bin" "$W/cfg"
}
daemon_cleanup() {
	local p
	[ -n "$real" ] && kill "$real" 2>/dev/null
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	[ -n "$dpid" ] && kill "$dpid" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$W"
}

# start_daemon [--strace] ARGS...: in the background (under strace when
# asked and there is one); 0 once the socket answers, 1 with the reason in
# $why. A sanitized build's leak check needs ptrace, which the daemon's
# seccomp filter refuses: off, as in the VM suite.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
start_daemon() {
	local i
	rm -f "$W/sock" "$W/strace"
	if [ "$1" = --strace ] && shift && command -v strace >/dev/null; then
		strace -f -qq --seccomp-bpf -e trace=prctl -o "$W/strace" \
			"$d" -c "$W/cfg" -s "$W/sock" "$@" 2>"$W/log" &
	else
		"$d" -c "$W/cfg" -s "$W/sock" "$@" 2>"$W/log" &
	fi
	dpid=$!
	for i in $(seq 100); do
		"$cs" status >/dev/null 2>&1 && return 0
		kill -0 "$dpid" 2>/dev/null || break
		sleep 0.1
	done
	why=$(cat "$W/log")
	return 1
}

# start_dry_run [--strace] ARGS...: start_daemon --dry-run; SKIP when the
# kernel has no proc connector, FAIL and exit when it does not start.
start_dry_run() {
	local s=
	[ "$1" = --strace ] && s=--strace && shift
	start_daemon $s --dry-run "$@" && return 0
	if grep -q 'subscribe to process events' <<<"$why"; then
		echo "SKIP: $T: no proc connector here: $(tail -n1 <<<"$why")"
		exit 0
	fi
	echo "FAIL: $T/start: the dry run did not start: $why"
	exit 1
}
