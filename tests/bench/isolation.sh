# Measurement 7 (sourced by tests/bench/run): the cost of isolation as
# kernel developers measure it. sysbench cpu in two groups (two copies of
# the binary, so rules tell them apart) at each load level, in three
# configurations: no cookies, one cookie per group (coreschedd), SMT off.

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

# stats FILE [BASE-MEAN]: "mean std% sem% +/-%". busybox awk may lack
# sqrt(), hence Newton's method.
stats() {
	awk -v base="$2" '
	function root(a,  r, i) { if (a <= 0) return 0; r = a; for (i = 0; i < 60; i++) r = (r + a / r) / 2; return r }
	NF { x[++n] = $1; s += $1 } END {
		if (!n) { printf "%10s %6s %6s %7s", "-", "-", "-", "-"; exit }
		m = s / n; for (i = 1; i <= n; i++) v += (x[i] - m) * (x[i] - m)
		sd = n > 1 ? root(v / (n - 1)) : 0
		d = base > 0 ? sprintf("%+.1f%%", (m - base) / base * 100) : "-"
		printf "%10.1f %5.1f%% %5.1f%% %7s", m, m ? sd / m * 100 : 0, m ? sd / root(n) / m * 100 : 0, d }' "$1"
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
}
