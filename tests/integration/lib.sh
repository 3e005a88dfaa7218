# Shared by the integration tests (sourced; runs inside the test VM).
T=${T:-$(basename "$0" .sh)}
PATH=/usr/libexec/coresched-tests:/usr/sbin:/usr/bin:/sbin:/bin
export PATH

pass() { echo "PASS: vm/$T/$1"; }
fail() { echo "FAIL: vm/$T/$1: $2"; }
skip() { echo "SKIP: vm/$T/$1: $2"; }

# cookie PID|TID -> "0x..." as the kernel reports it (empty on error).
cookie() { coresched get "$1" 2>/dev/null | sed -n 's/^cookie of pid [0-9]* is //p'; }
# tagged PID: its cookie is not 0. For wait_for, which retries a command:
# wait_for [ "$(cookie P)" != 0x0 ] would test the one value read at the call.
tagged() { local c; c=$(cookie "$1"); [ -n "$c" ] && [ "$c" != 0x0 ]; }
# own_cookie PID OTHER : PID carries a cookie, set, that is not OTHER
own_cookie() { local c; c=$(cookie "$1"); [ -n "$c" ] && [ "$c" != 0x0 ] && [ "$c" != "$2" ]; }

# expect NAME ACTUAL EXPECTED
expect() {
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got '$2', expected '$3'"; fi
}
# expect_ne NAME A B : A and B differ and neither is empty or 0x0
expect_distinct() {
	if [ -n "$2" ] && [ -n "$3" ] && [ "$2" != "$3" ] && [ "$2" != 0x0 ] && [ "$3" != 0x0 ]; then
		pass "$1"
	else
		fail "$1" "cookies '$2' and '$3' should both be set and differ"
	fi
}

# expect_set NAME COOKIE : a cookie is set (not empty, not 0x0)
expect_set() {
	if [ -n "$2" ] && [ "$2" != 0x0 ]; then pass "$1"; else fail "$1" "cookie '$2' should be set"; fi
}

# wait_for CMD... : retry a condition for up to 10 s
wait_for() {
	i=0
	while [ $i -lt 100 ]; do
		"$@" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# tids PID -> thread ids of PID
tids() { ls "/proc/$1/task" 2>/dev/null; }

# threads_ready PID N : PID has N threads
threads_ready() { [ "$(tids "$1" | wc -l)" -eq "$2" ]; }

# kids PID -> the children of PID (from /proc: the VM has no pgrep -P)
kids() { cat /proc/[0-9]*/stat 2>/dev/null | sed -n "s/^\([0-9]*\) (.*) [A-Za-z] $1 .*/\1/p"; }

# kids_ready PID N : PID has at least N children
kids_ready() { [ "$(kids "$1" | wc -l)" -ge "$2" ]; }

# all_cookies PID -> the distinct cookies of PID's threads, one line each
all_cookies() { for t in $(tids "$1"); do cookie "$t"; done | sort -u; }

cleanup_pids=""
bg() { "$@" & cleanup_pids="$cleanup_pids $!"; }
cleanup() { for p in $cleanup_pids; do kill -9 "$p" 2>/dev/null; done; }
trap cleanup EXIT
