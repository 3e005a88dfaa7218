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
# A function without arguments (reload) ends its usage line with its name.
check help-reload-line 0 '^ coresched reload$' $cs --help
check reload-help 0 '^Usage: coresched reload$' $cs reload --help
check version 0 '^coresched [0-9]+\.[0-9]+' $cs -V
# Output that cannot be written fails, as util-linux's close_stdout()
check help-write-error 1 '^coresched: write error: No space left on device' sh -c "$cs --help >/dev/full"
check version-write-error 1 'write error' sh -c "$cs get -V >/dev/full"
check usage-write-error 1 'write error' sh -c "$cs new -h >/dev/full"
check table-write-error 1 'write error' sh -c "$cs list --help >/dev/full"
check bad-option 1 "Try 'coresched --help'" $cs new -x
check bad-long-option 1 "unrecognized option '--bogus'" $cs get --bogus
check unknown-function 1 "unknown function 'frob'" $cs frob
check new-needs-target 1 'either -d PID or -- COMMAND' $cs new
check new-not-both 1 'either -d PID or -- COMMAND' $cs new -d 1 -- true
check new-no-source 1 'new does not take -s' $cs new -s 1 -d 2
check bad-pid 1 "invalid PID argument: 'abc'" $cs get -s abc
check negative-pid 1 "invalid PID argument: '-5'" $cs new -d -5
# PID 0 is coresched itself to the kernel (its process group with -t
# pgid): util-linux refuses it rather than succeed at changing nothing.
check zero-dest 1 "invalid PID argument: '0'" $cs new -d 0
check zero-dest-pgid 1 "invalid PID argument: '0'" $cs new -t pgid -d 0
check zero-copy-dest 1 "invalid PID argument: '0'" $cs copy -d 0
check zero-source 1 "invalid PID argument: '0'" $cs copy -s 0 -d 1
check zero-get 1 "invalid PID argument: '0'" $cs get 0
check zero-pre-source 1 "invalid PID argument: '00'" $cs -s 00
check bad-type 1 "unsupported dest-type 'thread'" $cs new -t thread -d 1
check empty-command 1 "no command after '--'" $cs new --
check copy-needs-target 1 'either -d PID or -- COMMAND' $cs copy -s 1
check clear-needs-pids 1 'clear needs PIDs' $cs clear
check run-needs-command 1 'run needs -- COMMAND' $cs run
# --new is run's alone: copy --new would read as a fresh cookie it is not
check copy-no-new 1 'copy does not take --new' $cs copy --new -d 1
check new-no-new 1 'new does not take --new' $cs new --new -- true
check get-no-new 1 'get does not take --new' $cs --new
# run names what it refuses, not the COMMAND it was given
check run-no-dest 1 'run does not take -s or -d' $cs run -d 1 true
check run-no-source 1 'run does not take -s or -d' $cs run -s 1 -- true
# clear names the PID it was asked about, whatever the kernel lacks
$cs get >/dev/null 2>&1; own=$?
case $own in 3 | 4) want=$own ;; *) want=5 ;; esac
check clear-names-pid $want 'cannot clear the cookie of PID 999999: ' $cs clear 999999
# the last -s counts, as in util-linux (the copy then fails as the kernel says)
out=$($cs copy -s 1 -s 999999 -d 1 2>&1)
rc=$?
[ $own = 0 ] && want=5 || want=$own
result copy-last-source-counts $want 'the cookie of PID 999999' $rc "$out"
# so in get, and its usage says one -s
out=$($cs get -s 999999 -s 1 2>&1)
rc=$?
[ $own = 0 ] && want=0 || want=$own
result get-last-source-counts $want 'the cookie of PID 1\b|cookie of pid 1 is' $rc "$out" \
	"$(grep 999999 <<<"$out")"
check get-usage-one-source 0 '^Usage: coresched get \[-s PID\] \[PID\.\.\.\]$' $cs get -h
# --u is ps' --user before ps, stats' --untagged before stats
check abbreviated-user-before-ps 1 "unknown user 'nosuchuser'" $cs --u nosuchuser ps

