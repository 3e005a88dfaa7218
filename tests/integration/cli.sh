# The direct-mode CLI against a real kernel: every effect read back.
. /tests/integration/lib.sh

# new -- CMD: the child gets a fresh cookie; its threads and children share it.
bg coresched new -- cs-threads 2
p=$!
wait_for threads_ready $p 3
expect_set new-cmd-cookie "$(cookie $p)"
expect new-cmd-parent-untouched "$(cookie $$)" 0x0
expect new-cmd-threads-share "$(all_cookies $p | wc -l)" 1
bg coresched new -- sh -c 'sleep 100 & echo $! > /tmp/child; wait'
p=$!
wait_for test -s /tmp/child
expect new-cmd-children-share "$(cookie "$(cat /tmp/child)")" "$(cookie $p)"
expect_distinct new-cmd-fresh-each-time "$(cookie $p)" "$(cookie "$(echo "$cleanup_pids" | awk '{print $1}')")"

# new -t tgid -d PID tags every thread; -t pid one thread only.
bg cs-threads 3
p=$!
wait_for threads_ready $p 4
expect new-tgid-before "$(all_cookies $p)" 0x0
coresched new -t tgid -d $p
c=$(cookie $p)
expect new-tgid-all-threads "$(all_cookies $p)" "$c"
expect_set new-tgid-set "$c"
bg cs-threads 3
p=$!
wait_for threads_ready $p 4
one=$(tids $p | tail -n1)
coresched new -t pid -d "$one"
n_set=0
for t in $(tids $p); do [ "$(cookie $t)" != 0x0 ] && n_set=$((n_set + 1)); done
expect new-pid-one-thread "$n_set" 1
expect new-pid-that-thread "$( [ "$(cookie "$one")" != 0x0 ] && echo set)" set

# -t pgid: the whole process group.
bg setsid sh -c 'sleep 100 & sleep 100 & wait'
# the group whole: its leader and both sleeps
pgid_whole() {
	leader=$(ps -o pid,pgid,comm | awk '$3=="sh" && $1==$2 {print $1}' | tail -n1)
	[ -n "$leader" ] && [ "$(ps -o pgid,comm | awk -v g="$leader" '$1==g && $2=="sleep"' | wc -l)" -eq 2 ]
}
wait_for pgid_whole
members=$(ps -o pid,pgid | awk -v g="$leader" '$2==g {print $1}')
coresched new -t pgid -d "$leader"
distinct=$(for m in $members; do cookie $m; done | sort -u)
expect pgid-members "$(echo "$members" | wc -w)" 3
expect new-pgid-one-cookie "$(echo "$distinct" | wc -l)" 1
expect_set new-pgid-set "$distinct"

# copy -s A -d B, and copy -s A -- CMD.
bg coresched new -- sleep 100
a=$!
bg sleep 100
b=$!
wait_for tagged $a
expect_set copy-source "$(cookie $a)"
coresched copy -s $a -d $b
expect copy-dest "$(cookie $b)" "$(cookie $a)"
got=$(coresched copy -s $a -- coresched get | sed -n 's/^cookie of pid [0-9]* is //p')
expect copy-cmd "$got" "$(cookie $a)"

# clear returns a task to cookie 0, even when coresched itself has one.
coresched clear $b
expect clear "$(cookie $b)" 0x0
coresched copy -s $a -- coresched clear $a
expect clear-from-tagged "$(cookie $a)" 0x0

# exec failures: 127 not found, 126 not executable.
coresched new -- /no/such/program 2>/dev/null
expect exec-not-found $? 127
coresched new -- /etc/passwd 2>/dev/null
expect exec-not-executable $? 126
