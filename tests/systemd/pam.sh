# pam_coresched in real logins: su, runuser, login on a pty, ssh with a
# key, and a user's systemd --user manager. The user's program reads its
# own cookie first thing in main() (cs-session-probe): it must already have
# the user's, inherited, not set by the daemon after its exec. The session
# opener (su's and runuser's parent, login, sshd's monitor) must be back to
# its own cookie while the session lives. Then the daemon is stopped and
# each failure mode does what it says.
T=pam
. ./lib.sh
probe=/usr/libexec/coresched-tests/cs-session-probe
drive=/usr/libexec/coresched-tests/pam-drive
out=/run/pam-test
mkdir -p $out
chmod 1777 $out

cat > /etc/coresched/rules.d/40-pamtest.conf <<'C'
[Group users]
MatchUser=tester other
Per=user

[Group openers]
MatchComm=pam-drive
C
was=$(systemctl is-active coreschedd.service)
systemctl restart coreschedd || { fail setup "coreschedd did not start"; exit 1; }
# Keepers: a process of tester's and one named pam-drive hold their keys
# (and so their cookies) alive from one session to the next.
mkdir -p $out/bin
cp /bin/sleep $out/bin/pam-drive
systemd-run -q --uid=1000 --gid=1000 --slice=tenant.slice --unit=pam-keeper-tester sleep 900
systemd-run -q --slice=tenant.slice --unit=pam-keeper $out/bin/pam-drive 900

# ---- the pam-auth-update profile ----
if DEBIAN_FRONTEND=noninteractive pam-auth-update --enable coresched >$out/pam-auth-update.log 2>&1; then
	pass pam-auth-update
else
	fail pam-auth-update "$(tail -n3 $out/pam-auth-update.log)"
fi
for f in common-session common-session-noninteractive; do
	grep -qE '^session[[:space:]]+optional[[:space:]]+pam_coresched\.so' /etc/pam.d/$f &&
		pass "profile-$f" || fail "profile-$f" "no pam_coresched.so line in /etc/pam.d/$f"
done

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" "$2" | head -n1; }
origin() { coresched ps -n -o ORIGIN "$1" 2>/dev/null | tr -d ' '; }
ppid_of() { sed -n 's/^PPid:[[:space:]]*//p' /proc/$1/status; }
comm_of() { cat /proc/$1/comm 2>/dev/null; }
probe_started() { grep -q '^probe-child:' "$1"; }
# ancestor COMM PID: the nearest ancestor of PID named COMM (login shells
# such as dash fork the command rather than execute it)
ancestor() {
	local p
	p=$(ppid_of "$2")
	while [ -n "$p" ] && [ "$p" -gt 1 ]; do
		[ "$(comm_of "$p")" = "$1" ] && { echo "$p"; return 0; }
		p=$(ppid_of "$p")
	done
	return 1
}

# check NAME FILE OPENER-PID: the probe that wrote FILE started with the
# user's cookie (set, and its child has it too), the daemon counts it as
# the rules' (a session's processes are judged by the rules at each exec),
# and OPENER, still alive, is not in it.
# ORIGIN (default rule): pam-drive runs its command as root, which no rule
# claims: it keeps the user's key as a sticky member.
check() {
	local name=$1 f=$2 opener=$3 want=${4:-rule} p c
	p=$(field pid "$f"); c=$(field cookie "$f")
	expect_set "$name-first-instruction" "$c"
	expect "$name-descendant" "$(sed -n 's/^probe-child: cookie=//p' "$f")" "$c"
	expect "$name-origin" "$(origin "$p")" "$want"
	expect "$name-user-key" "$(coresched ps -n -o GROUP,KEY "$p" 2>/dev/null | awk '{ print $1, $2 }')" "users 1000"
	if [ -z "$opener" ] || [ ! -d /proc/$opener ]; then
		fail "$name-opener-back" "opener '$opener' not found alive"
	elif [ "$(cookie "$opener")" = "$c" ]; then
		fail "$name-opener-back" "opener $opener ($(comm_of "$opener")) still carries the user's cookie $c"
	else
		pass "$name-opener-back"
	fi
	kill "$p" 2>/dev/null # the session ends with it
}

