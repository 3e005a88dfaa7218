# An unprivileged user's placement (run -g, assign) binds a process only
# while the user may act on it as the kernel would let them: once the
# process runs a setuid program (root's, or another user's), the daemon
# enforces nothing of that placement. The cookie it carries stays; what
# root, or its new owner, gives it is not put back; its new owner may
# place it. A placement the user still may act on is repaired as before.
# Cookies read from the kernel (coresched get).
. /tests/integration/lib.sh
. /tests/integration/daemon-lib.sh
H=/usr/libexec/coresched-tests
cat > "$CFG/coreschedd.conf" <<EOF2
[Daemon]
ReconcileSec=2
[Group open]
AllowUsers=tester 1001
[Group bobs]
AllowUsers=1001
[Group mixed]
AllowUsers=tester
EOF2
daemon_start || exit 1
cp $H/cs-runas /tmp/suid-runas && chown 0:0 /tmp/suid-runas && chmod 4755 /tmp/suid-runas
cp $H/cs-hold /tmp/cs-hold2
runs() { [ "$(readlink /proc/$1/exe)" = "$2" ]; }
# settled: three reconcile periods, for a put-back to show
settled() { sleep 6.5; }

# tester's command turns root and makes itself a cookie of its own
rm -f /tmp/go1
bg cs-runas 1000 1000 coresched run -g open -- /bin/sh -c \
	'while [ ! -e /tmp/go1 ]; do sleep 0.1; done; exec /tmp/suid-runas 0 0 /usr/bin/coresched new -- /tmp/cs-hold2 100'
p1=$!
wait_for tagged $p1
g=$(cookie $p1)
touch /tmp/go1
wait_for runs $p1 /tmp/cs-hold2
c1=$(cookie $p1)
settled
expect_set root-made-own "$(case $c1 in 0x0|"$g") ;; *) echo "$c1" ;; esac)"
expect root-own-cookie-kept "$(cookie $p1)" "$c1"
c2=$(coresched new -v -d "$p1" 2>&1 | sed -n 's/^coresched: set cookie of PID [0-9]* to //p')
settled
expect root-new-kept "$(cookie $p1)" "$c2"

# tester's command runs a program setuid to another user (1001)
bg cs-runas 1000 1000 coresched run -g open -- /tmp/suid-runas 1001 1001 $H/cs-hold 100; p2=$!
wait_for runs $p2 $H/cs-hold
wait_for tagged $p2
g2=$(cookie $p2)
c3=$(cs-runas 1001 1001 coresched new -v -d "$p2" 2>&1 | sed -n 's/^coresched: set cookie of PID [0-9]* to //p')
settled
expect_distinct other-user-new-not-group "$c3" "$g2"
expect other-user-new-kept "$(cookie $p2)" "$c3"
out=$(cs-runas 1001 1001 coresched assign -g bobs "$p2" 2>&1); rc=$?
[ $rc = 0 ] || echo "# $out"
expect other-user-may-place "$rc" 0
c4=$(cookie $p2)
expect_distinct other-user-placed "$c4" "$c3"

# control: tester's own placed process stays tester's: repaired as before
bg cs-runas 1000 1000 coresched run -g open -- $H/cs-hold 100; p3=$!
# once it runs the command: the exec that follows its placement is judged
# too, and puts back a change made before it
wait_for runs $p3 $H/cs-hold
wait_for tagged $p3
g3=$(cookie $p3)
# the cookie the kernel gave, read back by new -v at once (a reconcile
# may put the group's back before a separate read)
out=$(coresched new -v -d "$p3" 2>&1) || echo "# new -d: $out"
expect_distinct still-own-moved "$(printf '%s\n' "$out" | sed -n 's/^coresched: set cookie of PID [0-9]* to //p')" "$g3"
settles $p3 "$g3" # put back by a reconcile, however slow
expect still-own-repaired "$(cookie $p3)" "$g3"

# tester's only placement in a group turns root; root's placement r6 keeps
# the group's key alive. After a restart the state file still says tester
# placed into that key: the new daemon does not take p6 in under root's
# word, and the cookie root gives it stands
rm -f /tmp/go6
bg cs-runas 1000 1000 coresched run -g mixed -- /bin/sh -c \
	'while [ ! -e /tmp/go6 ]; do sleep 0.1; done; exec /tmp/suid-runas 0 0 /tmp/cs-hold2 100'
p6=$!
wait_for tagged $p6
g6=$(cookie $p6)
bg $H/cs-hold 100; r6=$!
out=$(coresched assign -g mixed "$r6" 2>&1) || echo "# assign: $out"
expect root-placed-shares "$(cookie $r6)" "$g6"
touch /tmp/go6
wait_for runs $p6 /tmp/cs-hold2
settled
expect mixed-outgrown-keeps-cookie "$(cookie $p6)" "$g6"
daemon_stop
daemon_start || exit 1
out=$(coresched new -v -d "$p6" 2>&1) || echo "# new -d: $out"
c6=$(printf '%s\n' "$out" | sed -n 's/^coresched: set cookie of PID [0-9]* to //p')
expect_distinct mixed-restart-root-new "$c6" "$g6"
settled
expect mixed-restart-root-new-kept "$(cookie $p6)" "$c6"
expect mixed-restart-root-placed-kept "$(cookie $r6)" "$g6"

# a restart: tester's command turned root keeping the group's cookie, the
# one tester's placed p3 carries, which the state file restores; the new
# daemon does not take it back into the group as p3's kin
rm -f /tmp/go5
bg cs-runas 1000 1000 coresched run -g open -- /bin/sh -c \
	'while [ ! -e /tmp/go5 ]; do sleep 0.1; done; exec /tmp/suid-runas 0 0 /tmp/cs-hold2 100'
p5=$!
wait_for tagged $p5
g5=$(cookie $p5)
touch /tmp/go5
wait_for runs $p5 /tmp/cs-hold2
settled
expect outgrown-keeps-cookie "$(cookie $p5)" "$g5"
expect outgrown-shares-placed "$(cookie $p3)" "$g5"
daemon_stop
daemon_start || exit 1
out=$(coresched new -v -d "$p5" 2>&1) || echo "# new -d: $out"
c5=$(printf '%s\n' "$out" | sed -n 's/^coresched: set cookie of PID [0-9]* to //p')
expect_distinct restart-root-new "$c5" "$g5"
settled
expect restart-root-new-kept "$(cookie $p5)" "$c5"
expect restart-placed-kept "$(cookie $p3)" "$g3"
daemon_stop
