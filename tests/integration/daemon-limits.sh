# What the daemon's own limits cannot be made to do by one user:
# - MaxKeys: with 16, one user's Per=process processes get at most a
#   quarter of the 15 not kept for root (3); another user's process that a
#   Per=user rule names is still placed, and explain says of one of the
#   first user's processes left without a key that it does not agree;
# - Per=cgroup: two cgroups whose paths agree in their first 511
#   characters (longer than a key) are two keys: two users placed into the
#   group by name (run -g) and two processes a rule places get distinct
#   cookies, where a key cut to fit made them share one.
# Cookies read from the kernel (coresched get).
. /tests/integration/lib.sh
. /tests/integration/daemon-lib.sh
H=/usr/libexec/coresched-tests

worker browser
worker victim
worker pod
L1=$(printf 'a%.0s' $(seq 255)); L2=$(printf 'b%.0s' $(seq 250))
base=/sys/fs/cgroup/limits/$L1/$L2
mkdir -p "$base/one" "$base/two" || { fail cgroup-setup "mkdir $base failed"; exit 0; }
chown -R 1000:1000 "$base/two"; chown -R 1001:1001 "$base/one"
cat > "$CFG/coreschedd.conf" <<EOF2
[Daemon]
ReconcileSec=1
MaxKeys=16
[Group browsers]
MatchExe=$BIN/browser
Per=process
[Group tenants]
MatchExe=$BIN/victim
MatchUser=1001
Per=user
[Group pods]
MatchExe=$BIN/pod
MatchCgroup=/limits/*/*/*
Per=cgroup
[Group named]
Per=cgroup
MatchCgroup=/nomatch
AllowUsers=1000 1001
EOF2
daemon_start || exit 1

# ---- MaxKeys: a user's share ----
for i in 1 2 3 4 5; do bg cs-runas 1000 1000 $BIN/browser 1; eval b$i=\$!; done
bg cs-runas 1001 1001 $BIN/victim 1; v=$!
wait_for tagged $v
expect_set other-user-placed "$(cookie $v)"
sleep 2 # the retries of the unsettled, once a second, change nothing
n=0 left=
for p in $b1 $b2 $b3 $b4 $b5; do
	if tagged $p; then n=$((n + 1)); else left=$p; fi
done
expect share-of-one-user "$n" 3
if [ -n "$left" ]; then
	expect unplaced-does-not-agree "$(coresched explain -J $left | cs-json agrees)" false
else
	fail unplaced-does-not-agree "every browser has a cookie"
fi
grep -q "holds its share of MaxKeys=" "$DLOG" && pass share-logged || fail share-logged "$(tail -n 5 "$DLOG")"
kill -9 $b1 $b2 $b3 $b4 $b5 $v 2>/dev/null

# ---- Per=cgroup: a path longer than a key ----
in_cg() { # CGROUP UID CMD...: CMD as UID inside CGROUP
	local cg=$1 uid=$2
	shift 2
	sh -c "echo \$\$ > '$base/$cg/cgroup.procs' && exec cs-runas $uid $uid $*" &
	cleanup_pids="$cleanup_pids $!"
}
runs() { [ "$(readlink /proc/$1/exe)" = "$2" ]; }
in_cg one 1001 coresched run -g named -- $H/cs-hold 1000; n1=$!
in_cg two 1000 coresched run -g named -- $H/cs-hold 1000; n2=$!
in_cg one 1001 $BIN/pod 1; r1=$!
in_cg two 1000 $BIN/pod 1; r2=$!
wait_for runs $n1 $H/cs-hold; wait_for runs $n2 $H/cs-hold
wait_for tagged $r1; wait_for tagged $r2
expect_distinct long-cgroup-by-name-two-keys "$(cookie $n1)" "$(cookie $n2)"
expect_distinct long-cgroup-by-rule-two-keys "$(cookie $r1)" "$(cookie $r2)"
expect long-cgroup-rule-group "$(coresched ps -J $r1 | cs-json processes.0.group)" pods
kill -9 $n1 $n2 $r1 $r2 2>/dev/null
daemon_stop
