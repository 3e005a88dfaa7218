# Measurement 7 (sourced by tests/bench/run): the cost of isolation as
# kernel developers measure it. sysbench cpu in two groups (two copies of
# the binary, so rules tell them apart) at each load level, in three
# configurations: no cookies, one cookie per group (coreschedd), SMT off.
# Then, as the core-scheduling threads also judged isolation, a second
# table: the latency of a CPU-bound group beside a vector-heavy one.

# sb_level LEVEL: total events/s of the two groups together, LEVEL threads
# split between them (the first gets the odd one).
sb_level() {
	a=$(( ($1 + 1) / 2 )) b=$(( $1 / 2 ))
	$B/bin/sb-a cpu --threads=$a --time=$SBTIME run > $B/sb-a.out 2>&1 &
	pa=$!
	[ $b -gt 0 ] && $B/bin/sb-b cpu --threads=$b --time=$SBTIME run > $B/sb-b.out 2>&1
	wait $pa
	[ $b -gt 0 ] || : > $B/sb-b.out
	cat $B/sb-a.out $B/sb-b.out | awk '/events per second/ { s += $NF } END { printf "%.1f", s }'
}

# sb_config NAME: REPS runs per level into $B/sb-NAME-LEVEL.
sb_config() {
	for l in $LEVELS; do
		: > $B/sb-$1-$l
		r=0; while [ $r -lt $REPS ]; do sb_level $l >> $B/sb-$1-$l; echo >> $B/sb-$1-$l; r=$((r + 1)); done
	done
}

# stats FILE [BASE-MEAN [DECIMALS]]: "mean std% sem% +/-%", the mean with
# DECIMALS places (1 by default). busybox awk may lack sqrt(), hence
# Newton's method.
stats() {
	awk -v base="$2" -v dec="${3:-1}" '
	function root(a,  r, i) { if (a <= 0) return 0; r = a; for (i = 0; i < 60; i++) r = (r + a / r) / 2; return r }
	NF { x[++n] = $1; s += $1 } END {
		if (!n) { printf "%10s %6s %6s %7s", "-", "-", "-", "-"; exit }
		m = s / n; for (i = 1; i <= n; i++) v += (x[i] - m) * (x[i] - m)
		sd = n > 1 ? root(v / (n - 1)) : 0
		d = base > 0 ? sprintf("%+.1f%%", (m - base) / base * 100) : "-"
		printf "%10." dec "f %5.1f%% %5.1f%% %7s", m, m ? sd / m * 100 : 0, m ? sd / root(n) / m * 100 : 0, d }' "$1"
}

bench_isolation() {
	out ""
	out "== 7. sysbench cpu events/s, two groups, $REPS x ${SBTIME}s per level (mean, std%, sem%, +/- against no cookies)"
	command -v sysbench >/dev/null || { out "sysbench: not installed, not measured"; return; }
	cp "$(command -v sysbench)" $B/bin/sb-a
	cp "$(command -v sysbench)" $B/bin/sb-b
	for l in $LEVELS; do : > $B/sb-cookie-$l; : > $B/sb-smtoff-$l; done
	sb_config none
	conf "[Group sba]
MatchExe=$B/bin/sb-a
[Group sbb]
MatchExe=$B/bin/sb-b
" && dstart && { sb_config cookie; dstop; }
	ctl=/sys/devices/system/cpu/smt/control
	if [ -w $ctl ] && [ "$(cat $ctl)" = on ] && echo off > $ctl 2>/dev/null; then
		sb_config smtoff
		echo on > $ctl
	else
		note "SMT cannot be switched off here ($ctl: $(cat $ctl 2>/dev/null))"
	fi
	out "$(printf '%-7s | %-34s | %-34s | %-34s' threads "no cookies" "cookie per group" "SMT off")"
	for l in $LEVELS; do
		base=$(awk 'NF { s += $1; n++ } END { if (n) print s / n }' $B/sb-none-$l)
		out "$(printf '%-7s | %s | %s | %s' $l "$(stats $B/sb-none-$l)" "$(stats $B/sb-cookie-$l $base)" "$(stats $B/sb-smtoff-$l $base)")"
	done
	bench_latency
}

