# An exec storm: thousands of short-lived matching processes, with
# long-lived ones started during it. Afterwards every live process agrees
# with policy, checked by the test's own scan of /proc (not the daemon's
# word). Reconcile is off, so the event path alone is measured.
. /tests/integration/lib.sh
. /tests/integration/daemon-lib.sh

N=${STORM_N:-2000}
cp /usr/libexec/coresched-tests/cs-spin "$BIN/stormer" # matching, exits at once
worker longer
cat > "$CFG/coreschedd.conf" <<EOF2
[Daemon]
ReconcileSec=0
[Group storm]
MatchExe=$BIN/stormer
[Group long]
MatchExe=$BIN/longer
Per=user
EOF2
daemon_start || exit 1

storm() { i=0; while [ $i -lt $1 ]; do "$BIN/stormer" 0; i=$((i + 1)); done; }
start=$(date +%s)
storm $((N / 2)) &
s1=$!
storm $((N / 2)) &
s2=$!
for i in $(seq 1 20); do
	bg "$BIN/longer" 1
	bg cs-runas 1000 1000 "$BIN/longer" 1
	bg sleep 1000
	sleeps="$sleeps $!"
	sleep 0.1
done
wait $s1 $s2
echo "storm: $N execs in $(( $(date +%s) - start )) s"
sleep 1

mismatch=0 n_long=0 root_c="" user_c=""
for d in /proc/[0-9]*; do
	p=${d#/proc/}
	exe=$(readlink "$d/exe" 2>/dev/null) || continue
	c=$(cookie "$p")
	[ -n "$c" ] || continue
	case $exe in
	"$BIN/longer")
		n_long=$((n_long + 1))
		uid=$(awk '/^Uid:/ {print $2}' "$d/status")
		if [ "$uid" = 0 ]; then
			[ -z "$root_c" ] && root_c=$c
			[ "$c" = "$root_c" ] && [ "$c" != 0x0 ] || { mismatch=$((mismatch + 1)); echo "mismatch: $p root longer $c"; }
		else
			[ -z "$user_c" ] && user_c=$c
			[ "$c" = "$user_c" ] && [ "$c" != 0x0 ] || { mismatch=$((mismatch + 1)); echo "mismatch: $p user longer $c"; }
		fi
		;;
	esac
	case " $sleeps " in *" $p "*)
		[ "$c" = 0x0 ] || { mismatch=$((mismatch + 1)); echo "mismatch: $p sleep $c"; } ;;
	esac
done
echo "storm: $n_long long-lived processes checked, $mismatch mismatches"
expect storm-long-lived-count "$n_long" 40
expect storm-no-mismatch "$mismatch" 0
expect_distinct storm-users-differ "$root_c" "$user_c"
kill -0 $DPID && pass storm-daemon-alive || fail storm-daemon-alive "daemon died: $(tail -3 $DLOG)"
# Four CPUs sent the storm's events, each numbering its own: none missing
# (the daemon would say so and rescan, where nothing was lost).
if grep -q "missing from the kernel's numbering" "$DLOG"; then
	fail storm-numbers-follow "$(grep -m1 "missing from the kernel's numbering" "$DLOG")"
else
	pass storm-numbers-follow
fi
