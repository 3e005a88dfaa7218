# Fault injection: the fault build of coreschedd fails chosen calls for a
# while (CORESCHED_FAULT=site:errno:count) as matching processes start. Per
# fault: the daemon stays up and answers, says what failed in its own words,
# and once the count is spent every process carries the cookie policy wants.
. /tests/integration/lib.sh
. /tests/integration/daemon-lib.sh

if ! command -v coreschedd-fault >/dev/null; then
	skip faults "coreschedd-fault is not installed (make fault)"
	exit 0
fi
worker grouped   # Per=group: one holder, SHARE_TO per process
worker solo      # Per=process: a CREATE per process

config() { # RECONCILE_SEC
	cat > "$CFG/coreschedd.conf" <<EOF2
[Daemon]
ReconcileSec=$1
LogLevel=debug
[Group grouped]
MatchExe=$BIN/grouped
[Group solo]
MatchExe=$BIN/solo
Per=process
EOF2
}

now() { cut -d' ' -f1 /proc/uptime; }
injected() { grep -c "^fault-injection: $1 " "$DLOG"; }
# A function, so that wait_for counts afresh each time.
spent() { [ "$(injected "$site")" -ge "$count" ]; }
# The daemon's own messages, not the injection notes.
said() { grep -v '^fault-injection: ' "$DLOG" | grep -q "$1"; }

# Every grouped worker shares one set cookie; every solo worker has a set
# cookie of its own, distinct from the group's and from each other's.
converged() {
	g=$(cookie $g1)
	[ -n "$g" ] && [ "$g" != 0x0 ] || return 1
	for p in $g2 $g3; do [ "$(all_cookies $p)" = "$g" ] || return 1; done
	[ "$(all_cookies $g1)" = "$g" ] || return 1
	s1=$(all_cookies $p1) s2=$(all_cookies $p2)
	for c in "$s1" "$s2"; do
		case $c in "" | 0x0 | "$g" | *"
"*) return 1 ;; esac
	done
	[ "$s1" != "$s2" ]
}

state() {
	echo "grouped: $(cookie $g1) $(cookie $g2) $(cookie $g3); solo: $(cookie $p1) $(cookie $p2);" \
		"injected $(injected "$site")/$count; log: $(grep -v -e '^fault-injection: ' -e 'exited before' "$DLOG" | tail -4 | tr '\n' '|')"
}

# fault NAME SITE ERRNO COUNT RECONCILE_SEC PATTERN
# PATTERN: what the daemon must say (grep); "-" for nothing (a retry).
fault() {
	name=$1 site=$2 err=$3 count=$4 pattern=$6
	t0=$(now)
	config "$5"
	: > "$DLOG"
	export CORESCHED_DAEMON=coreschedd-fault CORESCHED_FAULT="$site:$err:$count"
	daemon_start
	started=$?
	unset CORESCHED_DAEMON CORESCHED_FAULT
	if [ $started -ne 0 ]; then
		fail "$name" "the daemon did not start: $(tail -3 "$DLOG" | tr '\n' '|')"
		return
	fi
	# Started while the fault is on: placing them is what fails.
	bg $BIN/grouped 1 >/dev/null; g1=$!
	bg $BIN/solo 1 >/dev/null; p1=$!
	bg $BIN/grouped 1 >/dev/null; g2=$!
	bg $BIN/solo 1 >/dev/null; p2=$!
	bg $BIN/grouped 1 >/dev/null; g3=$!
	t1=$(now)
	wait_for spent
	spent=$(injected "$site")
	t2=$(now)
	wait_for converged
	ok=$?
	t3=$(now)
	if ! kill -0 "$DPID" 2>/dev/null; then
		fail "$name" "the daemon died; $(state)"
	elif ! coresched status 2>/dev/null | grep -q '^coreschedd: running$'; then
		fail "$name" "coresched status got no answer; $(state)"
	elif [ "$spent" -ne "$count" ]; then
		fail "$name" "the fault fired $spent times, not $count; $(state)"
	elif [ "$pattern" != - ] && ! said "$pattern"; then
		fail "$name" "the log does not say '$pattern'; $(state)"
	elif [ "$pattern" = - ] && said "Events were lost"; then
		fail "$name" "a retried call lost events; $(state)"
	elif [ $ok -ne 0 ]; then
		fail "$name" "the processes did not converge; $(state)"
	else
		pass "$name"
	fi
	daemon_stop
	kill -9 $g1 $g2 $g3 $p1 $p2 2>/dev/null
	wait $g1 $g2 $g3 $p1 $p2 2>/dev/null
	echo "faults: $name: start $t0..$t1, fault spent $t2, converged $t3, stopped $(now)"
}

# Enough failures at /proc to cover the start-up scan and the workers.
nproc=$(ls -d /proc/[0-9]* | wc -l)

fault share_to-esrch share_to 3 2 1 "Failed to assign a cookie .*No such process"
fault share_to-eperm share_to 1 2 1 "Failed to assign a cookie .*Operation not permitted"
fault share_from-eperm share_from 1 1 1 "Failed to assign a cookie .*Operation not permitted"
fault create-enomem create 12 2 1 "Cannot allocate memory"
fault holder-eagain holder 11 2 1 "Failed to place the process .*Resource temporarily unavailable"
fault task-enomem task 12 3 1 "Failed to examine PID .*Cannot allocate memory"
# Reconcile off: only the retry of the unsettled reads them again.
fault program-enomem program 12 3 0 "Failed to examine PID .*Cannot allocate memory"
fault pidfd-emfile pidfd 24 3 1 "Failed to examine PID .*Too many open files"
fault pidfd-esrch pidfd 3 3 1 "exited before it could be examined"
fault procinfo-emfile procinfo 24 $((nproc + 20)) 1 "Failed to examine PID .*Too many open files"
fault procinfo-esrch procinfo 3 $((nproc + 20)) 1 "exited before it could be examined"
# A lost event is answered by a rescan; reconcile off, so that is what places them.
fault recv-enobufs recv 105 2 0 "Events were lost: rescanning"
# An interrupted receive is retried at once: nothing lost, nothing to say.
fault recv-eintr recv 4 3 0 -
exit 0
