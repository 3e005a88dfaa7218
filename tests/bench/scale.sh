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
	conf "$(groups_conf $NGROUPS)
"
	scale_row "+$SCALE spawned, $NGROUPS groups"
	kill $spid; wait $spid 2>/dev/null
	spid=
}
