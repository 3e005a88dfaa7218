# The coresched commands that talk to coreschedd: what they print matches
# the cookies read back from the kernel, permissions hold for an
# unprivileged user, and hostile clients do not stall the daemon.
. /tests/integration/lib.sh
. /tests/integration/daemon-lib.sh

for w in builder uworker; do worker $w; done
cat > "$CFG/coreschedd.conf" <<EOF2
[Daemon]
ReconcileSec=2
StatsIntervalSec=1
[Group build]
MatchComm=builder
[Group users]
MatchExe=$BIN/uworker
Per=user
[Group open]
MatchComm=opennomatch
AllowUsers=tester
[Group closed]
MatchComm=closednomatch
EOF2
daemon_start || exit 1

bg $BIN/builder 1; b1=$!
bg cs-runas 1000 1000 $BIN/uworker 1; u1=$!
bg sleep 100; plain=$!
wait_for tagged $b1
wait_for tagged $u1
bc=$(cookie $b1)
uc=$(cookie $u1)
expect_set setup-build "$bc"
expect_set setup-users "$uc"

# has NAME TEXT PATTERN: TEXT has a line matching the grep -E PATTERN
has() {
	if printf '%s\n' "$2" | grep -qE -- "$3"; then pass "$1"; else fail "$1" "no /$3/ in: $2"; fi
}
field() { printf '%s\n' "$1" | sed -n "s/^$2: //p"; }

# ---- status ----
out=$(coresched status); rc=$?
expect status-rc $rc 0
has status-running "$out" '^coreschedd: running$'
expect status-pid "$(field "$out" pid)" "$DPID"
expect status-core-scheduling "$(field "$out" 'core scheduling')" yes
expect status-smt "$(field "$out" SMT)" yes
expect status-groups "$(field "$out" groups)" 4
n=$(field "$out" 'tracked processes')
if [ "${n:-0}" -ge 3 ]; then pass status-tracked; else fail status-tracked "tracked processes '$n'"; fi
n=$(field "$out" keys)
if [ "${n:-0}" -ge 2 ]; then pass status-keys; else fail status-keys "keys '$n'"; fi
has status-sources "$out" "^  $CFG/coreschedd.conf\$"
has status-counters "$out" '^  events: [0-9]+$'
has status-schedstats "$out" '^schedstats: (yes|no)$'
js=$(coresched status -J)
expect status-json-pid "$(printf '%s' "$js" | cs-json pid)" "$DPID"
expect status-json-groups "$(printf '%s' "$js" | cs-json groups)" 4
n=$(printf '%s' "$js" | cs-json counters.errors)
if [ "$n" = 0 ]; then pass status-json-counters
else fail status-json-counters "errors $n; the daemon's warnings: $(grep -iE 'fail|warn|expected' "$DLOG" | tail -n 5 | tr '\n' '|')"; fi

# ---- list ----
out=$(coresched list); rc=$?
expect list-rc $rc 0
has list-header "$out" '^GROUP +KEY +TASKS +COOKIE +PER +TRUSTED +SOURCE'
raw=$(coresched list -n -r -o GROUP,COOKIE)
expect list-build-cookie "$(printf '%s\n' "$raw" | awk '$1=="build"{print $2}')" "$bc"
raw=$(coresched list -n -r -o GROUP,KEY,COOKIE,PER)
expect list-users-key "$(printf '%s\n' "$raw" | awk '$1=="users" && $2=="1000"{print $3, $4}')" "$uc user"
has list-unused-groups "$raw" '^closed'
js=$(coresched list -J -o GROUP,COOKIE,TASKS)
expect list-json-group "$(printf '%s' "$js" | cs-json groups.0.group)" build
expect list-json-cookie "$(printf '%s' "$js" | cs-json groups.0.cookie)" "$bc"
t=$(printf '%s' "$js" | cs-json groups.0.tasks)
if [ "${t:-0}" -ge 1 ]; then pass list-json-tasks; else fail list-json-tasks "tasks '$t'"; fi