# ---- an application of our own, fork model, opener with a cookie of its own ----
cat > /etc/pam.d/pam-drive <<'P'
session required pam_coresched.so debug
P
systemd-run -q --pipe --wait --slice=tenant.slice $drive pam-drive tester $probe 30 > $out/drive.txt 2>&1 &
wait_for probe_started $out/drive.txt
p=$(field pid $out/drive.txt)
opener=$(ppid_of "$p")
expect drive-opener-is-drive "$(comm_of "$opener")" pam-drive
own=$(cookie "$(prop pam-keeper MainPID)")
expect_set drive-opener-own-cookie "$own"
expect drive-opener-back-to-own "$(cookie "$opener")" "$own"
check drive $out/drive.txt "$opener" sticky
wait
expect drive-opener-after-fork "$(sed -n 's/^opener-cookie: //p' $out/drive.txt)" "$own"
tester_cookie=$(field cookie $out/drive.txt)

# Placing a session's opener acts for another user: root alone may.
echo 'session required pam_coresched.so fail=closed' > /etc/pam.d/pam-drive-closed
since=$(date '+%Y-%m-%d %H:%M:%S')
setpriv --reuid=1000 --regid=1000 --clear-groups $drive pam-drive-closed tester true > $out/unpriv.txt 2>&1
expect unprivileged-refused "$?" 2
journalctl -q --since "$since" 2>/dev/null | grep -q 'did not place the session of uid 1000: io.coresched.PermissionDenied' &&
	pass unprivileged-refused-logged || fail unprivileged-refused-logged "no PermissionDenied line in the journal"
rm -f /etc/pam.d/pam-drive-closed

# ---- su and runuser ----
# Debian's runuser stack does not include common-session: an administrator
# who wants runuser's sessions placed adds the module there.
echo 'session optional pam_coresched.so' >> /etc/pam.d/runuser
su - tester -c "$probe 30" > $out/su.txt 2>&1 &
wait_for probe_started $out/su.txt
p=$(field pid $out/su.txt); opener=$(ancestor su "$p")
expect su-opener-found "$(comm_of "$opener")" su
check su $out/su.txt "$opener"
expect su-same-user-key "$(field cookie $out/su.txt)" "$tester_cookie"
wait

runuser -l tester -c "$probe 30" > $out/runuser.txt 2>&1 &
wait_for probe_started $out/runuser.txt
p=$(field pid $out/runuser.txt); opener=$(ancestor runuser "$p")
expect runuser-opener-found "$(comm_of "$opener")" runuser
check runuser $out/runuser.txt "$opener"
wait

runuser -l other -c "$probe" > $out/other.txt 2>&1
expect_distinct two-users-two-cookies "$(field cookie $out/other.txt)" "$tester_cookie"

# ---- login on a pty ----
# tester's login shell runs the probe in its place from ~/.profile (login
# flushes the terminal's input, so nothing is typed).
echo "[ -e $out/login.go ] && exec $probe 30 > $out/login.txt 2>&1" >> ~tester/.profile
touch $out/login.go
(i=0; while [ ! -e $out/login.done ] && [ $i -lt 120 ]; do sleep 1; i=$((i + 1)); done) |
	timeout 150 script -qec "login -f tester" /dev/null > $out/login-pty.txt 2>&1 &
login_ran() { i=0; while [ $i -lt 60 ]; do probe_started $out/login.txt 2>/dev/null && return 0; sleep 1; i=$((i + 1)); done; return 1; }
if login_ran; then
	p=$(field pid $out/login.txt); opener=$(ancestor login "$p")
	expect login-opener-found "$(comm_of "$opener")" login
	check login $out/login.txt "$opener"
else
	skip login "login -f on a pty from script(1) did not run the probe: $(head -c 200 $out/login-pty.txt | tr '\n' ' ')"
fi
rm -f $out/login.go
sed -i '/login\.go/d' ~tester/.profile
touch $out/login.done
wait

# ---- ssh to localhost with a key ----
rm -f /root/.ssh/pamtest; mkdir -p /root/.ssh ~tester/.ssh
ssh-keygen -q -t ed25519 -N '' -f /root/.ssh/pamtest
cp /root/.ssh/pamtest.pub ~tester/.ssh/authorized_keys
chown -R tester:tester ~tester/.ssh; chmod 700 ~tester/.ssh
mkdir -p -m 755 /run/sshd
ssh-keygen -A >/dev/null
# The test kernel has no TCP/IP: the client runs sshd in inetd mode over a
# pipe, the same server (privileged monitor, privilege separation, PAM)
# that a connection to the listener gets.
ssh -i /root/.ssh/pamtest -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
	-o ProxyCommand='/usr/sbin/sshd -i -e' tester@localhost "$probe 30" > $out/ssh.txt 2>$out/ssh.err &