# Options before the function, as util-linux's coresched (getopt permutes
# its arguments): the function is found behind them, and its own checks
# then judge all the options.
check pre-verbose-new 1 'new needs either -d PID or -- COMMAND' $cs -v new
check pre-long-verbose-new 1 'new needs either -d PID or -- COMMAND' $cs --verbose new
check pre-dest-and-command 1 'either -d PID or -- COMMAND' $cs -d 1 new -- true
check pre-attached-dest 1 'either -d PID or -- COMMAND' $cs --dest=1 new -- true
check pre-cluster-dest 1 'either -d PID or -- COMMAND' $cs -vd 1 new -- true
check pre-source-new 1 'new does not take -s' $cs -s 1 new -d 2
check pre-dest-get 1 'get takes -s PID or PIDs only' $cs -d 1 get
# no function is get, and its messages say so (not the program's path)
check implied-get-group 1 '^coresched: get does not take --group' $cs -g web
check implied-get-pids-group 1 '^coresched: get does not take --group' $cs -s 1 -g web 2
check pre-bad-type 1 "unsupported dest-type 'thread'" $cs -t thread new -d 1
check pre-long-type-copy 1 'copy needs either -d PID or -- COMMAND' $cs --dest-type pid -v copy
check pre-bad-option 1 "invalid option -- 'x'" $cs -x new
check missing-argument 1 "option requires an argument -- 'd'" $cs new -d
check missing-argument-long 1 "option '--dest' requires an argument" $cs new --dest
check missing-argument-source 1 "option requires an argument -- 's'" $cs get -s
check pre-bad-pid 1 "invalid PID argument: 'abc'" $cs -d abc new
check pre-unknown-function 1 "unknown function 'frob'" $cs -v frob
check pre-help-function 0 '^Usage: coresched new ' $cs -h new
check pre-help 0 'coresched copy \[-s PID\]' $cs -v --help
check pre-version 0 '^coresched [0-9]+\.[0-9]+' $cs -v -V
check pre-table-option 7 'coreschedd is not running' env CORESCHED_SOCKET=/nonexistent $cs -n -o GROUP list
check pre-value-named-like-function 7 'coreschedd is not running' \
	env CORESCHED_SOCKET=/nonexistent $cs -g new ps
check new-help 0 '^Usage: coresched new ' $cs new --help
# -u is stats' --untagged (no value) and ps' --user (a value); long
# options may be abbreviated, as getopt allows; "--" may come before the
# function, as there.
check pre-untagged-stats 7 'coreschedd is not running' env CORESCHED_SOCKET=/nonexistent $cs -u stats
check pre-user-ps 7 'coreschedd is not running' env CORESCHED_SOCKET=/nonexistent $cs -u root ps
check pre-abbreviated-source 1 'new does not take -s' $cs --sou 1 new -d 2
check pre-dashes-function 1 "no command after '--'" $cs -v -- new
# The command's own options are the command's, -g among them.
check run-command-own-g 1 'empty group name' $cs run -g '' true -gweb
check run-command-own-group 1 'empty group name' $cs run --group= true --group web
check run-word-command-needs-daemon 7 'coreschedd is not running' \
	env CORESCHED_SOCKET=/nonexistent $cs run -g web true

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
	# util-linux's test cases, as written there: each gets past parsing to
	# the kernel, with the PIDs it names. Its suite skips on a kernel like
	# this one when a bare coresched names CONFIG_SCHED_CORE.
	check ul-bare-names-config 3 'CONFIG_SCHED_CORE' $cs
	check ul-verbose-new-dest 3 "cannot create a cookie for PID $$: .*CONFIG_SCHED_CORE" \
		$cs --verbose new --dest $$
	check ul-short-verbose-new-dest 3 "cannot create a cookie for PID $$: " $cs -v new -d $$
	check ul-dest-before-new 3 "cannot create a cookie for PID $$: " $cs -d $$ new
	check ul-get-source 3 "cannot get the cookie of PID $$: " $cs get --source $$
	check ul-get-own 3 'cannot get the cookie of PID [0-9]+: ' $cs get
	check ul-new-command 3 'cannot create a cookie for PID [0-9]+: ' $cs new -- $cs get
	check ul-new-command-no-dashes 3 'cannot create a cookie for PID [0-9]+: ' $cs new $cs get
	check ul-copy-nested 3 'cannot create a cookie for PID [0-9]+: ' \
		$cs new -- /bin/bash -c "$cs copy -s $$ -- $cs get"
	check ul-copy-source-command 3 "cannot copy the cookie of PID $$: " $cs copy -s $$ -- $cs get
	check ul-copy-to-parent 3 "cannot copy the cookie of PID 1: " $cs copy -s 1 -d $$
	check ul-dashes-get 3 'cannot get the cookie of PID [0-9]+: ' $cs -- get
	check ul-get-dashes-pid 3 'cannot get the cookie of PID 1: ' $cs get -- 1
	;;
ENODEV)
	echo "SKIP: $T/no-sched-core-get: this host has CONFIG_SCHED_CORE (SMT off); the VM suite covers ENODEV"
	;;
*)
	echo "SKIP: $T/no-sched-core-get: this host supports core scheduling ($kernel); the VM suite covers the errors"
	;;
esac
