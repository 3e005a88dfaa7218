# The control socket decides about an unprivileged caller as the kernel
# would: no setuid or non-dumpable process of the user's, no undoing of
# root's placement, supplementary groups count; idle users can't lock root
# or the hook out; an unprivileged view shows only the caller's own.
. /tests/integration/lib.sh
. /tests/integration/daemon-lib.sh

H=/usr/libexec/coresched-tests
worker uworker
mkdir -p /sys/fs/cgroup/cs-secret-pod
cp /tests/conf-shipped/rules.d/60-containers.conf "$CFG/rules.d/"
cat > "$CFG/coreschedd.conf" <<EOF2
[Daemon]
IdleTimeoutSec=3
ControlGroup=root
[Group open]
MatchComm=opennomatch
AllowUsers=tester
[Group staffonly]
MatchComm=staffnomatch
AllowGroups=staff
[Group rootonly]
MatchComm=rootnomatch
[Group users]
MatchExe=$BIN/uworker
Per=user
[Group secret]
MatchCgroup=/cs-secret-pod
Per=cgroup
EOF2
daemon_start || exit 1
asuser() { cs-runas 1000 1000 coresched "$@"; }
# wait_for retries a command: this one re-reads what it tests each time.
more_lines() { [ "$(wc -l < "$1")" -gt "$2" ]; }
has() {
	if printf '%s\n' "$2" | grep -qE -- "$3"; then pass "$1"; else fail "$1" "no /$3/ in: $2"; fi
}
hasnt() {
	if printf '%s\n' "$2" | grep -qE -- "$3"; then fail "$1" "/$3/ in: $2"; else pass "$1"; fi
}

# ---- (a) targets judged as the kernel judges them ----
cp $H/cs-hold /tmp/cs-suid && chown 0:0 /tmp/cs-suid && chmod 4755 /tmp/cs-suid
bg cs-runas 1000 1000 /tmp/cs-suid 100; suid=$!
bg cs-runas 1000 1000 $H/cs-hold nodump 100; nodump=$!
bg cs-runas 1000 1000 $H/cs-hold 100; plain=$!
bg cs-runas 1000 1000 $H/cs-hold 100; byroot=$!
# each has exec'd its program (cs-runas first drops to uid 1000, then execs)
runs() { [ "$(readlink /proc/$1/exe)" = "$2" ]; }
wait_for runs $suid /tmp/cs-suid
for p in $nodump $plain $byroot; do wait_for runs $p $H/cs-hold; done
expect suid-helper-ids "$(awk '/^Uid:/{print $2, $3, $4}' /proc/$suid/status)" "1000 0 0"
msg=$(asuser assign -g open $suid 2>&1)
expect suid-refused-rc $? 6
has suid-refused-message "$msg" 'permission denied'
expect suid-unchanged "$(cookie $suid)" 0x0
asuser assign -g open $nodump 2>/dev/null
expect nodump-refused-rc $? 6
expect nodump-unchanged "$(cookie $nodump)" 0x0
asuser assign -g open $plain
expect plain-accepted-rc $? 0
expect_set plain-tagged "$(cookie $plain)"
coresched assign -g rootonly $byroot
rootcookie=$(cookie $byroot)
expect_set root-placed "$rootcookie"
msg=$(asuser assign -g open $byroot 2>&1)
expect root-placement-kept-rc $? 6
has root-placement-kept-message "$msg" 'another user'
expect root-placement-kept "$(cookie $byroot)" "$rootcookie"
msg=$(asuser run -g rootonly -- true 2>&1)
expect closed-group-rc $? 6
has closed-group-names-allow "$msg" 'AllowUsers=/AllowGroups='
hasnt closed-group-not-ptrace "$msg" 'CAP_SYS_PTRACE'
# The daemon's reason, printed whole, for each way of asking to join.
closed='coresched: permission denied: the group does not allow this user (AllowUsers=/AllowGroups=)'
expect closed-group-run-message "$msg" "$closed"
plaincookie=$(cookie $plain)
msg=$(asuser assign -g rootonly $plain 2>&1)
expect closed-group-assign-rc $? 6
expect closed-group-assign-message "$msg" "$closed"
expect closed-group-assign-unchanged "$(cookie $plain)" "$plaincookie"
msg=$(asuser -g rootonly -v assign $plain 2>&1)
expect closed-group-assign-options-first-rc $? 6
expect closed-group-assign-options-first-message "$msg" "$closed"
msg=$(asuser run -g rootonly true 2>&1)
expect closed-group-run-no-dashes-message "$msg" "$closed"

