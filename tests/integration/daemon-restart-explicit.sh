# Explicit placements (assign, run --group) survive a crash of coreschedd:
# after a restart the placed processes and their children are back in
# their group with the cookie they carry, a new assign joins that cookie,
# and entries of processes that exited meanwhile are dropped.
. /tests/integration/lib.sh
. /tests/integration/daemon-lib.sh

STATE=/run/coresched/coreschedd.state
GO=/tmp/$T-go
KIDS=/tmp/$T-kids
rm -f "$STATE" "$GO" "$KIDS".*
worker pworker
cat > "$CFG/coreschedd.conf" <<EOF2
[Daemon]
ReconcileSec=2
[Group pinned]
MatchComm=pinnednomatch
AllowUsers=tester
[Group gone]
MatchComm=gonenomatch
EOF2

cookie_set() { c=$(cookie "$1"); [ -n "$c" ] && [ "$c" != 0x0 ]; }
exists() { [ -s "$1" ]; }
# state_has PID: the state file has a line for PID
state_has() { grep -q "^$1 " "$STATE" 2>/dev/null; }
state_lacks() { ! state_has "$1"; }
placed() { coresched ps -n -r -o GROUP,ORIGIN "$1" 2>/dev/null; }
field() { printf '%s\n' "$1" | sed -n "s/^$2: //p"; }

daemon_start || exit 1

# Placed by root, by run --group (with a child forked now and one forked
# on demand), by a user the group admits, and into a group about to go.
bg $BIN/pworker 1; a=$!
bg cs-runas 1000 1000 $BIN/pworker 1; ua=$!
bg sleep 100; gz=$!
# each running its program (cs-runas's child is root's until its exec)
wait_for grep -qx pworker /proc/$a/comm
wait_for grep -qx pworker /proc/$ua/comm
wait_for grep -qx sleep /proc/$gz/comm
coresched assign --group pinned $a || fail assign "coresched assign failed"
cs-runas 1000 1000 coresched assign --group pinned $ua || fail user-assign "coresched assign as tester failed"
coresched assign --group gone $gz || fail assign-gone "coresched assign failed"
bg coresched run --group pinned -- sh -c "sleep 100 & echo \$! > $KIDS.0
	while [ ! -e $GO ]; do sleep 0.1; done
	sleep 100 & echo \$! > $KIDS.1; wait"
r=$!
wait_for exists "$KIDS.0" || fail kid0 "the run --group child did not start"
k0=$(cat "$KIDS.0")
cleanup_pids="$cleanup_pids $k0"
pc=$(cookie $a)
expect_set placed "$pc"
expect user-placed "$(cookie $ua)" "$pc"
expect run-placed "$(cookie $r)" "$pc"
expect run-child "$(cookie $k0)" "$pc"
gc=$(cookie $gz)
expect_distinct gone-placed "$gc" "$pc"
wait_for state_has $r || fail state-written "no line for $r in $STATE: $(cat $STATE 2>&1)"
for p in $a $ua $gz; do state_has $p || fail state-written "no line for $p in $STATE: $(cat $STATE)"; done
# Children of a placement are recorded too, at the next tick (once a second
# at most): after a crash they come back as children, not by their program.
wait_for state_has $k0 && pass state-children || fail state-children "child $k0 is not recorded: $(cat $STATE)"

# Crash; the group "gone" disappears from the configuration meanwhile.
kill -9 $DPID; wait $DPID 2>/dev/null
sed -i '/^\[Group gone\]/,$d' "$CFG/coreschedd.conf"
daemon_start || exit 1

expect cookie-kept-assign "$(cookie $a)" "$pc"
expect cookie-kept-user "$(cookie $ua)" "$pc"
expect cookie-kept-run "$(cookie $r)" "$pc"
expect cookie-kept-child "$(cookie $k0)" "$pc"
expect cookie-kept-gone "$(cookie $gz)" "$gc"
expect ps-assign "$(placed $a)" "pinned assign"
expect ps-user "$(placed $ua)" "pinned assign"
expect ps-run "$(placed $r)" "pinned run"
expect ps-child "$(placed $k0)" "pinned inherited"
out=$(coresched explain $a)
expect explain-group "$(field "$out" group)" pinned
expect explain-origin "$(field "$out" origin)" assign
expect explain-agrees "$(field "$out" agrees)" yes
expect gone-left-alone "$(coresched ps -n -r -o ORIGIN $gz)" foreign
grep -q "group 'gone', which no longer exists" "$DLOG" && pass gone-reported ||
	fail gone-reported "$(tail -5 $DLOG)"
expect list-cookie "$(coresched list -n -r -o GROUP,COOKIE | awk '$1=="pinned"{print $2}')" "$pc"

# A newcomer joins the cookie the survivors carry; a new child inherits.
bg sleep 100; n=$!
coresched assign --group pinned $n
expect assign-joins-survivors "$(cookie $n)" "$pc"
touch "$GO"
wait_for exists "$KIDS.1" || fail kid1 "the run --group child was not forked"
k1=$(cat "$KIDS.1")
cleanup_pids="$cleanup_pids $k1"
expect fork-after-restart "$(cookie $k1)" "$pc"
expect fork-after-restart-origin "$(placed $k1)" "pinned inherited"
wait_for state_lacks $gz && pass state-drops-gone || fail state-drops-gone "$(cat $STATE)"
wait_for state_has $n || fail state-newcomer "no line for $n: $(cat $STATE)"

# A recorded process that exits while the daemon runs leaves the file.
kill -9 $a; wait $a 2>/dev/null
wait_for state_lacks $a && pass state-drops-exited || fail state-drops-exited "$(cat $STATE)"

# One that exits while the daemon is down is dropped at the restart.
kill -9 $DPID; wait $DPID 2>/dev/null
state_has $ua && pass state-before-restart || fail state-before-restart "$(cat $STATE)"
kill -9 $ua; wait $ua 2>/dev/null
daemon_start || exit 1
wait_for state_lacks $ua && pass state-drops-stale || fail state-drops-stale "$(cat $STATE)"
expect stale-restart-keeps-run "$(placed $r)" "pinned run"
expect stale-restart-cookie "$(cookie $r)" "$pc"
expect stale-restart-child "$(placed $k1)" "pinned inherited"

# A line for a process (PID and start time) an earlier line lists, an edit
# by hand, is skipped with a warning naming both lines: the earlier
# placement stands.
daemon_stop
first=$(grep -n "^$r " "$STATE" | cut -d: -f1)
if [ -n "$first" ]; then
	printf '%s %s assign gone -\n' "$r" "$(awk '{print $22}' /proc/$r/stat)" >> "$STATE"
	dup=$(wc -l < "$STATE")
	daemon_start || exit 1
	want="coreschedd.state:$dup: the process (PID and start time) that line $first already lists, ignoring this line"
	wait_for grep -qF "$want" "$DLOG" && pass state-repeated-pid-warns ||
		fail state-repeated-pid-warns "no '$want' in: $(tail -n 5 "$DLOG")"
	expect state-repeated-pid-first-stands "$(placed $r)" "pinned run"
	expect state-repeated-pid-cookie "$(cookie $r)" "$pc"
else
	fail state-repeated-pid-warns "no line for $r in $STATE: $(cat $STATE)"
fi
daemon_stop