# The second table. The CPU-bound group is sysbench cpu (sb-a, its own
# "95th percentile:" latency line, in ms); beside it runs a vector-heavy
# group, stress-ng's matrix product (--matrix-method prod: dense
# floating-point multiply-adds over 256x256 floats, the Debian-packaged
# load nearest to a GEMM kernel such as gemmbench) as a copy of stress-ng,
# $B/bin/vec, so that a rule tells it apart. Each group gets LAT_FEW tasks
# (together fewer than CPUs), then NCPU tasks (together twice the CPUs).
LAT_FEW=$(( NCPU / 4 > 0 ? NCPU / 4 : 1 ))

# lat_watch FILE: in the background, at a higher priority than the groups
# (with more tasks than CPUs a walk at theirs may outlast a short run),
# waits until sysbench's FILE says its threads started, then walks every
# thread's cookie into $B/cookies with cs-cookies (prctl, not coresched's
# code). Started before sysbench, so no fork waits for a CPU in between.
# busybox has renice, not nice.
lat_watch() {
	sh -c 'renice -n -10 -p $$ >/dev/null 2>&1
		i=0; while ! grep -q "Threads started" "$1" && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
		exec cs-cookies -t' sh "$1" > $B/cookies &
	PW=$!
}

# lat_cookies EXE: the distinct cookies of the threads running EXE in the
# walk $B/cookies.
lat_cookies() { awk -v e="$1" '$4 == e { print $3 }' $B/cookies | sort -u | tr '\n' ' ' | sed 's/ $//'; }

# lat_check CONFIG TASKS: are the cookies in the walk what CONFIG means
# (none: all 0; cookie: one per group, not 0, the two different)? Notes a
# run that is not, or whose sysbench was gone before the walk.
lat_check() {
	a=$(lat_cookies $B/bin/sb-a) v=$(lat_cookies $B/bin/vec)
	nv=$(awk -v e=$B/bin/vec '$4 == e && $1 == $2' $B/cookies | wc -l)
	LAT_RUNS=$((LAT_RUNS + 1))
	if [ -z "$a" ]; then
		LAT_LATE=$((LAT_LATE + 1))
		note "latency, $1, $2+$2 tasks: sysbench had ended before its cookies were read"
		return
	fi
	case $1 in
	none) [ "$a" = 0x0 ] && [ "$v" = 0x0 ] ;;
	cookie) [ "$a" != 0x0 ] && [ "$v" != 0x0 ] && [ "$a" != "$v" ] &&
		[ "$(echo $a | wc -w)" = 1 ] && [ "$(echo $v | wc -w)" = 1 ] ;;
	esac && [ "$nv" = $(($2 + 1)) ] && { LAT_OK=$((LAT_OK + 1)); return; }
	note "latency, $1, $2+$2 tasks: cookies of sysbench threads: $a; of vector threads: ${v:-none alive}; vector processes: $nv of $(($2 + 1))"
}

# lat_wait FILE TEXT: wait (up to 30 s) until FILE says TEXT.
lat_wait() { i=0; while ! grep -q "$2" $1 && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done; }

# lat_fi: the machine's forced idle so far (us), from the root cgroup's
# cpu.stat (needs schedstats); empty when the kernel does not say.
lat_fi() { awk '$1 == "core_sched.force_idle_usec" { print $2 }' /sys/fs/cgroup/cpu.stat 2>/dev/null; }

