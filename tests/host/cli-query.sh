# The daemon commands on the host, with no daemon: the not-running line and
# exit 7, and argument errors (exit 1) caught before any connection.
cd "$(dirname "$0")/../.." || exit 1
cs=build/coresched
T=host/cli-query
CORESCHED_SOCKET=$(mktemp -u /tmp/cs-query-XXXXXX.sock)
export CORESCHED_SOCKET
notrun="^coresched: coreschedd is not running \(no socket at $CORESCHED_SOCKET\)$"

. tests/host/lib.bash

check() { # NAME EXPECTED_RC PATTERN COMMAND...
	local name=$1 want=$2 pat=$3 out rc extra=
	shift 3
	out=$("$@" 2>&1)
	rc=$?
	[ "$want" = 7 ] && [ "$(wc -l <<<"$out")" != 1 ] && extra="more than one line: $out"
	result "$name" "$want" "$pat" "$rc" "$out" "$extra"
}

check no-daemon-status 7 "$notrun" $cs status
check no-daemon-status-json 7 "$notrun" $cs status -J
check no-daemon-list 7 "$notrun" $cs list
check no-daemon-list-json 7 "$notrun" $cs list -J -o GROUP,COOKIE
check no-daemon-ps 7 "$notrun" $cs ps
check no-daemon-ps-filters 7 "$notrun" $cs ps -u 0 -g web 1
check no-daemon-explain 7 "$notrun" $cs explain 1
check no-daemon-assign 7 "$notrun" $cs assign --group web 1
check no-daemon-run-group 7 "$notrun" $cs run --group web -- true
check no-daemon-reload 7 "$notrun" $cs reload
check no-daemon-check-config 7 "$notrun" $cs check-config
check no-daemon-check-config-dir 7 "$notrun" $cs check-config /
check no-daemon-stats 7 "$notrun" $cs stats
check no-daemon-stats-count 7 "$notrun" $cs stats -c 2 -i 0.01
# A socket file nobody listens on is "not running" too.
sockdir=$(mktemp -d)
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$sockdir/s" 2>/dev/null
if [ -S "$sockdir/s" ]; then
	check no-daemon-stale-socket 7 "not running \(no socket at $sockdir/s\)" env CORESCHED_SOCKET="$sockdir/s" $cs status
else
	echo "SKIP: $T/no-daemon-stale-socket: could not make a unix socket file"
fi
rm -rf "$sockdir"
# The command that was never run must not run: run --group execs only after
# the daemon placed it.
marker=$(mktemp -u)
$cs run --group web -- touch "$marker" >/dev/null 2>&1
if [ -e "$marker" ]; then echo "FAIL: $T/run-group-no-exec: the command ran"; rm -f "$marker"; else echo "PASS: $T/run-group-no-exec"; fi

# Argument errors: exit 1 with util-linux style messages, daemon or not.
try="Try 'coresched --help' for more information."
check assign-needs-group 1 'assign needs --group GROUP' $cs assign 1
check assign-needs-pids 1 'assign needs PIDs' $cs assign -g web
check assign-bad-pid 1 "invalid PID argument: 'abc'" $cs assign -g web abc
check assign-zero-pid 1 "invalid PID argument: '0'" $cs assign -g web 0
check assign-try-help 1 "$try" $cs assign 1
check assign-group-no-value 1 "option '--group' requires an argument" $cs assign 1 --group
check ps-bad-pid 1 "invalid PID argument: 'x1'" $cs ps x1
check ps-unknown-user 1 "unknown user 'no-such-user-here'" $cs ps -u no-such-user-here
check ps-bad-column 1 'unknown column: BOGUS' $cs ps -o PID,BOGUS
check list-bad-column 1 'unknown column: NOPE' $cs list -o +NOPE
check stats-bad-column 1 'unknown column: X' $cs stats -o X
check stats-count-bad-column 1 'unknown column: RATIO' $cs stats -c 1 -o RATIO
check list-bad-option 1 "invalid option -- 'x'" $cs list -x
check status-bad-long-option 1 "unrecognized option '--bogus'" $cs status --bogus
check status-extra-argument 1 "unexpected argument 'now'" $cs status now
check explain-needs-pid 1 'explain needs one PID' $cs explain
check explain-one-pid 1 'explain needs one PID' $cs explain 1 2
check explain-bad-pid 1 "invalid PID argument: '-3'" $cs explain -- -3
check clear-bad-pid 1 "invalid PID argument: 'abc'" $cs clear abc
check clear-bad-type 1 "unsupported dest-type 'thread'" $cs clear -t thread 1
check reload-extra-argument 1 "unexpected argument 'x'" $cs reload x
check check-config-two-dirs 1 "unexpected argument 'b'" $cs check-config a b
check check-config-missing-dir 1 'cannot use /no/such/dir' $cs check-config /no/such/dir
check stats-bad-interval 1 "invalid interval: '0'" $cs stats -i 0 -c 1
check stats-bad-count 1 "invalid count: '1.5'" $cs stats -c 1.5
check stats-count-no-value 1 "option requires an argument -- 'c'" $cs stats -c
check run-group-new 1 'run --group does not take --new or -t' $cs run --new -g web -- true
check run-group-empty 1 'empty group name' $cs run --group= -- true
check run-group-needs-command 1 'run needs -- COMMAND' $cs run -g web
check ps-help 0 'Available output columns' $cs ps --help
check list-help 0 'SOURCE' $cs list -h
check help-lists-daemon-functions 0 'coresched stats \[-i SECONDS\] \[-c COUNT\]' $cs --help
check help-exit-7 0 '7 coreschedd is not running' $cs --help

# clear without a daemon is direct mode: the kernel answers, not exit 7.
out=$($cs clear $$ 2>&1); rc=$?
if [ $rc = 7 ] || grep -q 'not running' <<<"$out"; then
	echo "FAIL: $T/clear-falls-back-to-direct: $rc $out"
else
	echo "PASS: $T/clear-falls-back-to-direct"
fi