if wait_for probe_started $out/ssh.txt; then
	p=$(field pid $out/ssh.txt); child=$(ancestor sshd "$p"); monitor=$(ancestor sshd "$child")
	expect ssh-monitor-found "$(comm_of "$monitor") $(cookie "$child")" "sshd $(field cookie $out/ssh.txt)"
	check ssh $out/ssh.txt "$monitor"
	expect ssh-same-user-key "$(field cookie $out/ssh.txt)" "$tester_cookie"
else
	fail ssh "the probe did not run over ssh: $(tail -n3 $out/ssh.err | tr '\n' ' ')"
fi
wait

# ---- systemd --user: the opener becomes the manager (exec model) ----
mkdir -p /etc/systemd/user/default.target.wants
cat > /etc/systemd/user/pamprobe.service <<U
[Service]
Type=oneshot
ExecStart=/bin/sh -c '$probe > $out/user-%u.txt 2>&1'
[Install]
WantedBy=default.target
U
ln -sf ../pamprobe.service /etc/systemd/user/default.target.wants/pamprobe.service
# The sessions above started tester's manager through pam_systemd, and
# logind keeps it a few seconds after the last one: start a fresh one,
# lingering, so that logind keeps it while it has no session.
systemctl stop user@1000.service
loginctl enable-linger tester
systemctl start user@1000.service
wait_for probe_started $out/user-tester.txt ||
	fail user-probe "no output from the user unit: $(systemctl status user@1000.service 2>&1 | tail -n4 | tr '\n' ' ')"
mgr=$(prop user@1000.service MainPID)
expect user-manager-origin "$(origin "$mgr")" session
expect user-manager-cookie "$(cookie "$mgr")" "$tester_cookie"
expect user-first-instruction "$(field cookie $out/user-tester.txt)" "$tester_cookie"
loginctl disable-linger tester
systemctl stop user@1000.service

# ---- the daemon stopped: each failure mode ----
systemctl stop coreschedd.socket coreschedd.service
mode() { # ARGS: the module's arguments in every stack, control word first
	sed -i -E "s/^session[[:space:]].*pam_coresched\.so.*/session $1 pam_coresched.so $2/" \
		/etc/pam.d/common-session /etc/pam.d/common-session-noninteractive /etc/pam.d/runuser
}
since=$(date '+%Y-%m-%d %H:%M:%S')
mode optional fail=open
runuser -l tester -c "$probe" > $out/open.txt 2>&1
expect fail-open-login-works "$?" 0
expect fail-open-untagged "$(field cookie $out/open.txt)" 0x0
journalctl -q --since "$since" 2>/dev/null | grep -q 'coreschedd is not reachable.*fail=open' &&
	pass fail-open-logged || fail fail-open-logged "no 'not reachable ... fail=open' line in the journal"

mode optional fail=new
# Two sessions alive at once: a cookie's value is reused once it dies.
runuser -l tester -c "$probe 4" > $out/new.txt 2>&1 &
wait_for probe_started $out/new.txt
runuser -l tester -c "$probe" > $out/new2.txt 2>&1
expect fail-new-login-works "$?" 0
c=$(field cookie $out/new.txt)
expect_distinct fail-new-own-cookie "$c" "$tester_cookie"
expect fail-new-descendant "$(sed -n 's/^probe-child: cookie=//p' $out/new.txt)" "$c"
expect_distinct fail-new-each-session "$(field cookie $out/new2.txt)" "$c"
wait
expect fail-new-opener-untouched "$(cookie $$)" 0x0

mode required fail=closed
if runuser -l tester -c "$probe" > $out/closed.txt 2>&1; then
	fail fail-closed-refuses "runuser succeeded: $(head -n2 $out/closed.txt)"
elif grep -q '^probe:' $out/closed.txt; then
	fail fail-closed-refuses "the probe ran: $(head -n1 $out/closed.txt)"
else
	pass fail-closed-refuses
fi

mode optional ""
systemctl start coreschedd.socket
sed -i '/pam_coresched/d' /etc/pam.d/runuser
rm -f /etc/coresched/rules.d/40-pamtest.conf /etc/pam.d/pam-drive
DEBIAN_FRONTEND=noninteractive pam-auth-update --force --disable coresched >/dev/null 2>&1
systemctl stop pam-keeper pam-keeper-tester
rm -f /etc/systemd/user/pamprobe.service /etc/systemd/user/default.target.wants/pamprobe.service
# As found: the suites after this one start the daemon with their own rules.
if [ "$was" = active ]; then systemctl restart coreschedd; else systemctl stop coreschedd.service; fi