# lat_run CONFIG TASKS: one run; prints sysbench's 95th percentile (ms),
# and appends the forced idle (ms) during it to $B/fi-CONFIG-TASKS. The
# vector group is up (and placed) before sysbench starts, and the cookies
# are read back while both run.
lat_run() {
	$B/bin/vec --matrix $2 --matrix-method prod --matrix-size 256 --timeout $((SBTIME + 60))s > $B/vec.out 2>&1 &
	pv=$!
	lat_wait $B/vec.out 'dispatching hogs'
	sleep 0.5
	: > $B/lat.out
	lat_watch $B/lat.out
	f0=$(lat_fi)
	$B/bin/sb-a cpu --threads=$2 --time=$SBTIME run > $B/lat.out 2>&1 &
	psb=$!
	wait $psb
	wait $PW
	lat_check $1 $2
	f1=$(lat_fi)
	[ -n "$f0" ] && [ -n "$f1" ] && echo $(( (f1 - f0) / 1000 )) >> $B/fi-$1-$2
	kill $pv 2>/dev/null; wait $pv 2>/dev/null
	p=$(sed -n 's/^ *95th percentile: *//p' $B/lat.out)
	[ -n "$p" ] || note "latency, $1, $2+$2 tasks: sysbench printed no 95th percentile: $(tail -2 $B/lat.out)"
	echo "$p"
}

# lat_config NAME: REPS runs per level into $B/lat-NAME-TASKS.
lat_config() {
	for t in $LAT_FEW $NCPU; do
		: > $B/lat-$1-$t; : > $B/fi-$1-$t
		r=0; while [ $r -lt $REPS ]; do lat_run $1 $t >> $B/lat-$1-$t; r=$((r + 1)); done
	done
}

bench_latency() {
	out ""
	out "== 7. sysbench cpu 95th-percentile latency (ms) beside stress-ng --matrix (prod); tasks: sysbench threads + matrix workers; $REPS x ${SBTIME}s per level (mean, std%, sem%, +/- against no cookies; higher is worse)"
	command -v stress-ng >/dev/null || { out "stress-ng: not installed, latency not measured"; return; }
	command -v cs-cookies >/dev/null || { out "cs-cookies: not built, cookies cannot be verified, latency not measured"; return; }
	cp "$(command -v stress-ng)" $B/bin/vec
	LAT_RUNS=0 LAT_OK=0 LAT_LATE=0
	for t in $LAT_FEW $NCPU; do : > $B/lat-cookie-$t; : > $B/fi-cookie-$t; done
	# Forced idle says whether a rise is core scheduling at work: schedstats
	# on for these runs (both configurations alike), then as it was.
	ss=/proc/sys/kernel/sched_schedstats ss0=$(cat $ss 2>/dev/null)
	[ -n "$ss0" ] && echo 1 > $ss 2>/dev/null
	lat_config none
	conf "[Group sba]
MatchExe=$B/bin/sb-a
[Group vec]
MatchExe=$B/bin/vec
" && dstart && { lat_config cookie; dstop; }
	out "$(printf '%-7s | %-34s | %-34s' tasks "no cookies" "cookie per group")"
	for t in $LAT_FEW $NCPU; do
		base=$(awk 'NF { s += $1; n++ } END { if (n) print s / n }' $B/lat-none-$t)
		out "$(printf '%-7s | %s | %s' $t+$t "$(stats $B/lat-none-$t "" 2)" "$(stats $B/lat-cookie-$t "$base" 2)")"
	done
	[ -n "$ss0" ] && echo $ss0 > $ss 2>/dev/null
	out "cookies read back while both groups ran: as configured in $LAT_OK of $LAT_RUNS runs (sysbench gone before the read in $LAT_LATE)"
	if [ -z "$(lat_fi)" ]; then
		out "forced idle: not measured (no core_sched.force_idle_usec in /sys/fs/cgroup/cpu.stat: cgroup v2 and schedstats needed)"
		return
	fi
	fi_line="forced idle of the whole machine during a run (ms, mean: no cookies / cookie per group):"
	for t in $LAT_FEW $NCPU; do
		fi_line="$fi_line $t+$t: $(stats $B/fi-none-$t "" 0 | awk '{ print $1 }') / $(stats $B/fi-cookie-$t "" 0 | awk '{ print $1 }');"
	done
	out "${fi_line%;}"
}
