# The shipped unit under a real systemd: start reaches READY and tags, a
# broken reload fails and keeps the old policy, stop is clean and leaves the
# cookies, the socket brings the daemon back, a crash is restarted.
. ./lib.sh

# Tenant workloads run as transient services in their own slice, outside
# system.slice (which the shipped rules keep at cookie 0).
for w in sd-a sd-b sd-c; do cp /bin/sleep /usr/local/bin/$w; done
worker() { # NAME UNIT -> prints the MainPID
	systemd-run -q --slice=tenant.slice --unit="$2" /usr/local/bin/"$1" 3600 || return 1
	prop "$2" MainPID
}
cat > /etc/coresched/rules.d/50-sdtest.conf <<'C'
[Group sdtest]
MatchComm=sd-a sd-b
C
# Per-process messages (debug) carry the structured fields checked below.
sed -i 's/^\[Daemon\]$/[Daemon]\nLogLevel=debug/' /etc/coresched/coreschedd.conf

# ---- start ----
if systemctl start coreschedd; then pass start; else fail start "systemctl start failed: $(systemctl status coreschedd 2>&1 | tail -n5)"; fi
expect active "$(systemctl is-active coreschedd)" active
main=$(prop coreschedd MainPID)
# The unit's Nice= reached the daemon (field 19 of stat: its nice value).
expect nice "$(sed 's/.*) //' /proc/"$main"/stat 2>/dev/null | cut -d' ' -f17)" -10
# The daemon's short time slice (daemon/slice.h) was taken under the
# unit's system call filter: the kernel's own view of its main thread.
expect slice "$(sed -n 's/^se.slice[[:space:]]*:[[:space:]]*//p' /proc/"$main"/sched 2>/dev/null)" 100000
case $(prop coreschedd StatusText) in
*tasks*keys*) pass status-text ;;
*) fail status-text "StatusText is '$(prop coreschedd StatusText)'" ;;
esac
st() { sed -n "s/^$1:[[:space:]]*//p" /proc/$main/status; }
# CAP_NET_ADMIN served the subscription only: gone from the effective and
# permitted sets once READY, and no warning that it could not be dropped.
expect confined "$(st CapEff) $(st CapPrm) $(st CapBnd) $(st Seccomp) $(st NoNewPrivs)" "0000000000080000 0000000000080000 0000000000081000 2 1"
expect schedstats-on "$(cat /proc/sys/kernel/sched_schedstats)" 1
coresched status > /run/sd-status.txt 2>&1 && grep -q '^coreschedd: running' /run/sd-status.txt &&
	pass cli-status || fail cli-status "$(head -n3 /run/sd-status.txt)"
journalctl -b -u coreschedd -o verbose 2>/dev/null | grep -q 'MESSAGE=Started:' &&
	pass journal || fail journal "no 'Started:' message of coreschedd in the journal"

a1=$(worker sd-a sd-a1); b1=$(worker sd-b sd-b1)
wait_for is_set "$a1" && wait_for is_set "$b1"
ca=$(cookie "$a1"); cb=$(cookie "$b1")
expect_set tags "$ca"
expect same-group "$cb" "$ca"
expect trusted-system-slice "$(cookie $$)" 0x0
# The journal says which process, which group and which rule.
fields=$(journalctl -b -u coreschedd CORESCHED_PID="$a1" -o verbose 2>/dev/null | grep -E '^ *CORESCHED_' | sed 's/^ *//' | sort -u | tr '\n' ' ')
expect journal-fields "$fields" "CORESCHED_GROUP=sdtest CORESCHED_PID=$a1 CORESCHED_RULE=/etc/coresched/rules.d/50-sdtest.conf:1 "

# ---- reload with a broken file: refused, old policy kept ----
printf '[Group broken]\nMatchComm=sd-c\nBogus=1\n' > /etc/coresched/rules.d/60-broken.conf
if systemctl reload coreschedd 2>/dev/null; then
	fail reload-broken-fails "systemctl reload succeeded"
else
	pass reload-broken-fails
fi
journalctl -b -u coreschedd 2>/dev/null | grep -q '60-broken.conf:3' &&
	pass reload-broken-names-line || fail reload-broken-names-line "no '60-broken.conf:3' in the journal: $(journalctl -b -u coreschedd | tail -n3)"
expect reload-broken-still-active "$(systemctl is-active coreschedd) $(prop coreschedd MainPID)" "active $main"
a2=$(worker sd-a sd-a2)
wait_for is_set "$a2"
expect reload-broken-old-policy "$(cookie "$a2")" "$ca"
c1=$(worker sd-c sd-c1)
sleep 1
expect reload-broken-not-applied "$(cookie "$c1")" 0x0

# ---- a good reload ----
printf '[Group fixed]\nMatchComm=sd-c\n' > /etc/coresched/rules.d/60-broken.conf
if systemctl reload coreschedd; then pass reload-good; else fail reload-good "systemctl reload failed"; fi
wait_for is_set "$c1"
cc=$(cookie "$c1")
if [ "$cc" != 0x0 ] && [ "$cc" != "$ca" ]; then pass reload-good-applied; else fail reload-good-applied "sd-c has '$cc' (sdtest has $ca)"; fi

# ---- stop: clean, cookies stay ----
if systemctl stop coreschedd; then pass stop; else fail stop "systemctl stop failed"; fi
expect stop-result "$(prop coreschedd Result) $(prop coreschedd ExecMainStatus)" "success 0"
expect stop-cookies-stay "$(cookie "$a1") $(cookie "$b1") $(cookie "$c1")" "$ca $ca $cc"

# ---- the socket starts it again; nobody is moved ----
expect socket-listening "$(systemctl is-active coreschedd.socket)" active
coresched status >/dev/null 2>&1 && pass socket-activation || fail socket-activation "coresched status failed with the daemon stopped"
expect socket-activation-active "$(systemctl is-active coreschedd)" active
sleep 1
expect restart-nobody-moved "$(cookie "$a1") $(cookie "$b1") $(cookie "$a2") $(cookie "$c1")" "$ca $ca $ca $cc"
b2=$(worker sd-b sd-b2)
wait_for is_set "$b2"
expect restart-new-joins-group "$(cookie "$b2")" "$ca"

# ---- a crash: systemd restarts it (Restart=on-failure), nobody moved ----
main=$(prop coreschedd MainPID)
kill -9 "$main"
restarted() { p=$(prop coreschedd MainPID); [ "$p" != 0 ] && [ "$p" != "$main" ] && [ "$(systemctl is-active coreschedd)" = active ]; }
if wait_for restarted; then pass crash-restarted; else fail crash-restarted "MainPID $(prop coreschedd MainPID), $(systemctl is-active coreschedd)"; fi
expect crash-nobody-moved "$(cookie "$a1") $(cookie "$b2") $(cookie "$c1")" "$ca $ca $cc"

# ---- the score, from this systemd ----
score=$(systemd-analyze security coreschedd 2>/dev/null | sed -n 's/.*Overall exposure level for coreschedd.service: \([0-9.]*\).*/\1/p')
if [ -n "$score" ] && awk -v s="$score" 'BEGIN { exit !(s <= 2.0) }'; then
	pass "security-score ($score)"
else
	fail security-score "exposure '$score', want 2.0 or better"
fi
systemctl stop 'sd-*' 2>/dev/null
# For the record (and for diagnosing a FAIL above): the daemon's journal.
journalctl -b -u coreschedd --no-pager 2>/dev/null | tail -n 12 | sed 's/^/# /'
