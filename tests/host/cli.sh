# The CLI on the host: argument parsing, error messages and exit codes.
# The host kernel may lack core scheduling; the VM suite tests the effects.
cd "$(dirname "$0")/../.." || exit 1
cs=build/coresched
T=host/cli

. tests/host/lib.bash

check() { # NAME EXPECTED_RC PATTERN COMMAND...
	local name=$1 want=$2 pat=$3 out rc
	shift 3
	out=$("$@" 2>&1)
	rc=$?
	result "$name" "$want" "$pat" "$rc" "$out"
}

check help 0 '^Usage:' $cs --help
check help-lists-functions 0 'coresched copy \[-s PID\]' $cs --help
check version 0 '^coresched [0-9]+\.[0-9]+' $cs -V
check bad-option 1 "Try 'coresched --help'" $cs new -x
check bad-long-option 1 "unrecognized option '--bogus'" $cs get --bogus
check unknown-function 1 "unknown function 'frob'" $cs frob
check new-needs-target 1 'either -d PID or -- COMMAND' $cs new
check new-not-both 1 'either -d PID or -- COMMAND' $cs new -d 1 -- true
check new-no-source 1 'new does not take -s' $cs new -s 1 -d 2
check bad-pid 1 "invalid PID argument: 'abc'" $cs get -s abc
check negative-pid 1 "invalid PID argument: '-5'" $cs new -d -5
check bad-type 1 "unsupported dest-type 'thread'" $cs new -t thread -d 1
check empty-command 1 "no command after '--'" $cs new --
check copy-needs-target 1 'either -d PID or -- COMMAND' $cs copy -s 1
check clear-needs-pids 1 'clear needs PIDs' $cs clear
check run-needs-command 1 'run needs -- COMMAND' $cs run

# What the running kernel says decides the expected error.
kernel=$(python3 -c '
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
c = ctypes.c_ulonglong(0)
r = libc.prctl(62, 0, 0, 0, ctypes.byref(c))
print("ok" if r == 0 else os.strerror(ctypes.get_errno()) and {22: "EINVAL", 19: "ENODEV"}.get(ctypes.get_errno(), "other"))
' 2>/dev/null)
case $kernel in
EINVAL)
	check no-sched-core-get 3 'kernel lacks CONFIG_SCHED_CORE' $cs get
	check no-sched-core-new 3 'kernel lacks CONFIG_SCHED_CORE' $cs new -- true
	check no-sched-core-copy 3 'kernel lacks CONFIG_SCHED_CORE' $cs copy -s $$ -d $$
	;;
ENODEV)
	echo "SKIP: $T/no-sched-core-get: this host has CONFIG_SCHED_CORE (SMT off); the VM suite covers ENODEV"
	;;
*)
	echo "SKIP: $T/no-sched-core-get: this host supports core scheduling ($kernel); the VM suite covers the errors"
	;;
esac
