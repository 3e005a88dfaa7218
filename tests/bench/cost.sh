# Measurements 3, 4 and 6 (sourced by tests/bench/run): CPU per exec, loss
# and convergence, and the cost of `coresched run --new`.

# cpu_per_exec PID IDLE EXE...: storm EXE at $RATE/s for $CPUSECS s;
# prints "rate us-per-exec net-us-per-exec" from PID's CPU time (cpu_ns),
# net of IDLE (us of CPU per second the listener uses with no events).
cpu_per_exec() {
	pid=$1 idle=$2; shift 2
	t0=$(cpu_ns $pid)
	cs-storm "$RATE" "$CPUSECS" "$@" > $B/storm.out
	t1=$(cpu_ns $pid)
	[ -s $B/storm.out ] || { note "cs-storm $* reported nothing"; echo "- - -"; return; }
	awk -v a=$t0 -v b=$t1 -v idle=$idle -v s="$(cat $B/storm.out)" 'BEGIN {
		split(s, f, /[= ]/); n = f[2]; secs = f[4]; r = f[6]
		if (n > 0) printf "%s %.1f %.1f", r, (b - a) / 1000 / n, ((b - a) / 1000 - idle * secs) / n
		else printf "%s - -", r }'
}

# idle_cpu PID: CPU time (us) PID uses per second with nothing to do.
idle_cpu() {
	t0=$(cpu_ns $1); sleep "$CPUSECS"; t1=$(cpu_ns $1)
	awk -v a=$t0 -v b=$t1 -v s=$CPUSECS 'BEGIN { printf "%.1f", (b - a) / 1000 / s }'
}

bench_cpu() {
	out ""
	out "== 3. listener CPU per exec (CPU time from $CPU_SRC over a ${CPUSECS}s storm at $RATE/s asked; net: minus the idle rate)"
	out "$(printf '%-40s %8s %12s %12s' "listener, storm" "rate/s" "us/exec" "net us/exec")"
	conf "[Group storm]
MatchExe=$B/bin/stormer
" && dstart || return
	sleep 1
	idle=$(idle_cpu $DPID)
	out "$(printf '%-40s %8s %12s %12s' "coreschedd, idle (us CPU per second)" - $idle -)"
	set -- $(cpu_per_exec $DPID $idle $B/bin/stormer 0); out "$(printf '%-40s %8s %12s %12s' "coreschedd, matching exe" $1 $2 $3)"
	set -- $(cpu_per_exec $DPID $idle /bin/true); out "$(printf '%-40s %8s %12s %12s' "coreschedd, unmatched exe" $1 $2 $3)"
	dstop
	cs-floor $B/bin/stormer > $B/floor.out 2>$B/floor.err & fpid=$!
	sleep 1
	idle=$(idle_cpu $fpid)
	out "$(printf '%-40s %8s %12s %12s' "floor, idle (us CPU per second)" - $idle -)"
	set -- $(cpu_per_exec $fpid $idle $B/bin/stormer 0); out "$(printf '%-40s %8s %12s %12s' "floor, matching exe" $1 $2 $3)"
	set -- $(cpu_per_exec $fpid $idle /bin/true); out "$(printf '%-40s %8s %12s %12s' "floor, unmatched exe" $1 $2 $3)"
	kill $fpid; wait $fpid 2>/dev/null
}