# ---- ps ----
expect ps-build "$(coresched ps -n -r -o PID,GROUP,COOKIE,ORIGIN $b1)" "$b1 build $bc rule"
expect ps-users "$(coresched ps -n -r -o PID,USER,GROUP,KEY,COOKIE $u1)" "$u1 tester users 1000 $uc"
has ps-default-header "$(coresched ps $b1)" '^ *PID +USER +COMM +GROUP +KEY +COOKIE +ORIGIN$'
expect ps-exe "$(coresched ps -n -r -o EXE $b1)" "$BIN/builder"
expect ps-by-user "$(coresched ps -n -r -u tester -o USER | sort -u)" tester
expect ps-by-uid "$(coresched ps -n -r -u 1000 -o UID | sort -u)" 1000
has ps-by-group "$(coresched ps -n -r -g build -o PID)" "^$b1\$"
expect ps-by-group-only "$(coresched ps -n -r -g build -o GROUP | sort -u)" build
js=$(coresched ps -J $b1)
expect ps-json-pid "$(printf '%s' "$js" | cs-json processes.0.pid)" "$b1"
expect ps-json-cookie "$(printf '%s' "$js" | cs-json processes.0.cookie)" "$bc"
expect ps-json-count "$(printf '%s' "$js" | cs-json processes.#)" 1

# ---- explain ----
out=$(coresched explain $b1); rc=$?
expect explain-rc $rc 0
expect explain-choice "$(field "$out" 'rules choose')" build
expect explain-group "$(field "$out" group)" build
expect explain-origin "$(field "$out" origin)" rule
expect explain-cookie "$(field "$out" 'cookie now')" "$bc"
expect explain-expected "$(field "$out" 'expected cookie')" "$bc"
expect explain-agrees "$(field "$out" agrees)" yes
has explain-rule-line "$out" '^  yes build \(.*coreschedd.conf:[0-9]+\): '
out=$(coresched explain $plain)
expect explain-unmatched-choice "$(field "$out" 'rules choose')" '(none)'
expect explain-unmatched-cookie "$(field "$out" 'cookie now')" 0x0
has explain-unmatched-no "$out" '^  no +build \('
js=$(coresched explain -J $b1)
expect explain-json-group "$(printf '%s' "$js" | cs-json rule_group)" build
expect explain-json-matched "$(printf '%s' "$js" | cs-json rules.0.matched)" true
coresched explain 99999 2>/dev/null
expect explain-no-such-process-rc $? 5

# ---- assign, run --group, clear ----
bg sleep 100; s2=$!
coresched assign --group build $s2
expect assign-rc $? 0
expect assign-cookie "$(cookie $s2)" "$bc"
expect assign-origin "$(coresched ps -n -r -o ORIGIN $s2)" assign
msg=$(coresched assign -g nosuch $s2 2>&1)
expect assign-no-group-rc $? 1
expect assign-no-group-message "$msg" "coresched: no such group 'nosuch'"
coresched assign -g build 99999 2>/dev/null
expect assign-no-process-rc $? 5
got=$(coresched run --group build -- coresched get | sed -n 's/^cookie of pid [0-9]* is //p')
expect run-group-before-exec "$got" "$bc"
coresched run -g nosuch -- true 2>/dev/null
expect run-group-no-group-rc $? 1
coresched clear $s2
expect clear-rc $? 0
expect clear-cookie "$(cookie $s2)" 0x0
expect clear-origin "$(coresched ps -n -r -o ORIGIN $s2)" none
sleep 3 # past ReconcileSec: a direct clear would be undone as drift
expect clear-stays "$(cookie $s2)" 0x0

# ---- reload and check-config ----
cat >> "$CFG/coreschedd.conf" <<EOF2
[Group extra]
MatchComm=extranomatch
EOF2
coresched reload
expect reload-rc $? 0
expect reload-applied "$(field "$(coresched status)" groups)" 5
coresched check-config >/tmp/cc.out 2>&1
expect check-config-good-rc $? 0
expect check-config-good "$(cat /tmp/cc.out)" ok
printf '[Group bad]\nMatchExe=/x\nBogusKey=1\n' > "$CFG/rules.d/10-bad.conf"
err=$(coresched reload 2>&1 >/dev/null)
expect reload-broken-rc $? 1
has reload-broken-file-line "$err" '10-bad.conf:3: '
expect reload-broken-keeps-groups "$(field "$(coresched status)" groups)" 5
bg $BIN/builder 1; b2=$!
settles $b2 "$bc"
expect reload-broken-keeps-policy "$(cookie $b2)" "$bc"
err=$(coresched check-config 2>&1 >/dev/null)
expect check-config-bad-rc $? 1
has check-config-bad-file-line "$err" '10-bad.conf:3: '
rm "$CFG/rules.d/10-bad.conf"
mkdir -p /tmp/cc-good /tmp/cc-bad
printf '[Group g]\nMatchComm=x\n' > /tmp/cc-good/coreschedd.conf
printf '[Group g]\nMatchComm=x\nNope=1\n' > /tmp/cc-bad/coreschedd.conf
expect check-config-dir-good "$(coresched check-config /tmp/cc-good 2>&1)" ok
err=$(coresched check-config /tmp/cc-bad 2>&1)
expect check-config-dir-bad-rc $? 1
has check-config-dir-bad-line "$err" 'cc-bad/coreschedd.conf:3: '

