# Measurement 5 (sourced by tests/bench/run): start-up with many live
# processes, and the daemon's memory with many tasks and groups. Rule
# matching per process is timed on the host (tests/bench/bench-match.c).

# groups_conf N: N-1 groups that match nothing, then one for the spawner.
groups_conf() {
	i=1
	while [ $i -lt $1 ]; do
		printf '[Group g%d]\nMatchExe=/opt/app%d/bin/app\n' $i $i
		i=$((i + 1))
	done
	printf '[Group spawn]\nMatchExe=%s\n' $B/bin/spawn
}

# scale_row LABEL: start the daemon via cs-ready; time to READY, tracked
# processes, how many of the spawned children carry a cookie, VmRSS.
scale_row() {
	rm -f $SOCK
	cs-ready coreschedd --config-dir $B/cfg --socket $SOCK > $B/ready.out 2>>$B/dlog
	DPID=$(sed -n 's/pid=\([0-9]*\).*/\1/p' $B/ready.out)
	ms=$(sed -n 's/.*ready_ms=//p' $B/ready.out)
	i=0; while [ ! -S $SOCK ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	tracked=$(coresched status 2>/dev/null | sed -n 's/^tracked processes: //p')
	tagged=-
	if [ -n "$spid" ]; then
		n0=$(grep -c tagged $B/spawn.out)
		kill -USR1 $spid
		i=0; while [ "$(grep -c tagged $B/spawn.out)" = "$n0" ] && [ $i -lt 1300 ]; do sleep 0.1; i=$((i + 1)); done
		tagged=$(sed -n 's/tagged \([0-9/]*\).*/\1/p' $B/spawn.out | tail -n1)
	fi
	rss=$(awk '/^VmRSS:/ { print $2 }' /proc/$DPID/status)
	out "$(printf '%-36s %10s %9s %13s %9s' "$1" "$ms" "$tracked" "$tagged" "$rss")"
	kill $DPID 2>/dev/null
	i=0; while [ -d /proc/$DPID ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
}

# walk_rows: cs-walk (a bare walk of /proc reading what the daemon reads
# of every process: stat, status, cgroup, exe) from exec to READY=1, three
# times over the same processes; prints its row, and sets WALK_MS to the
# median.
walk_rows() {
	: > $B/walk.ms
	for r in 1 2 3; do
		cs-ready cs-walk > $B/ready.out 2>>$B/dlog
		sed -n 's/.*ready_ms=//p' $B/ready.out >> $B/walk.ms
		wpid=$(sed -n 's/pid=\([0-9]*\).*/\1/p' $B/ready.out)
		i=0; while [ -n "$wpid" ] && [ -d /proc/$wpid ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	done
	WALK_MS=$(sort -g $B/walk.ms | sed -n 2p)
	out "$(printf '%-36s %10s %9s %13s %9s' "cs-walk, +$SCALE spawned (median of 3)" "${WALK_MS:--}" - - -)"
}

# ratio_row LABEL MS: MS against the walk's median.
ratio_row() {
	out "$(printf '%-36s %10s' "$1" "$(awk -v d="$2" -v w="$WALK_MS" 'BEGIN { if (d > 0 && w > 0) printf "%.2f", d / w; else print "-" }')")"
}

bench_scale() {
	out ""
	out "== 5a. start-up scan and tagging, memory (READY from exec to sd_notify; tagged: spawned children with a cookie right after READY)"
	out "$(printf '%-36s %10s %9s %13s %9s' "processes, groups" "READY ms" "tracked" "tagged" "RSS KiB")"
	spid=
	conf "[Group spawn]
MatchExe=$B/bin/spawn
"
	scale_row "boot set only, 1 group"
	conf "$(groups_conf $NGROUPS)
"
	scale_row "boot set only, $NGROUPS groups"
	$B/bin/spawn $SCALE > $B/spawn.out & spid=$!
	i=0; while ! grep -q ready $B/spawn.out && [ $i -lt 3000 ]; do sleep 0.1; i=$((i + 1)); done
	note "$(cat $B/spawn.out)"
	conf "[Group spawn]
MatchExe=$B/bin/spawn
"
	scale_row "+$SCALE spawned, 1 group"
	ms_one=$ms
	conf "$(groups_conf $NGROUPS)
"
	scale_row "+$SCALE spawned, $NGROUPS groups"
	ms_many=$ms
	walk_rows
	ratio_row "ratio to cs-walk, 1 group" "$ms_one"
	ratio_row "ratio to cs-walk, $NGROUPS groups" "$ms_many"
	kill $spid; wait $spid 2>/dev/null
	spid=
}
