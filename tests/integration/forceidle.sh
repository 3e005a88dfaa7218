# Forced idle is charged to the groups that cause it: two groups of busy
# loops on the two SMT siblings of one core accrue it, one group does not.
# The daemon's figures are compared with the kernel's own counters: each
# loop runs in a cgroup of its own, whose cpu.stat keeps the loop's whole
# count after it is gone. What a loop reports of itself as it exits is not
# that count: the exit still runs, and a virtual CPU the host stalls there
# charges the stall, seconds of it on a busy host, to the exiting loop.
. /tests/integration/lib.sh
. /tests/integration/daemon-lib.sh

sib=$(cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list)
c0=0
c1=$(echo "$sib" | tr ',-' '  ' | awk '{print $2}')
[ -n "$c1" ] || { skip forceidle "cpu0 has no SMT sibling ($sib)"; exit 0; }
for w in spin-a spin-b spin-c; do cp /usr/libexec/coresched-tests/cs-spin "$BIN/$w"; done
M=/tmp/metrics-$T.prom
cat > "$CFG/coreschedd.conf" <<EOF2
[Daemon]
StatsIntervalSec=1
MetricsFile=$M
[Group a]
MatchExe=$BIN/spin-a
[Group b]
MatchExe=$BIN/spin-b
[Group ab]
MatchExe=$BIN/spin-c
EOF2
echo 0 > /proc/sys/kernel/sched_schedstats
daemon_start || exit 1
expect schedstats-on "$(cat /proc/sys/kernel/sched_schedstats)" 1

metric() { # NAME GROUP -> value
	awk -v n="$1" -v g="group=\"$2\"" 'index($0, n "{") == 1 && index($0, g) { print $2 }' "$M"
}
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }

# spin NAME CPU CGROUP [SECONDS [VAR=VALUE...]]: a loop (3 s unless told)
# that joins CGROUP before it execs, so the cgroup counts all of the
# process's life, as the daemon does.
spin() {
	mkdir -p "/sys/fs/cgroup/$3"
	sh -c "echo \$\$ > /sys/fs/cgroup/$3/cgroup.procs && export CS_SPIN_REPORT=1 ${5:-} && exec $BIN/$1 ${4:-3} $2"
}
# REPORT...: the sum of what loops said of themselves as they exited, in ms.
rep() { cat "$@" | awk '/^core_forceidle_sum/ { s += $2 } END { print s + 0 }'; }
# CGROUP REPORT...: the cgroup's forced idle in ms, read once its loops are
# gone, or the loops' own reports when larger (the reports are a floor:
# some runs' cgroups show less of the time before the loops were tagged).
final_ms() {
	local cg=/sys/fs/cgroup/$1/cpu.stat r
	shift
	r=$(rep "$@")
	awk -v r="$r" '/^core_sched.force_idle_usec / { c = $2 / 1000 } END { print (c > r ? c : r) }' "$cg"
}

# How long the loops overlapped depends on how fast this VM started them.
spin spin-a $c0 fi-a-$T > /tmp/fi-a & a=$!
spin spin-b $c1 fi-b-$T > /tmp/fi-b & b=$!
wait $a $b
ka=$(final_ms fi-a-$T /tmp/fi-a); kb=$(final_ms fi-b-$T /tmp/fi-b)
sleep 2.5
fa=$(metric coresched_forced_idle_seconds_total a)
fb=$(metric coresched_forced_idle_seconds_total b)
echo "forced idle: kernel a=${ka}ms b=${kb}ms (loops' reports $(rep /tmp/fi-a)ms $(rep /tmp/fi-b)ms); daemon a=${fa}s b=${fb}s"
ge "$ka" 300 && pass kernel-accrued || fail kernel-accrued "core_forceidle_sum of a is $ka ms"
ge "$fa" "$(awk -v k="$ka" 'BEGIN { print k / 1000 * 0.5 }')" && pass daemon-charges-a || fail daemon-charges-a "daemon $fa s, kernel $ka ms"
ge "$(awk -v k="$ka" 'BEGIN { print k / 1000 * 1.2 + 0.05 }')" "$fa" && pass daemon-not-over-a || fail daemon-not-over-a "daemon $fa s, kernel $ka ms"
ge "$fb" "$(awk -v k="$kb" 'BEGIN { print k / 1000 * 0.5 }')" && pass daemon-charges-b || fail daemon-charges-b "daemon $fb s, kernel $kb ms"
ge "$(awk -v k="$kb" 'BEGIN { print k / 1000 * 1.2 + 0.05 }')" "$fb" && pass daemon-not-over-b || fail daemon-not-over-b "daemon $fb s, kernel $kb ms"
sleep 2
fa2=$(metric coresched_forced_idle_seconds_total a)
ge "$fa2" "$fa" && pass total-kept-after-exit || fail total-kept-after-exit "$fa -> $fa2"

# The administrator's view while two groups contend for one core.
"$BIN/spin-a" 6 $c0 & a=$!
"$BIN/spin-b" 6 $c1 & b=$!
coresched stats -c 5 -i 1 > /tmp/stats-table.txt 2>&1
cat /tmp/stats-table.txt
grep -q '^a ' /tmp/stats-table.txt && pass stats-table-has-group || fail stats-table-has-group "$(head -5 /tmp/stats-table.txt)"
wait $a $b

