# coreschedd places processes by rules: each Match kind and each Per= mode,
# for processes started before and after the daemon. Cookies read back.
. /tests/integration/lib.sh
. /tests/integration/daemon-lib.sh

for w in builder uworker tworker browser trusted gworker leaver; do worker $w; done
mkdir -p /sys/fs/cgroup/tenants/a /sys/fs/cgroup/tenants/b
cat > "$CFG/coreschedd.conf" <<EOF2
[Daemon]
ReconcileSec=2
[Group build]
MatchComm=builder
[Group users]
MatchExe=$BIN/uworker
Per=user
[Group tenants]
MatchCgroup=/tenants/*
Per=cgroup
[Group browsers]
MatchExe=$BIN/browser
Per=process
[Group system]
MatchExe=$BIN/trusted
Trusted=yes
[Group staffers]
MatchGroup=staff
MatchExe=$BIN/gworker
[Group leavers]
MatchExe=$BIN/leaver
MatchUser=1002
EOF2
in_cgroup() { # CGROUP CMD...: start CMD inside CGROUP
	sh -c "echo \$\$ > /sys/fs/cgroup/$1/cgroup.procs && exec $2" &
	cleanup_pids="$cleanup_pids $!"
}

# Before the daemon: one of each, and a trusted one carrying a cookie.
bg $BIN/builder 1; b0=$!
bg cs-runas 1000 1000 $BIN/uworker 1; u0=$!
in_cgroup tenants/a "$BIN/tworker 1"; ta0=$!
bg coresched new -- $BIN/trusted 1; tr0=$!
wait_for tagged $tr0
expect_set trusted-tagged-before "$(cookie $tr0)"

daemon_start || exit 1

bg $BIN/builder 1; b1=$!
bg cs-runas 1000 1000 $BIN/uworker 1; u1=$!
bg cs-runas 1001 1001 $BIN/uworker 1; u2=$!
in_cgroup tenants/a "$BIN/tworker 1"; ta1=$!
in_cgroup tenants/b "$BIN/tworker 1"; tb1=$!
bg $BIN/browser 1; p1=$!
bg $BIN/browser 1; p2=$!
bg cs-runas 1000 50 $BIN/gworker 1; g1=$!
bg cs-runas 1001 1001 $BIN/gworker 1; g2=$!
sleep 0.5

# each placed (g2, which no group claims, is judged below); a slow daemon
# may reach one well after another
for p in $b1 $u0 $u1 $u2 $ta0 $ta1 $tb1 $p1 $p2 $g1; do wait_for tagged $p; done
expect_set per-group-set "$(cookie $b1)"
expect per-group-before-and-after "$(cookie $b0)" "$(cookie $b1)"
expect per-group-all-threads "$(all_cookies $b1)" "$(cookie $b1)"

expect_set per-user-set "$(cookie $u1)"
expect per-user-same-uid "$(cookie $u0)" "$(cookie $u1)"
expect_distinct per-user-two-users "$(cookie $u1)" "$(cookie $u2)"
expect_distinct per-user-not-build "$(cookie $u1)" "$(cookie $b1)"

# A cgroup path longer than the kernel prints (over 4095 characters:
# nested one level at a time, as a user can in a delegated subtree; the
# last levels named relative to the 19th, whose path is near PATH_MAX).
deep=$(printf 'd%.0s' $(seq 200))
runs() { [ "$(readlink /proc/$1/exe)" = "$2" ]; }
# in_deep_cgroup BASE EXE [CMD...]: run CMD (EXE itself when none) 22
# levels of 200 characters below /sys/fs/cgroup/BASE, moved there as root;
# DEEP_PID is its pid once it runs EXE.
in_deep_cgroup() {
	local base=$1 exe=$2
	shift 2
	[ $# -gt 0 ] || set -- "$exe"
	(
		cd "/sys/fs/cgroup/$base" || exit 1
		for i in $(seq 19); do mkdir "$deep" && cd "$deep" || exit 1; done
		mkdir -p "$deep/$deep/$deep" || exit 1
		exec sh -c "echo \$\$ > $deep/$deep/$deep/cgroup.procs && exec $* 1"
	) &
	DEEP_PID=$!
	cleanup_pids="$cleanup_pids $DEEP_PID"
	wait_for runs $DEEP_PID "$exe"
	echo "  deep cgroup under /$base: the kernel prints $(wc -c < /proc/$DEEP_PID/cgroup 2>&1) bytes of /proc/$DEEP_PID/cgroup"
}
# It leaves the process placed by the rules on its program and user.
in_deep_cgroup "" $BIN/uworker cs-runas 1000 1000 $BIN/uworker
udp=$DEEP_PID
settles "$udp" "$(cookie $u1)"
expect per-user-deep-cgroup "$(cookie $udp)" "$(cookie $u1)"
# Nested as deep inside a tenant's cgroup: the kernel cuts the path, and
# its whole names still say the tenant (MatchCgroup=/tenants/*, Per=cgroup).
in_deep_cgroup tenants/a $BIN/tworker
tdp=$DEEP_PID
settles "$tdp" "$(cookie $ta1)"
expect per-cgroup-deep-in-tenant "$(cookie $tdp)" "$(cookie $ta1)"
# ps and explain say the path was cut, and show the ancestor that stands for it.
row=$(coresched ps -o PID,CGROUP 2>&1 | awk -v p=$tdp '$1 == p')
case "$row" in
*" (cut) /tenants/a/"*"/...") pass ps-shows-cut-cgroup ;;
*) fail ps-shows-cut-cgroup "ps row of $tdp: $row" ;;
esac
coresched explain -J $tdp 2>&1 | grep -q '"cgroup_cut": *true' && pass explain-json-cut-cgroup ||
	fail explain-json-cut-cgroup "$(coresched explain -J $tdp 2>&1 | grep cgroup)"
coresched explain $tdp 2>&1 | grep -q '^cgroup: /tenants/a/.*(cut by the kernel' && pass explain-shows-cut-cgroup ||
	fail explain-shows-cut-cgroup "$(coresched explain $tdp 2>&1 | grep '^cgroup')"
coresched explain -J $ta1 2>&1 | grep -q '"cgroup_cut": *false' && pass explain-json-whole-cgroup ||
	fail explain-json-whole-cgroup "$(coresched explain -J $ta1 2>&1 | grep cgroup)"

expect_set per-cgroup-set "$(cookie $ta1)"
expect per-cgroup-same-cgroup "$(cookie $ta0)" "$(cookie $ta1)"
expect_distinct per-cgroup-two-cgroups "$(cookie $ta1)" "$(cookie $tb1)"

expect_distinct per-process-each-own "$(cookie $p1)" "$(cookie $p2)"

settles $tr0 0x0
expect trusted-cleared "$(cookie $tr0)" 0x0

expect_set match-group-member "$(cookie $g1)"
expect match-group-nonmember "$(cookie $g2)" 0x0

bg sleep 100; unmatched=$!
sleep 0.3
expect unmatched-stays-zero "$(cookie $unmatched)" 0x0

# A process that escapes (a new cookie of its own) is pulled back.
# The escape itself is proven by the repair count (reading the new cookie
# back races with a reconcile pass on a slow machine).
repairs() { coresched status | sed -n 's/^  repairs: //p'; }
group=$(cookie $b1)
r0=$(repairs)
coresched new -d $b1 && pass escaped || fail escaped "coresched new -d $b1 failed"
settles $b1 "$group"
expect escape-repaired-create "$(cookie $b1)" "$group"
r1=$(repairs)
[ "${r1:-0}" -gt "${r0:-0}" ] && pass escape-counted || fail escape-counted "repairs $r0 -> $r1"
coresched copy -s $unmatched -d $b1
settles $b1 "$group"
expect escape-repaired-share-from "$(cookie $b1)" "$group"
r2=$(repairs)
[ "${r2:-0}" -gt "${r1:-0}" ] && pass escape-share-from-counted || fail escape-share-from-counted "repairs $r1 -> $r2"

# Moving to another cgroup moves the process to that cgroup's key.
echo $ta1 > /sys/fs/cgroup/tenants/b/cgroup.procs
settles $ta1 "$(cookie $tb1)"
expect cgroup-move-followed "$(cookie $ta1)" "$(cookie $tb1)"

# A process whose main thread has exited is judged by a thread that runs:
# its program, its uid (set by that thread alone, which the exited main
# thread's status does not show) and its cgroup (a move passes over the
# exited thread). Cookies read from the live thread.
live_thread() { tids "$1" | grep -vx "$1" | head -n 1; }
left_uid() { grep -q "^Uid:[[:space:]]*$2[[:space:]]" /proc/$1/task/$(live_thread $1)/status 2>/dev/null; }
bg $BIN/leaver 1 --leave 1002; lv=$!
wait_for left_uid $lv 1002
lvt=$(live_thread $lv)
expect zombie-leader-premise "$(awk '{print $3}' /proc/$lv/stat) $(sed -n 's/^Uid:[[:space:]]*\([0-9]*\).*/\1/p' /proc/$lv/status)" "Z 0"
wait_for tagged $lvt
expect_set zombie-leader-uid-of-live-thread "$(cookie $lvt)"
leader_exited() { [ "$(awk '{print $3}' /proc/$1/stat 2>/dev/null)" = Z ]; }
bg $BIN/tworker 1 --leave 0; lc=$!
wait_for leader_exited $lc
lct=$(live_thread $lc)
echo $lc > /sys/fs/cgroup/tenants/b/cgroup.procs
settles $lct "$(cookie $tb1)"
[ "$(grep ^0:: /proc/$lc/cgroup)" != 0::/tenants/b ] && pass zombie-leader-cgroup-premise ||
	fail zombie-leader-cgroup-premise "the exited main thread's cgroup file names the new cgroup"
