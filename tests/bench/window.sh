# Measurements 1 and 2 (sourced by tests/bench/run): the untagged window
# seen by the probe itself, for coreschedd, the floor listener and
# cgrulesengd, idle and under an exec storm of unmatched /bin/true.

# window_pair TAG LABEL PROBE-ARGS...: the idle row and the storm row.
window_pair() {
	tag=$1 label=$2; shift 2
	probes $B/w-$tag-idle 5000 "$@"
	row "$label, idle" $B/w-$tag-idle
	storm_start "$RATE" /bin/true
	probes $B/w-$tag-storm 5000 "$@"
	storm_stop
	echo "storm-$tag: $STORM_RATE" >> $B/run.txt
	row "$label, storm ${STORM_RATE}/s" $B/w-$tag-storm
}

# window_attack: the same probe while 8 unprivileged clients (8 uids)
# call the most expensive control methods as fast as they are answered;
# beside it, the quiet row of this very run.
window_attack() {
	hammers=""
	lost0=$(coresched status -J 2>/dev/null | cs-json counters.lost 2>/dev/null)
	for u in 3001 3002 3003 3004 3005 3006 3007 3008; do
		cs-runas $u $u cs-hammer $SOCK 60 > $B/hammer.$u 2>&1 &
		hammers="$hammers $!"
	done
	sleep 0.5
	probes $B/w-cs-attack 5000 "$@"
	kill $hammers 2>/dev/null; wait $hammers 2>/dev/null
	lost1=$(coresched status -J 2>/dev/null | cs-json counters.lost 2>/dev/null)
	row "coreschedd, exec, 8 clients calling" $B/w-cs-attack
	[ -s $B/w-cs-idle ] && [ -s $B/w-cs-attack ] &&
		out "$(awk -v a=$(p50 $B/w-cs-attack) -v b=$(p50 $B/w-cs-idle) \
			'BEGIN { printf "%-44s %6.2f", "p50 under control-socket load / quiet", a / b }')"
	out "$(printf '%-44s %6s' "calls answered (8 clients)" "$(cat $B/hammer.* | sed -n 's/^calls=//p' | awk '{ s += $1 } END { print s + 0 }')")"
	out "$(printf '%-44s %6s' "events lost meanwhile" "$(( ${lost1:-0} - ${lost0:-0} ))")"
}

bench_window() {
	out ""
	out "== 1. untagged window (us, exec or fork until the probe sees its cookie; storm: unmatched /bin/true at $RATE/s asked)"
	header "daemon, child, load"
	conf "[Group probe]
MatchExe=$B/bin/probe
" && dstart || return
	window_pair cs "coreschedd, exec"
	window_attack
	renice -n -20 -p $DPID >/dev/null
	window_pair csnice "coreschedd nice -20, exec"
	dstop
	conf "[Group probe]
MatchExe=$B/bin/probe
Per=process
" && dstart || return
	window_pair csfork "coreschedd Per=process, fork" --fork
	dstop
}

# cgrules_setup: rules for libcgroup's classifier; 0 when it can run.
cgrules_setup() {
	[ -d /sys/fs/cgroup ] && [ -f /sys/fs/cgroup/cgroup.controllers ] || { note "no cgroup v2 mount"; return 1; }
	if [ -e /etc/cgrules.conf ] && ! grep -q coresched-bench /etc/cgrules.conf; then
		note "/etc/cgrules.conf exists and is not ours; cgrulesengd not measured"
		return 1
	fi
	mkdir -p /sys/fs/cgroup/csbench-victim
	[ -e /etc/cgconfig.conf ] || : > /etc/cgconfig.conf
	mkdir -p /etc/cgconfig.d
	printf '# coresched-bench\n*:%s\tcpu\tcsbench-victim/\n' $B/bin/probe > /etc/cgrules.conf
}

bench_peers() {
	out ""
	out "== 2. floor and peer, same probe, same run (us; cgrulesengd: until /proc/self/cgroup names the rule's cgroup)"
	header "daemon, child, load"
	cs-floor $B/bin/probe > $B/floor.out 2>$B/floor.err & fpid=$!
	i=0; while ! grep -q ready $B/floor.out && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	window_pair floor "floor (proc connector + SHARE_TO), exec"
	kill $fpid; wait $fpid 2>/dev/null
	note "$(cat $B/floor.err)"
	if command -v cgrulesengd >/dev/null && cgrules_setup; then
		cgrulesengd -n -Q > $B/cgred.log 2>&1 & gpid=$!
		sleep 1
		window_pair cgred "cgrulesengd, exec" --cgroup csbench-victim
		kill $gpid 2>/dev/null; wait $gpid 2>/dev/null
		[ "$(grep -vc timeout $B/w-cgred-idle)" = 0 ] && note "cgrulesengd never moved the probe: $(tail -3 $B/cgred.log)"
		grep -q coresched-bench /etc/cgrules.conf && rm -f /etc/cgrules.conf
	else
		out "cgrulesengd: not measured (see the notes on the console)"
	fi
	out ""
	out "ratios of p50 (p90) windows: coreschedd / peer"
	for load in idle storm; do
		for peer in floor cgred; do
			[ -s $B/w-cs-$load ] && [ -s $B/w-$peer-$load ] || continue
			a=$(p50 $B/w-cs-$load) b=$(p50 $B/w-$peer-$load)
			a9=$(grep -v timeout $B/w-cs-$load | sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int(NR * 0.9 + 0.999)] }')
			b9=$(grep -v timeout $B/w-$peer-$load | sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int(NR * 0.9 + 0.999)] }')
			[ -n "$a" ] && [ -n "$b" ] || continue
			out "$(awk -v a=$a -v b=$b -v a9=$a9 -v b9=$b9 -v l="coreschedd / $(echo $peer | sed s/cgred/cgrulesengd/), $load" \
				'BEGIN { printf "%-44s %6.2f (%.2f)", l, a / b, a9 / b9 }')"
		done
	done
}
