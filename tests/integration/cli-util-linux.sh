# util-linux 2.41's own coresched test cases (tests/ts/coresched), their
# command lines as written there, options before the function included:
# same exit status, same output on stdout and, with -v, on stderr. Like
# those cases, this shell gives itself a cookie first and the later cases
# compare against it.
. /tests/integration/lib.sh

# set-cookie-parent-pid: --verbose before the function, nothing on stdout
out=$(coresched --verbose new --dest $$ 2>/tmp/ul.err); rc=$?
err=$(cat /tmp/ul.err)
parent=$(cookie $$)
expect set-cookie-rc $rc 0
expect set-cookie-stdout "$out" ""
expect_set set-cookie-parent "$parent"
expect set-cookie-verbose "$err" "coresched: set cookie of PID $$ to $parent"
# the short spelling, and an option between the function's options
bg sleep 100; s=$!
out=$(coresched -v new -d $s 2>&1); rc=$?
expect short-verbose-before-rc $rc 0
expect short-verbose-before "$out" "coresched: set cookie of PID $s to $(cookie $s)"
expect_distinct short-verbose-before-fresh "$(cookie $s)" "$parent"
bg sleep 100; s2=$!
coresched -d $s2 new
expect dest-before-function "$( [ "$(cookie $s2)" != 0x0 ] && [ "$(cookie $s2)" != "$(cookie $s)" ] && echo fresh)" fresh
out=$(coresched -s $s copy -d $s2 -v 2>&1); rc=$?
expect copy-verbose-rc $rc 0
expect copy-verbose "$out" "coresched: copied cookie $(cookie $s) from PID $s to PID $s2"
expect copy-options-around-function "$(cookie $s2)" "$(cookie $s)"

# get-cookie-parent-pid
out=$(coresched get --source $$); rc=$?
expect get-source-rc $rc 0
expect get-source "$out" "cookie of pid $$ is $parent"

# get-cookie-own-pid: coresched inherited this shell's cookie
out=$(coresched get); rc=$?
expect get-own-rc $rc 0
expect get-own "$(printf '%s\n' "$out" | sed 's/^cookie of pid [0-9]* is /X /')" "X $parent"
expect get-own-pid "$(printf '%s\n' "$out" | sed -n 's/^cookie of pid \([0-9]*\) is .*/\1/p' | grep -c '^[0-9]')" 1

# new-child-with-new-cookie
out=$(coresched new -- coresched get); rc=$?
got=$(printf '%s\n' "$out" | sed 's/^.*\(0x.*$\)/\1/')
expect new-child-rc $rc 0
expect_distinct new-child-different-cookie "$got" "$parent"
out=$(coresched -v new -- coresched get 2>/tmp/ul.err)
child=$(printf '%s\n' "$out" | sed 's/^cookie of pid \([0-9]*\) is .*/\1/')
expect new-child-verbose "$(cat /tmp/ul.err)" \
	"coresched: set cookie of PID $child to $(printf '%s\n' "$out" | sed 's/^.*\(0x.*$\)/\1/')"
# util-linux runs what follows the function's options, "--" or not
got=$(coresched new coresched get | sed 's/^.*\(0x.*$\)/\1/')
expect_distinct new-child-without-dashes "$got" "$parent"

# copy-from-parent-to-nested-child (sh: the VM has no bash)
out=$(coresched new -- /bin/sh -c "coresched copy -s $$ -- coresched get"); rc=$?
expect copy-nested-rc $rc 0
expect copy-nested-same-cookie "$(printf '%s\n' "$out" | sed 's/^.*\(0x.*$\)/\1/')" "$parent"

# copy-from-child-to-parent
coresched new -- /bin/sh -c "coresched copy -s \$\$ -d $$"
expect copy-to-parent-rc $? 0
now=$(coresched get | sed 's/^.*\(0x.*$\)/\1/')
expect_distinct copy-to-parent-different-cookie "$now" "$parent"
expect copy-to-parent-is-mine "$now" "$(cookie $$)"

# several PIDs: get goes on past one that is gone, and ends with its status
# (coresched(1), EXIT STATUS)
out=$(coresched get 999999 $$ 2>/dev/null); rc=$?
expect get-past-missing-rc $rc 5
expect get-past-missing "$out" "cookie of pid $$ is $(cookie $$)"
