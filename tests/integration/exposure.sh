# Exposure: the CPU time a process ran without its group's cookie before
# the daemon gave it, per group, read against the kernel's own schedstat.
# A process that matches only after a reload brings what it ran untagged;
# a process started by `coresched run -g` brings nothing; the figures are in
# `coresched status -J`, `coresched stats --untagged` and the metrics file.
. /tests/integration/lib.sh
. /tests/integration/daemon-lib.sh

cp /usr/libexec/coresched-tests/cs-spin "$BIN/late-spin"
cp /usr/libexec/coresched-tests/cs-spin "$BIN/run-spin"
cp /usr/libexec/coresched-tests/cs-spin "$BIN/child-spin"
cp /usr/libexec/coresched-tests/cs-forker "$BIN/fork-parent"
M=/tmp/metrics-$T.prom
cat > "$CFG/coreschedd.conf" <<EOF2
[Daemon]
StatsIntervalSec=1
MetricsFile=$M
[Group manual]
[Group forker]
MatchExe=$BIN/fork-parent
EOF2
daemon_start || exit 1

# schedstat's first field, summed over the threads: ns on a CPU.
cpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }
jfield() { # FILE GROUP FIELD -> that group's exposure field, "" when absent
	local n i
	n=$(cs-json 'exposure.#' < "$1") || return 0
	for i in $(seq 0 $((n - 1))); do
		if [ "$(cs-json "exposure.$i.group" < "$1")" = "$2" ]; then
			cs-json "exposure.$i.$3" < "$1"
			return 0
		fi
	done
}

bg "$BIN/late-spin" 60
late=$!
sleep 2 # untagged all along: no group matches it yet
expect late-untagged "$(cookie $late)" 0x0
before=$(cpu_ns $late)
cat >> "$CFG/coreschedd.conf" <<EOF2
[Group late]
MatchExe=$BIN/late-spin
EOF2
coresched reload >/dev/null 2>&1 || fail reload "coresched reload failed"
tagged() { c=$(cookie "$1"); [ -n "$c" ] && [ "$c" != 0x0 ]; }
wait_for tagged "$late"
after=$(cpu_ns $late)
expect_set late-tagged "$(cookie $late)"
coresched status -J > /tmp/st-$T.json 2>&1
ns=$(jfield /tmp/st-$T.json late untagged_cpu_ns)
n=$(jfield /tmp/st-$T.json late untagged_placements)
# What it ran before the reload, and no more than it had run once placed.
if [ -n "$ns" ] && [ "$ns" -ge "$before" ] && [ "$ns" -le "$after" ] && [ "$before" -gt 100000000 ]; then
	pass late-cpu-counted
else
	fail late-cpu-counted "counted '$ns' ns, kernel said $before ns before the reload, $after after; $(head -c 600 /tmp/st-$T.json)"
fi
expect late-placements "$n" 1

# Placed before its first instruction: nothing to count.
bg coresched run -g manual -- "$BIN/run-spin" 30
rp=$! # coresched execs the program: the same pid
wait_for grep -q run-spin /proc/$rp/comm
expect_set run-tagged "$(cookie "$rp")"
coresched status -J > /tmp/st2-$T.json 2>&1
expect run-not-counted "$(jfield /tmp/st2-$T.json manual untagged_placements)" ""
# The untagged window counts placements made in answer to an event: not
# a reload's, not a launcher's.
expect window-not-reload-nor-run "$(cs-json window.placements < /tmp/st2-$T.json)" 0

# The other views say the same.
coresched stats --untagged -J > /tmp/su-$T.json 2>&1
case $(tr -d ' \n' < /tmp/su-$T.json) in
*'"group":"late","placements":1,"untagged-cpu":'*) pass stats-untagged ;;
*) fail stats-untagged "$(head -c 400 /tmp/su-$T.json)" ;;
esac
wait_for grep -q '^coresched_untagged_cpu_seconds_total{group="late"}' "$M"
v=$(awk '/^coresched_untagged_cpu_seconds_total\{group="late"\}/ { print $2 }' "$M" 2>/dev/null)
if [ -n "$v" ] && awk -v v="$v" -v ns="$ns" 'BEGIN { exit !(v * 1e9 >= ns - 1000 && v * 1e9 <= ns + 1000) }'; then
	pass metrics-file
else
	fail metrics-file "metric '$v' s against $ns ns; $(grep untagged "$M" 2>/dev/null | head -n4)"
fi
coresched status 2>&1 | grep -q '^  late: [0-9.]* s CPU in 1 placements$' && pass status-text ||
	fail status-text "$(coresched status 2>&1 | tail -n4)"

# A child forked once its parent was placed carries the group's cookie
# from its first instruction; when it escapes (a cookie of its own) and is
# repaired, what it ran is not exposure: it ran with the cookie until then.
bg "$BIN/fork-parent" -w 10 1 "$BIN/child-spin" 60
fp=$!
child_of() { # PID -> $child, its first child
	child=$(for f in /proc/[0-9]*/stat; do
		read -r cpid ccomm cstate cppid crest < "$f" 2>/dev/null && [ "$cppid" = "$1" ] && echo "$cpid"
	done | head -n1)
	[ -n "$child" ]
}
child_spins() { child_of "$1" && grep -q child-spin /proc/"$child"/comm 2>/dev/null; }
wait_for child_spins $fp || fail fork-child "no child of $fp running child-spin"
wait_for tagged "$fp"
fcookie=$(cookie $fp)
settles "$child" "$fcookie"
expect_set fork-parent-tagged "$fcookie"
sleep 2 # the child runs, tagged
coresched status -J > /tmp/st3-$T.json 2>&1
p0=$(jfield /tmp/st3-$T.json forker untagged_placements)
# The parent was placed from its exec event (its cookie, read from the
# kernel above, is set): one window, dated from the kernel's stamp; the
# child it forked once placed inherited the cookie and waited for nothing.
expect window-exec-counted "$(cs-json window.placements < /tmp/st3-$T.json)" 1
w=$(cs-json window.max_usec < /tmp/st3-$T.json)
if [ -n "$w" ] && [ "$w" -gt 0 ] && [ "$(cs-json window.p50_usec < /tmp/st3-$T.json)" -le "$w" ]; then
	pass window-exec-dated
else
	fail window-exec-dated "$(tr -d '\n' < /tmp/st3-$T.json | grep -o '"window":{[^}]*}')"
fi
coresched new -d "$child" || fail child-escaped "coresched new -d $child failed"
# A reload reads every process again and repairs it, as a reconcile pass
# does (without waiting for one).
coresched reload >/dev/null 2>&1 || fail reload-repair "coresched reload failed"
settles "$child" "$fcookie"
expect child-repaired "$(cookie "$child")" "$fcookie"
coresched status -J > /tmp/st4-$T.json 2>&1
expect repair-not-counted "$(jfield /tmp/st4-$T.json forker untagged_placements)" "$p0"
expect window-repair-not-counted "$(cs-json window.placements < /tmp/st4-$T.json)" 1

daemon_stop
cleanup