expect zombie-leader-cgroup-of-live-thread "$(cookie $lct)" "$(cookie $tb1)"

# A foreign cookie on an unmatched process is left alone.
coresched new -d $unmatched
foreign=$(cookie $unmatched)
sleep 3
expect foreign-left-alone "$(cookie $unmatched)" "$foreign"

# kill -9 and start again: nobody moves, group cookies are kept.
before=""
for p in $b0 $b1 $u0 $u1 $u2 $ta0 $tb1 $p1 $p2 $g1; do before="$before $(cookie $p)"; done
kill -9 $DPID; wait $DPID 2>/dev/null
expect cookies-survive-crash "$(for p in $b0 $b1 $u0 $u1 $u2 $ta0 $tb1 $p1 $p2 $g1; do printf ' %s' "$(cookie $p)"; done)" "$before"
daemon_start || exit 1
sleep 1
after=""
for p in $b0 $b1 $u0 $u1 $u2 $ta0 $tb1 $p1 $p2 $g1; do after="$after $(cookie $p)"; done
expect restart-moves-nobody "$after" "$before"
bg $BIN/builder 1; b2=$!
settles $b2 "$(cookie $b1)"
expect restart-keeps-group-cookie "$(cookie $b2)" "$(cookie $b1)"

# Reload: a broken file keeps the old policy and names file:line.
printf '[Group bad]\nMatchExe=/x\nBogusKey=1\n' > "$CFG/rules.d/10-bad.conf"
kill -HUP $DPID
if wait_for grep -q "10-bad.conf:3" "$DLOG"; then pass reload-broken-names-line; else fail reload-broken-names-line "$(tail -5 $DLOG; kill -0 $DPID || echo daemon died)"; fi
bg $BIN/builder 1; b3=$!
settles $b3 "$(cookie $b1)"
expect reload-broken-keeps-policy "$(cookie $b3)" "$(cookie $b1)"
# The daemon's main thread carries the cookie it last gave (coreschedd(8),
# CONFINEMENT), here b3's; 0 once it cleared the builders below.
expect daemon-carries-last-cookie "$(cookie $DPID)" "$(cookie $b3)"
# A good reload: builders become trusted.
rm "$CFG/rules.d/10-bad.conf"
sed -i 's/^MatchComm=builder$/MatchComm=builder\nTrusted=yes/' "$CFG/coreschedd.conf"
kill -HUP $DPID
settles $b1 0x0
expect reload-changes-existing "$(cookie $b1)" 0x0
expect daemon-carries-zero-after-clearing "$(cookie $DPID)" 0x0
bg $BIN/builder 1; b4=$!
sleep 0.5
expect reload-changes-new "$(cookie $b4)" 0x0

daemon_stop
expect stop-leaves-cookies "$(cookie $u1)" "$(echo $after | awk '{print $4}')"
