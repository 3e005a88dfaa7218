# Lock= in a group: what `coresched run -g` starts in a Lock=yes group may
# not change its cookie (EPERM from the kernel's prctl, under the same
# seccomp filter as `run --lock`), may still read it, and keeps the
# group's cookie, read back from outside; an unlocked group's member may
# change it. The lock holds a member the user may no longer act on only
# under no_new_privs (what run -g gives it): one that made itself
# undumpable stays; one the user assigned (without it) that ran a setuid
# program is the user's placement no more, and root's cookie for it stays.
# check-config warns where a Lock= cannot be kept.
. /tests/integration/lib.sh
. /tests/integration/daemon-lib.sh

cat > "$CFG/coreschedd.conf" <<EOF2
[Daemon]
ReconcileSec=2
[Group locked]
Lock=yes
AllowUsers=1000
[Group open]
AllowUsers=1000
[Group ruled]
MatchComm=ruled-x
Lock=yes
EOF2
daemon_start || exit 1

# expect_rc NAME WANT CMD...: CMD exits with WANT
expect_rc() {
	name=$1 want=$2
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" = "$want" ]; then pass "$name"; else fail "$name" "exit $rc, expected $want: $out"; fi
}

# The control first: the unlocked group's member may take a new cookie.
expect_rc open-may-change 0 coresched run -g open -- sh -c 'coresched new -d $$'
# Exit 6: the kernel's EPERM, as coresched reports "not permitted".
expect_rc locked-refuses-new 6 coresched run -g locked -- sh -c 'coresched new -d $$'
expect_rc locked-refuses-copy 6 coresched run -g locked -- sh -c 'coresched copy -s 1 -d $$'
# ... and says the lock may be why
out=$(coresched run -g locked -- sh -c 'coresched new -d $$' 2>&1)
case $out in *"seccomp filter that forbids it: coresched run --lock, Lock=yes"*) pass locked-says-why ;;
*) fail locked-says-why "$out" ;; esac
expect_rc locked-refuses-user 6 cs-runas 1000 1000 coresched run -g locked -- sh -c 'coresched new -d $$'
# ... because of the lock: the same user joins and may read its cookie.
expect_rc user-may-join 0 cs-runas 1000 1000 coresched run -g locked -- sh -c 'coresched get $$'
# Nor does the daemon move it for the user: not at its own request, not by
# assign.
expect_rc locked-no-move-by-run 6 cs-runas 1000 1000 coresched run -g locked -- coresched run -g open -- true
bg cs-runas 1000 1000 coresched run -g locked -- sleep 60
u=$!
wait_for grep -qx sleep /proc/$u/comm
expect_rc locked-no-move-by-assign 6 cs-runas 1000 1000 coresched assign --group open $u
expect_rc locked-root-may-move 0 coresched assign --group open $u
out=$(coresched run -g locked -- sh -c 'coresched get $$' 2>&1); rc=$?
case "$rc $out" in
"0 cookie of pid "*" is 0x"*) [ "${out##* }" != 0x0 ] && pass locked-may-read || fail locked-may-read "$out" ;;
*) fail locked-may-read "exit $rc: $out" ;;
esac

# The member's own attempt fails and changes nothing, by the kernel's word.
bg coresched run -g locked -- sh -c 'sleep 1; coresched new -d $$ 2>/dev/null; echo $? > /tmp/rc-'"$T"'; exec sleep 60'
m=$!
wait_for grep -qx sleep /proc/$m/comm
sleep 1.5
wait_for test -s /tmp/rc-$T
expect locked-attempt-refused "$(cat /tmp/rc-$T 2>/dev/null)" 6
gc=$(coresched list -n -r -o GROUP,COOKIE 2>/dev/null | awk '$1 == "locked" { print $2 }')
expect_set locked-group-cookie "$gc"
expect locked-keeps-group-cookie "$(cookie $m)" "$gc"
expect locked-filtered "$(sed -n 's/^Seccomp:[[:space:]]*//p' /proc/$m/status)" 2

# Outgrown under the lock. Undumpable: an unreadable program's exec makes
# the process so (its status then root's); under run -g's no_new_privs
# the placement holds, and a cookie root gives it is put back.
H=/usr/libexec/coresched-tests
runs() { [ "$(readlink /proc/$1/exe)" = "$2" ]; }
settled() { sleep 6.5; }
cp $H/cs-hold /tmp/noread-hold && chmod 0711 /tmp/noread-hold
bg cs-runas 1000 1000 coresched run -g locked -- /tmp/noread-hold 100
n=$!
wait_for runs $n /tmp/noread-hold
wait_for tagged $n
expect locked-undumpable-nnp "$(sed -n 's/^NoNewPrivs:[[:space:]]*//p' /proc/$n/status)" 1
expect locked-undumpable-is "$(stat -c %u /proc/$n/status)" 0
# the cookie the kernel gave, read back by new -v at once (a reconcile
# may put the group's back before a separate read)
out=$(coresched new -v -d $n 2>&1) || echo "# new -d: $out"
expect_distinct locked-undumpable-moved "$(printf '%s\n' "$out" | sed -n 's/^coresched: set cookie of PID [0-9]* to //p')" "$gc"
settles $n "$gc" # put back by a reconcile, however slow
expect locked-undumpable-held "$(cookie $n)" "$gc"
# Assigned by the user (no filter, no no_new_privs), it runs a program
# setuid to root: the lock does not keep root's process for the user.
cp $H/cs-runas /tmp/suid-runas && chown 0:0 /tmp/suid-runas && chmod 4755 /tmp/suid-runas
rm -f /tmp/go-$T
bg cs-runas 1000 1000 sh -c 'while [ ! -e /tmp/go-'"$T"' ]; do sleep 0.1; done; exec /tmp/suid-runas 0 0 '"$H"'/cs-hold 100'
a=$!
wait_for grep -qx sh /proc/$a/comm
expect_rc assigned-by-user 0 cs-runas 1000 1000 coresched assign --group locked $a
wait_for tagged $a
expect assigned-has-group-cookie "$(cookie $a)" "$gc"
touch /tmp/go-$T
wait_for runs $a $H/cs-hold
expect assigned-runs-as-root "$(stat -c %u /proc/$a/status)" 0
c=$(coresched new -v -d "$a" 2>&1 | sed -n 's/^coresched: set cookie of PID [0-9]* to //p')
settled
expect_distinct assigned-root-new "$c" "$gc"
expect assigned-root-new-kept "$(cookie $a)" "$c"

# Where nothing can lock, check-config says so and still passes.
out=$(coresched check-config 2>&1); rc=$?
case "$rc $out" in
*"warning: $CFG/coreschedd.conf:10: [Group ruled] Lock=yes locks only what 'coresched run -g ruled' starts"*) [ $rc = 0 ] && pass check-config-warns || fail check-config-warns "exit $rc" ;;
*) fail check-config-warns "exit $rc: $out" ;;
esac

daemon_stop
cleanup