# A process of tester's uid holding a capability tester lacks (a service
# with User= and AmbientCapabilities=): the kernel refuses tester to share
# a cookie with it, and so does the daemon.
bg cs-keepcaps 1000 1000 $H/cs-hold 100; capped=$!
wait_for runs $capped $H/cs-hold
expect capped-holds-a-capability "$(awk '/^CapPrm:/{print $2}' /proc/$capped/status)" 0000000000002000
cs-runas 1000 1000 coresched copy -s $plain -d $capped 2>/dev/null
expect capped-kernel-refuses-rc $? 6
msg=$(asuser assign -g open $capped 2>&1)
expect capped-refused-rc $? 6
has capped-refused-message "$msg" 'capabilities'
expect capped-unchanged "$(cookie $capped)" 0x0

# Root's clear stays: tester may not put the process back into a group.
bg cs-runas 1000 1000 $H/cs-hold 100; cleared=$!
wait_for runs $cleared $H/cs-hold
asuser assign -g open $cleared
expect_set cleared-first-tagged "$(cookie $cleared)"
coresched clear $cleared
expect cleared-by-root "$(cookie $cleared)" 0x0
msg=$(asuser assign -g open $cleared 2>&1)
expect cleared-kept-rc $? 6
has cleared-kept-message "$msg" 'another user'
expect cleared-kept "$(cookie $cleared)" 0x0

# A thread id is named as one (pidfd_open() says EINVAL, not the kernel
# lacking core scheduling); a zombie is no such process, for its owner too.
bg cs-runas 1000 1000 cs-threads 1; th=$!
wait_for threads_ready $th 2
tid=$(tids $th | grep -vx $th)
msg=$(asuser assign -g open $tid 2>&1)
expect thread-id-rc $? 1
expect thread-id-message "$msg" "coresched: cannot assign PID $tid: $tid is a thread of process $th: name the process"
bg cs-runas 1000 1000 /bin/sh -c 'sh -c "exit 0" & exec sleep 100'; zp=$!
zombie_of() { # the child of $1 that has exited and is not reaped
	local f pid comm st ppid rest
	for f in /proc/[0-9]*/stat; do
		read -r pid comm st ppid rest < "$f" 2>/dev/null || continue
		[ "$ppid" = "$1" ] && [ "$st" = Z ] && echo "$pid"
	done
}
has_zombie() { [ -n "$(zombie_of $1)" ]; }
wait_for has_zombie $zp
zombie=$(zombie_of $zp)
msg=$(asuser assign -g open $zombie 2>&1)
expect zombie-rc $? 5
expect zombie-message "$msg" "coresched: cannot assign PID $zombie: no such process"

# ---- (b) supplementary groups ----
bg cs-runas 1001 1001,50 coresched run -g staffonly -- $H/cs-hold 100; staff=$!
wait_for tagged $staff
expect_set supplementary-accepted "$(cookie $staff)"
msg=$(cs-runas 1001 1001 coresched run -g staffonly -- true 2>&1)
expect no-supplementary-refused $? 6
expect no-supplementary-message "$msg" "$closed"

# ---- (d) an unprivileged view ----
bg cs-runas 1000 1000 $BIN/uworker 1; mine=$!
bg cs-runas 1001 1001 $BIN/uworker 1; theirs=$!
bg cs-runas 1001 1001 $H/cs-hold 100; pod=$!
echo $pod > /sys/fs/cgroup/cs-secret-pod/cgroup.procs
wait_for tagged $mine
wait_for tagged $theirs
coresched assign -g secret $pod
wait_for tagged $pod
out=$(coresched list -n -r -o GROUP,KEY)
has root-sees-secret-key "$out" '^secret /cs-secret-pod$'
out=$(asuser list -n -r -o GROUP,KEY)
has user-list-own-key "$out" '^users 1000$'
hasnt user-list-no-other-key "$out" '^users 1001$'
hasnt user-list-no-cgroup-path "$out" 'cs-secret-pod'
out=$(asuser ps -n -r -o PID,CGROUP)
has user-ps-own "$out" "^$mine "
hasnt user-ps-no-other-pid "$out" "^($theirs|$pod) "
hasnt user-ps-no-cgroup-path "$out" 'cs-secret-pod'
out=$(asuser stats -c 1 -J 2>&1)
hasnt user-stats-no-other-key "$out" '"1001"|cs-secret-pod'
out=$(asuser status 2>&1)
hasnt user-status-no-other-key "$out" '1001|cs-secret-pod'

# ---- (c) 9 users x 8 idle connections ----
idlers=""
for u in 2001 2002 2003 2004 2005 2006 2007 2008 2009; do
	cs-runas $u $u $H/cs-idle "$SOCK" 8 6 > /tmp/idle.$u 2>&1 &
	idlers="$idlers $!"