# ---- stats ----
out=$(coresched stats 2>&1); rc=$?
if [ $rc = 1 ] && printf '%s' "$out" | grep -q 'not supported'; then
	skip stats "forced-idle accounting is off here: $out"
else
	expect stats-rc $rc 0
	has stats-header "$out" '^GROUP +KEY +TASKS +FORCED-IDLE +CPU +RATIO$'
	has stats-build-row "$out" '^build +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$'
	out=$(coresched stats -c 2 -i 0.3 -n -r -o GROUP,METRIC,N)
	has stats-count-forced-idle "$out" '^build forced-idle 2$'
	has stats-count-ratio "$out" '^build ratio 2$'
	js=$(coresched stats -c 1 -i 0.2 -J)
	expect stats-count-json "$(printf '%s' "$js" | cs-json stats.0.n)" 1
	# Zeros that mean "not counted" are said to be so.
	has stats-schedstats-on-quiet "$(coresched stats 2>&1 >/dev/null)" '^$'
	old=$(cat /proc/sys/kernel/sched_schedstats)
	echo 0 > /proc/sys/kernel/sched_schedstats
	has stats-schedstats-off-warns "$(coresched stats 2>&1 >/dev/null)" 'kernel.sched_schedstats is off'
	expect stats-schedstats-off-status "$(coresched status -J | cs-json stats.schedstats)" false
	echo "$old" > /proc/sys/kernel/sched_schedstats
fi

# ---- an unprivileged user ----
asuser() { cs-runas 1000 1000 coresched "$@"; }
asuser status >/dev/null
expect user-status-rc $? 0
has user-list "$(asuser list -n -r -o GROUP)" '^build$'
expect user-ps-own-only "$(asuser ps -n -r -o UID | sort -u)" 1000
has user-ps-sees-own "$(asuser ps -n -r -o PID)" "^$u1\$"
msg=$(asuser assign -g open $plain 2>&1)
expect user-assign-other-rc $? 6
has user-assign-other-message "$msg" 'permission denied'
expect user-assign-other-unchanged "$(cookie $plain)" 0x0
msg=$(asuser run -g closed -- true 2>&1)
expect user-join-closed-rc $? 6
has user-join-closed-message "$msg" '^coresched: permission denied: .*AllowUsers'
bg cs-runas 1000 1000 coresched run -g open -- sleep 100; o1=$!
wait_for tagged $o1
oc=$(coresched list -n -r -o GROUP,COOKIE | awk '$1=="open"{print $2}')
expect_set user-join-open "$(cookie $o1)"
expect user-join-open-group-cookie "$(cookie $o1)" "$oc"
bg cs-runas 1000 1000 sleep 100; us=$!
wait_for grep -qx sleep /proc/$us/comm
asuser assign -g open $us
expect user-assign-own-rc $? 0
expect user-assign-own-cookie "$(cookie $us)" "$oc"
asuser reload 2>/dev/null
expect user-reload-rc $? 6
asuser clear $us 2>/dev/null
expect user-clear-rc $? 6
expect user-clear-unchanged "$(cookie $us)" "$oc"

# ---- hostile clients ----
cs-runas 1001 1001 cs-hostile "$SOCK" 4 > /tmp/hostile.out 2>&1 &
hpid=$!
sleep 0.5
bg $BIN/builder 1; h1=$!
bg $BIN/builder 1; h2=$!
bg $BIN/builder 1; h3=$!
settles $h1 "$bc"; expect hostile-new-tagged-1 "$(cookie $h1)" "$bc"
settles $h2 "$bc"; expect hostile-new-tagged-2 "$(cookie $h2)" "$bc"
settles $h3 "$bc"; expect hostile-new-tagged-3 "$(cookie $h3)" "$bc"
coresched status >/dev/null
expect hostile-status-during $? 0
wait $hpid
expect hostile-ran $? 0
has hostile-connected "$(cat /tmp/hostile.out)" 'idle connections'
out=$(coresched status); rc=$?
expect hostile-status-after-rc $rc 0
expect hostile-status-after-pid "$(field "$out" pid)" "$DPID"
if kill -0 "$DPID" 2>/dev/null; then pass hostile-daemon-alive; else fail hostile-daemon-alive "$(tail -5 $DLOG)"; fi

# ---- no daemon ----
daemon_stop
msg=$(coresched status 2>&1)
expect stopped-status-rc $? 7
expect stopped-status-message "$msg" "coresched: coreschedd is not running (no socket at $SOCK)"
