# Confinement: "coresched run --lock" keeps a workload in its cookie; the
# daemon's filter and capability drop (shown by cs-sandbox-probe, and on the
# daemon itself once it installs them) refuse what they should.
. /tests/integration/lib.sh

# expect_rc NAME WANT CMD...: CMD exits with WANT
expect_rc() {
	name=$1 want=$2
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" = "$want" ]; then pass "$name"; else fail "$name" "exit $rc, expected $want: $out"; fi
}

# ---- run --lock ----
# The control first: without --lock the workload may take a new cookie.
expect_rc unlocked-may-change 0 coresched run -- sh -c 'coresched new -d $$'
expect_rc lock-refuses-new 6 coresched run --lock -- sh -c 'coresched new -d $$'
expect_rc lock-refuses-copy 6 coresched run --lock -- sh -c 'coresched copy -s 1 -d $$'
expect_rc lock-refuses-user 6 cs-runas 1000 1000 coresched run --lock -- sh -c 'coresched new -d $$'
expect_rc lock-needs-command 1 coresched new --lock -d 1

# The lock is on the workload only: root outside may still move it.
coresched run --lock -- sleep 30 &
locked=$!
cleanup_pids="$cleanup_pids $locked"
wait_for grep -qx sleep /proc/$locked/comm
before=$(cookie $locked)
expect_set lock-has-cookie "$before"
expect_rc lock-root-outside-may-change 0 coresched new -d "$locked"
expect_distinct lock-root-outside-changed "$before" "$(cookie $locked)"
expect lock-workload-filtered "$(sed -n 's/^Seccomp:[[:space:]]*//p' /proc/$locked/status)" 2

# ---- the daemon's filter, on a probe confined the same way ----
probe=$(cs-sandbox-probe enforce 2>&1)
val() { echo "$probe" | sed -n "s/^$1=//p"; }
expect probe-drop-caps "$(val drop-caps)" ok
expect probe-capeff "$(val CapEff)" 0000000000081000
expect probe-capbnd "$(val CapBnd)" 0000000000081000
expect probe-no-new-privs "$(val NoNewPrivs)" 1
expect probe-seccomp "$(val Seccomp)" 2
expect probe-inet-refused "$(val socket-inet)" ENOSYS
expect probe-inet-refused-early-thread "$(val thread-socket-inet)" ENOSYS
expect probe-unix-allowed "$(val socket-unix)" ok
expect probe-netlink-allowed "$(val socket-netlink)" ok
expect probe-sched-core-allowed "$(val sched-core-create)" ok
expect probe-sched-core-other-task "$(val sched-core-get)" ok
expect probe-ptrace-kills "$(val end)" signal-SIGSYS

probe=$(cs-sandbox-probe log 2>&1)
# The call reaches the kernel, which may itself lack AF_INET.
case $(val socket-inet) in
ok | EAFNOSUPPORT | errno97) pass probe-log-lets-inet ;;
*) fail probe-log-lets-inet "socket(AF_INET) gave '$(val socket-inet)' in log mode" ;;
esac
expect probe-log-still-kills-ptrace "$(val end)" signal-SIGSYS

# ---- the daemon itself ----
. /tests/integration/daemon-lib.sh
worker locked-worker
cat > "$CFG/coreschedd.conf" <<EOF2
[Group hardened]
MatchComm=locked-worker
EOF2
daemon_start || exit 1
status_of() { sed -n "s/^$1:[[:space:]]*//p" /proc/$DPID/status; }
# The socket appears only once the daemon is confined.
expect daemon-seccomp "$(status_of Seccomp)" 2
# CAP_NET_ADMIN went after the subscription; the bounding set kept it
# (no CAP_SETPCAP by then), no_new_privs makes that moot.
expect daemon-capeff "$(status_of CapEff)" 0000000000080000
expect daemon-capbnd "$(status_of CapBnd)" 0000000000081000
expect daemon-no-new-privs "$(status_of NoNewPrivs)" 1
conf_line=$(coresched status | sed -n 's/^confinement: //p')
case $conf_line in
*seccomp=enforce\ syscalls=[1-9]*) pass daemon-status-confinement ;;
*) fail daemon-status-confinement "coresched status says '$conf_line'" ;;
esac
# The schedstats keeper: CAP_SYS_ADMIN alone, under a filter.
keeper=$(for p in /proc/[0-9]*; do [ "$(cat $p/comm 2>/dev/null)" = coreschedd-keep ] && echo ${p#/proc/}; done | head -n1)
if [ -z "$keeper" ]; then
	fail keeper-confined "no coreschedd-keep process"
else
	kst() { sed -n "s/^$1:[[:space:]]*//p" /proc/$keeper/status; }
	expect keeper-confined "$(kst CapEff) $(kst CapBnd) $(kst Seccomp) $(kst NoNewPrivs)" "0000000000200000 0000000000200000 2 1"
fi
bg cs-runas 1000 1000 "$BIN/locked-worker" 1
w=$!
has_cookie() { c=$(cookie "$1"); [ -n "$c" ] && [ "$c" != 0x0 ]; }
if ! wait_for has_cookie "$w"; then
	fail daemon-works-confined "another user's task kept cookie '$(cookie $w)'; log: $(tail -n5 $DLOG)"
elif ! kill -0 "$DPID" 2>/dev/null; then
	fail daemon-works-confined "coreschedd died; log: $(tail -n5 $DLOG)"
else
	pass daemon-works-confined
fi
daemon_stop