done
sleep 1
out=$(coresched status); rc=$?
expect idle-root-status-rc $rc 0
expect idle-root-status-pid "$(printf '%s\n' "$out" | sed -n 's/^pid: //p')" "$DPID"
# a user turned away is told why, once the daemon has taken the idle
# connections in (a loaded machine may take longer than the second above)
i=0
while :; do
	out=$(asuser status 2>&1); rc=$?
	{ [ $rc = 1 ] || [ $i -ge 20 ]; } && break
	i=$((i + 1))
	sleep 0.2
done
expect idle-user-refused-rc $rc 1
has idle-user-refused-why "$out" 'limit reached: too many unprivileged clients \(MaxClients=, MaxClientsPerUser=\)'
bg $H/cs-hold 100; cinit=$!
printf '{"ociVersion":"1.0.2","id":"idle-ctr","status":"creating","pid":%d,"bundle":"/tmp"}' $cinit |
	coresched oci-hook
expect idle-hook-rc $? 0
expect_set idle-hook-tagged "$(cookie $cinit)"
wait $idlers
refused=0; dropped=0; kept=0
for u in 2001 2002 2003 2004 2005 2006 2007 2008 2009; do
	eval "$(tr ' ' '\n' < /tmp/idle.$u | sed -n 's/^\(refused\|dropped\|kept\)=\([0-9]*\)$/n_\1=\2/p')"
	refused=$((refused + n_refused)); dropped=$((dropped + n_dropped)); kept=$((kept + n_kept))
done
expect idle-shared-slots "$((72 - refused))" 56
expect idle-all-dropped "$dropped $kept" "56 0"

# ---- (e) a pid reused between connect and request grants nothing ----
# tester connects, and the connecting process exits; a child holds the
# connection while the pid goes to another process, then asks. Judged by
# what was known at connect, not by what the pid names now.
# reuse_to accepted|late UID MESSAGE...: accepted: the daemon accepts the
# connection while its peer lives (and holds its pidfd); late: the daemon
# is stopped until the peer has exited (the kernel then has no pidfd of
# it to give). Sets reused (empty if the pid could not be had, and why
# says why) to the pid, now running `cs-hold 100` as UID; the replies are
# in /tmp/reuse.out after the connecting pid.
reuse_to() {
	local when=$1 as=$2 gone
	shift 2
	rm -f /tmp/reuse-go /tmp/reuse.out
	if [ "$when" = late ]; then
		kill -STOP "$DPID"
		cs-runas 1000 1000 $H/cs-reuse "$SOCK" /tmp/reuse-go "$@" > /tmp/reuse.out 2>&1 &
	else
		cs-runas 1000 1000 $H/cs-reuse --accepted "$SOCK" /tmp/reuse-go "$@" > /tmp/reuse.out 2>&1 &
	fi
	gone=$!
	wait "$gone"
	[ "$when" = late ] && kill -CONT "$DPID"
	reused=""
	if ! cs-pidat "$gone" cs-runas $as $as $H/cs-hold 100 > /dev/null 2> /tmp/reuse-pidat.err; then
		why=$(cat /tmp/reuse-pidat.err)
		return 0
	fi
	reused=$gone
	cleanup_pids="$cleanup_pids $reused"
	wait_for runs $reused $H/cs-hold # its own uid, dumpable: as a user's process is
	expect reuse-$when-$as-connector-pid "$(head -n1 /tmp/reuse.out)" "$reused"
	touch /tmp/reuse-go
	wait_for more_lines /tmp/reuse.out $#
}
run_msg='{"method":"io.coresched.Run","parameters":{"group":"open"}}'
# To another process of tester's, which tester may place: acting on the
# pid now would tag it. Run places no one (the caller is gone), though
# the process could have been placed (tester does it afterwards, by pid).
for when in accepted late; do
	reuse_to $when 1000 "$run_msg"
	if [ -z "$reused" ]; then
		skip reuse-$when-own "the pid could not be given to another process: $why"
		continue
	fi
	run=$(sed -n 2p /tmp/reuse.out)
	has reuse-$when-own-run-caller-gone "$run" "\"error\":\"io.coresched.AssignFailed\".*\"pid\": *$reused[,}]"
	hasnt reuse-$when-own-run-assigned "$run" '"assigned"'
	expect reuse-$when-own-process-untouched "$(cookie "$reused")" 0x0
	asuser assign -g open "$reused"
	expect reuse-$when-own-placeable-rc $? 0
	expect_set reuse-$when-own-placeable "$(cookie "$reused")"
done
# To a process of root's (group root: ControlGroup=, privileged): Reload
# is refused, as it was to tester at connect.
reuse_to accepted 0 '{"method":"io.coresched.Reload","parameters":{}}'
if [ -z "$reused" ]; then
	skip reuse-root "the pid could not be given to another process: $why"
else
	has reuse-reload-refused "$(sed -n 2p /tmp/reuse.out)" '"error":"io.coresched.PermissionDenied"'
	expect reuse-root-process-untouched "$(cookie "$reused")" 0x0
fi
