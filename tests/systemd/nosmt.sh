# The installed service where the kernel has core scheduling but SMT is
# switched off (booted with nosmt, or switched off here): the start
# succeeds, the daemon waits for SMT and says so (status, journal, a
# NotReady answer to coresched), systemd neither restarts nor kills it, and
# once SMT is switched on it places what the rules name. Leaves SMT as it
# found it and the service stopped.
. ./lib.sh
smt=/sys/devices/system/cpu/smt
was=$(cat $smt/active)
if [ "$was" = 1 ] && ! echo off > $smt/control 2>/dev/null; then
	skip nosmt "SMT is on and $smt/control cannot switch it off"
	exit 0
fi
expect smt-off "$(cat $smt/active)" 0
if [ "$(cat $smt/control)" != off ]; then
	skip nosmt "$smt/control says $(cat $smt/control): SMT cannot be switched on here"
	exit 0
fi
# Booted with nosmt and run alone (tests/vm/run --systemd --append nosmt
# nosmt): install the package here.
if ! dpkg-query -W coresched libpam-coresched >/dev/null 2>&1; then
	d=/usr/libexec/coresched-tests/debs
	v=$(cat $d/current)_$(dpkg --print-architecture)
	out=$(apt-get install -y $d/coresched_$v.deb $d/libpam-coresched_$v.deb 2>&1) &&
		pass apt-install || fail apt-install "$(echo "$out" | tail -n5)"
fi
systemctl stop coreschedd 2>/dev/null
systemctl reset-failed coreschedd 2>/dev/null
mkdir -p /etc/coresched/rules.d
cp /usr/libexec/coresched-tests/cs-threads /usr/local/bin/cs-nosmt-member
printf '[Group nosmt]\nMatchExe=/usr/local/bin/cs-nosmt-member\n' > /etc/coresched/rules.d/90-nosmt-test.conf
since=$(date '+%Y-%m-%d %H:%M:%S')
if systemctl start coreschedd 2>/dev/null; then pass start-waits; else fail start-waits "$(systemctl status coreschedd 2>&1 | tail -n3)"; fi
# Out of the shipped rules' system.slice: where a tenant's service runs.
systemd-run -q --slice=tenant.slice --unit=cs-nosmt-member /usr/local/bin/cs-nosmt-member 0
m=$(prop cs-nosmt-member MainPID)
# Beyond the watchdog's half period (WatchdogSec=30s) would take 15 s; 3 s
# shows no crash loop and no exit.
sleep 3
expect waiting-active "$(prop coreschedd ActiveState) $(prop coreschedd NRestarts)" "active 0"
case $(prop coreschedd StatusText) in
*"Waiting for SMT"*) pass waiting-status ;;
*) fail waiting-status "StatusText: $(prop coreschedd StatusText)" ;;
esac
# (the package's own start, when installed here, may have said it too)
msg=$(journalctl -u coreschedd --since "$since" -o cat 2>/dev/null | grep -c 'waiting for it to be switched on')
[ "$msg" -ge 1 ] && pass waiting-logged || fail waiting-logged "no 'waiting for it to be switched on' in the journal"
# The watchdog is fed while it waits (the unit's WatchdogSec=).
w1=$(prop coreschedd WatchdogTimestampMonotonic)
sleep 2
w2=$(prop coreschedd WatchdogTimestampMonotonic)
[ -n "$w1" ] && [ "${w2:-0}" -gt "$w1" ] && pass waiting-watchdog-fed || fail waiting-watchdog-fed "WatchdogTimestampMonotonic $w1 then $w2"
out=$(coresched status 2>&1); rc=$?
case "$rc $out" in
"1 coresched: coreschedd is not ready: SMT is switched off"*) pass waiting-cli-answer ;;
*) fail waiting-cli-answer "exit $rc: $out" ;;
esac
# The container hook meanwhile: the daemon as good as out of reach, so
# the fail mode decides (SMT can come back: no pass for every container).
state="{\"ociVersion\":\"1.0.2\",\"id\":\"nosmt-ctr\",\"status\":\"created\",\"pid\":$m,\"bundle\":\"/\"}"
out=$(echo "$state" | coresched oci-hook --fail-mode closed 2>&1); rc=$?
case "$rc $out" in
*"waits for SMT to be switched on and fail mode is closed"*) [ $rc = 1 ] && pass waiting-hook-closed || fail waiting-hook-closed "exit $rc: $out" ;;
*) fail waiting-hook-closed "exit $rc: $out" ;;
esac
out=$(echo "$state" | coresched oci-hook --fail-mode open 2>&1); rc=$?
case "$rc $out" in
"0 "*"waits for SMT to be switched on"*"fail mode is open"*) pass waiting-hook-open ;;
*) fail waiting-hook-open "exit $rc: $out" ;;
esac
# The PAM module meanwhile: a daemon out of reach too, by its fail mode.
drive=/usr/libexec/coresched-tests/pam-drive
echo 'session required pam_coresched.so fail=closed' > /etc/pam.d/cs-nosmt-closed
echo 'session required pam_coresched.so fail=open' > /etc/pam.d/cs-nosmt-open
psince=$(date '+%Y-%m-%d %H:%M:%S')
$drive cs-nosmt-closed root true > /dev/null 2>&1
expect waiting-pam-closed "$?" 2
journalctl -q --since "$psince" 2>/dev/null | grep -q 'coreschedd is not reachable at .* (it waits for SMT to be switched on): failing the session' &&
	pass waiting-pam-closed-logged || fail waiting-pam-closed-logged "no 'not reachable ... failing the session' line in the journal"
$drive cs-nosmt-open root true > /dev/null 2>&1
expect waiting-pam-open "$?" 0
# the account stack refuses the login then (systemd's socket takes the
# connection all the same)
echo 'account required pam_coresched.so fail=closed' > /etc/pam.d/cs-nosmt-acct
$drive -a cs-nosmt-acct root true > /dev/null 2>&1
expect waiting-pam-account-refuses "$?" 1
rm -f /etc/pam.d/cs-nosmt-acct
rm -f /etc/pam.d/cs-nosmt-closed /etc/pam.d/cs-nosmt-open
echo on > $smt/control
wait_for is_set $m && pass smt-on-placed || fail smt-on-placed "PID $m: cookie $(cookie $m); $(coresched explain $m 2>&1 | tr '\n' ' ')"
if coresched status >/dev/null 2>&1; then pass smt-on-serves; else fail smt-on-serves "$(coresched status 2>&1)"; fi
echo 'account required pam_coresched.so fail=closed' > /etc/pam.d/cs-nosmt-acct
$drive -a cs-nosmt-acct root true > /dev/null 2>&1
expect smt-on-pam-account-admits "$?" 0
rm -f /etc/pam.d/cs-nosmt-acct
systemctl stop cs-nosmt-member 2>/dev/null
rm -f /etc/coresched/rules.d/90-nosmt-test.conf /usr/local/bin/cs-nosmt-member
systemctl stop coreschedd 2>/dev/null
[ "$was" = 1 ] || echo off > $smt/control