bench_loss() {
	out ""
	out "== 4a. exec rate followed without loss (default receive buffer; 3 s storms of a matching exe; 0 = as fast as one spawner can)"
	out "$(printf '%-12s %10s %10s %10s %8s' "asked/s" "achieved/s" "execs" "daemon" "lost")"
	conf "[Group storm]
MatchExe=$B/bin/stormer
" && dstart || return
	best=0
	for r in $RATES; do
		l0=$(counter lost) e0=$(counter execs)
		cs-storm "$r" 3 $B/bin/stormer 0 > $B/storm.out
		sleep 1
		l1=$(counter lost) e1=$(counter execs)
		set -- $(sed 's/[a-z]*=//g' $B/storm.out)
		out "$(printf '%-12s %10s %10s %10s %8s' $r $3 $1 $((e1 - e0)) $((l1 - l0)))"
		[ $((l1 - l0)) = 0 ] && [ "$3" -gt "$best" ] && best=$3
	done
	out "highest achieved rate with no loss: $best/s"
	dstop

	out ""
	out "== 4b. convergence after a forced loss (ReceiveBuffer=4096, daemon stopped while $CONV matching processes start)"
	conf "ReceiveBuffer=4096
[Group spawn]
MatchExe=$B/bin/spawn
" && dstart || return
	r0=$(counter resyncs)
	kill -STOP $DPID
	$B/bin/spawn $CONV > $B/spawn.out & spid=$!
	i=0; while ! grep -q ready $B/spawn.out && [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done
	cs-storm 0 1 /bin/true > /dev/null
	kill -CONT $DPID
	kill -USR1 $spid
	i=0; while ! grep -q tagged $B/spawn.out && [ $i -lt 1300 ]; do sleep 0.1; i=$((i + 1)); done
	out "$(grep tagged $B/spawn.out) (from SIGCONT); resyncs +$(( $(counter resyncs) - r0 )), events lost $(counter lost)"
	kill $spid; wait $spid 2>/dev/null
	dstop
}

# The cost of `coresched run` against a minimal launcher (cs-launch:
# prctl then execvp, libc only) and against the full command line that
# /usr/bin/coresched used to be, all measured in the same run: cs-time
# interleaves rounds of K runs of each command.
run_overhead_rows() { # FULL-CLI
	set -- /bin/true "cs-launch /bin/true" "coresched run --new -- /bin/true" "coresched run -- /bin/true"
	[ -x "$full" ] && set -- "$@" "$full run --new -- /bin/true"
	set -- "$@" "cs-launch -n /bin/true"
	cs-time $rounds $k "$@" > $B/time.out 2>$B/time.err || { note "cs-time failed: $(cat $B/time.err)"; return; }
	out "$(printf '%-46s %5s %8s %8s %8s %8s %8s' command runs median p10 p90 rounds cpu)"
	while read -r n med p10 p90 rmed cpu cmd; do
		case $cmd in "cs-launch -n"*) cmd="no cookie: $cmd" ;; cs-launch*) cmd="minimal launcher: $cmd" ;; "$full"*) cmd="full CLI: coresched-cli${cmd#$full}" ;; esac
		out "$(printf '%-46s %5s %8s %8s %8s %8s %8s' "$cmd" $n $med $p10 $p90 $rmed $cpu)"
	done < $B/time.out
	# ratios of the medians: per run, of the rounds' means, of CPU time
	out "$(awk 'function q(a, b) { return b ? a / b : 0 }
		{ m[NR] = $2; r[NR] = $5; c[NR] = $6 } END {
		f = "%-46s %5s %8.2f %8s %8s %8.2f %8.2f"
		printf f "\n", "ratio run --new / minimal launcher", "", q(m[3], m[2]), "", "", q(r[3], r[2]), q(c[3], c[2])
		printf f, "ratio run --new / /bin/true", "", q(m[3], m[1]), "", "", q(r[3], r[1]), q(c[3], c[1])
		if (NR >= 6) printf "\n" f, "ratio full CLI / minimal launcher", "", q(m[5], m[2]), "", "", q(r[5], r[2]), q(c[5], c[2])
	}' $B/time.out)"
}

bench_run_overhead() {
	k=5 rounds=$(( (RUNS + 4) / 5 ))
	full=$(dirname "$(command -v coresched)")/coresched-cli
	[ -x "$full" ] || full=/usr/libexec/coresched/coresched-cli
	[ -x "$full" ] || full=/usr/local/libexec/coresched/coresched-cli
	out ""
	out "== 6. coresched run --new overhead ($rounds rounds x $k runs of each command, interleaved; us per run, wall clock from spawn to exit; cpu: the run's own user+system time)"
	# As on a host that uses core scheduling: some cookie always exists.
	cs-launch sleep 100000 & hold=$!
	sleep 0.5
	out "6a. another task holds a cookie throughout (core scheduling stays enabled)"
	run_overhead_rows
	kill $hold; wait $hold 2>/dev/null
	out "6b. no other cookie: each run's new cookie enables core scheduling in the kernel, its exit disables it"
	run_overhead_rows
}