# A process whose threads keep exiting: ten workers alive at once on one
# sibling, each living 2.5 s, a new one every 250 ms, against a plain loop
# of b on the other. Each thread counts until the sample before it exits,
# so the daemon keeps about 4/5 of what the kernel counted. A sum over the
# threads hardly moves once the pool is full (each exit takes away what a
# whole lifetime added) and kept little more than the pool's first 2.5 s.
# (A thread living less than StatsIntervalSec is missed either way.)
sleep 2.5
fc0=$(metric coresched_forced_idle_seconds_total a)
spin spin-a $c0 fi-ca-$T 12 "CS_SPIN_CHURN_MS=2500 CS_SPIN_THREADS=10" > /tmp/fi-ca & a=$!
spin spin-b $c1 fi-cb-$T 12 > /tmp/fi-cb & b=$!
wait $a $b
kc=$(final_ms fi-ca-$T /tmp/fi-ca)
sleep 2.5
fc1=$(metric coresched_forced_idle_seconds_total a)
fc=$(awk -v x="$fc0" -v y="$fc1" 'BEGIN { print y - x }')
echo "forced idle, churning threads: kernel a=${kc}ms (threads' reports $(rep /tmp/fi-ca)ms); daemon a=${fc}s (${fc0}s -> ${fc1}s)"
ge "$kc" 1000 && pass churn-kernel-accrued || fail churn-kernel-accrued "cgroup forced idle of a is $kc ms"
ge "$fc" "$(awk -v k="$kc" 'BEGIN { print k / 1000 * 0.5 }')" && pass churn-daemon-charges-a ||
	fail churn-daemon-charges-a "daemon $fc s, kernel $kc ms"
ge "$(awk -v k="$kc" 'BEGIN { print k / 1000 * 1.2 + 0.05 }')" "$fc" && pass churn-daemon-not-over-a ||
	fail churn-daemon-not-over-a "daemon $fc s, kernel $kc ms"

# One group: only the untagged moments before the daemon places each loop
# can force idle; the daemon must not report more than the kernel does.
spin spin-c $c0 fi-c-$T > /tmp/fi-x & x=$!
spin spin-c $c1 fi-c-$T > /tmp/fi-y & y=$!
wait $x $y
kxy=$(final_ms fi-c-$T /tmp/fi-x /tmp/fi-y) rxy=$(rep /tmp/fi-x /tmp/fi-y)
sleep 2.5
fab=$(metric coresched_forced_idle_seconds_total ab)
echo "forced idle, one group: kernel ${kxy}ms (loops' reports ${rxy}ms); daemon ab=${fab}s"
ge "$(awk -v k="$kxy" 'BEGIN { print k / 1000 * 1.2 + 0.05 }')" "$fab" && pass one-group-not-over || fail one-group-not-over "daemon $fab s, kernel $kxy ms"
# The loops' own figures: the premise is about the loops, not about the
# stalls their exits may be charged.
ge "$(awk -v a="$fa" 'BEGIN { print a * 1000 * 0.2 }')" "$rxy" && pass one-group-near-zero || fail one-group-near-zero "kernel $rxy ms for one group vs daemon $fa s for two"
grep -q '^coresched_info{version=' "$M" && pass metrics-info || fail metrics-info "$(head -5 $M)"
grep -q 'pid=' "$M" && fail metrics-no-pid "pid label found" || pass metrics-no-pid
cat "$M"
rmdir /sys/fs/cgroup/fi-a-$T /sys/fs/cgroup/fi-b-$T /sys/fs/cgroup/fi-c-$T /sys/fs/cgroup/fi-ca-$T /sys/fs/cgroup/fi-cb-$T
daemon_stop
expect schedstats-restored "$(cat /proc/sys/kernel/sched_schedstats)" 0

# A hybrid host: v1 hierarchies at /sys/fs/cgroup, the v2 one at
# /sys/fs/cgroup/unified. The host's figures come from the cgroup2 mount
# wherever it is: the daemon runs in a mount namespace laid out so.
cat > "$BIN/hybrid" <<'EOF2'
#!/bin/sh
mount -t tmpfs hybrid /sys/fs/cgroup && mkdir /sys/fs/cgroup/unified &&
	mount -t cgroup2 cgroup2 /sys/fs/cgroup/unified && exec coreschedd "$@"
EOF2
chmod 755 "$BIN/hybrid"
cat > "$BIN/hybrid-ns" <<EOF2
#!/bin/sh
exec unshare -m --propagation private $BIN/hybrid "\$@"
EOF2
chmod 755 "$BIN/hybrid-ns"
printf '[Daemon]\nStatsIntervalSec=1\nMetricsFile=%s\n[Group a]\nMatchExe=%s\n' "$M" "$BIN/spin-a" > "$CFG/coreschedd.conf"
rm -f "$M"
if CORESCHED_DAEMON=$BIN/hybrid-ns daemon_start; then
	wait_for grep -q '^coresched_host_forced_idle_seconds_total ' "$M"
	grep -q '^coresched_host_forced_idle_seconds_total ' "$M" && pass hybrid-host-figures ||
		fail hybrid-host-figures "no host line in $M: $(head -c 600 "$M" 2>&1); log: $(tail -n 5 "$DLOG")"
	daemon_stop
fi
