# Adversarial races the other tests do not cover, judged by the kernel:
# after each phase every live process (every thread) of the phase is read
# with cs-cookies and compared with the policy of coreschedd.conf(5).
#   exec-other   a placed member execs another group's (or a trusted
#                group's) program, which forks at once
#   cpexec       a placed member clones CLONE_PARENT children that exec an
#                unmatched helper (their parent is an unmatched shell)
#   cpfork       a placed member of A forks a child that execs B's program
#                and clones CLONE_PARENT children at once (their parent is
#                the A member, their program B's)
#   texec        a non-main thread execs: into a group, out of one, into
#                another group, into a trusted group
#   tstorm       threads created while the process is being placed
#   chain        a placed member forks a chain whose levels exit at once;
#                the orphaned leaf execs an unmatched helper (ClearForeign=yes)
#   uclear       UnmatchedExec=clear: a placed member's helper forks at once
#   uclear-min   the same, one group, ReconcileSec=2, with the daemon's word
#   uclear-more  UnmatchedExec=clear: leaving by a uid change (setuid-root
#                program) or a rename, then forking at once
#   rename       MatchComm=: a process renames itself in and forks at once;
#                a member renames itself out and forks at once
#   setuid       a MatchUser= Per=user member runs a setuid-root program
#                that switches to root (unclaimed) or to another user, and
#                forks at once
#   cgroup       clone3(CLONE_INTO_CGROUP) into a MatchCgroup= Per=cgroup
#                group's cgroup, from outside and from another tenant
#   reload       a reload that changes the rules in the middle of a storm
#                (a group removed, Per= changed, a new group, Trusted=)
#   restart      kill -9 mid-storm, Per=group -> Per=user while it is down,
#                members and helpers started while it is down
#   startup      members forking helpers at once while the daemon starts
#   loss         the same while the daemon is stalled (SIGSTOP) and its
#                events overflow: the rescan after the loss must keep the
#                helpers in their parent's key as the event path does
#   pidreuse     a pid reused while SMT is off (placement pending) and
#                across a restart (an explicit placement's pid)
# Sourced by attack-events.sh and attack-loss.sh, which name their phases
# (the per-test timeout, 240 s, holds about ten). ATK="names..." picks
# others, with N=, SETTLE=, REPEAT= (uclear, cpfork, restart, startup,
# loss), RECON= among them: tests/vm/run passes one variable, e.g.
#   CORESCHED_VM_ENV=ATK=loss,REPEAT=2 tests/vm/run attack-loss
# ReconcileSec=0 throughout but where said: the event path alone.
# Verdicts are the kernel's cookies (cs-cookies -t), not the daemon's.
. /tests/integration/lib.sh
. /tests/integration/daemon-lib.sh

ATK=${ATK:-$ATK_PHASES}
ATK=$(echo "$ATK" | tr , ' ')
# ATK may carry N=... and SETTLE=... too (the VM passes one variable)
for a in $ATK; do case $a in N=* | SETTLE=* | REPEAT=* | RECON=*) eval "ATK_${a%%=*}=${a#*=}" ;; esac; done
SETTLE=${ATK_SETTLE:-10}
N=${ATK_N:-6}
W=/tmp/$T
SMT=/sys/devices/system/cpu/smt/control
STATE=/run/coresched/coreschedd.state
A=/usr/libexec/coresched-tests/cs-attack
F=/usr/libexec/coresched-tests/cs-forker
mkdir -p "$W"
for b in alpha bta mt plain cmember cg0 cg1 cg2 cgx bcp; do cp "$A" "$BIN/$b"; done
for b in beta trust helper helperb helpera orph gamma ten sfork fgn pa; do cp "$F" "$BIN/$b"; done
# A setuid-root forker (a stand-in for su, sudo, a setuid helper).
cp "$F" "$BIN/suid" && chown 0:0 "$BIN/suid" && chmod 4755 "$BIN/suid"
chmod 755 "$BIN" "$W"

want_on() { case " $ATK " in *" $1 "*) return 0 ;; esac; return 1; }

roots="" want=0 t0=$(date +%s)
L() { "$@" </dev/null >>"$W/out" 2>&1 & roots="$roots $!"; }

# ---- judging ----
# CLASSES: "EXE=CLASS ..." for the basenames of programs in $BIN; CLASS is
# zero (cookie 0), key:NAME (all share one non-zero cookie, distinct from
# every other key's), own (non-zero, shared with no other process), any
# (not judged), free (not judged, and may carry a key's cookie: noted).
# Judged: every thread of every live process that descends
# from this shell or runs a program of $BIN (orphans); other programs
# under this shell (sleep, sh) are zero unless DEFAULT says otherwise.
JUDGE='
BEGIN { n = split(classes, cl, " "); for (i = 1; i <= n; i++) { split(cl[i], kv, "="); cls[kv[1]] = kv[2] } }
{ pid[NR] = $1; tid[NR] = $2; ck[NR] = $3; pp[$1] = $4; uid[$1] = $5; exe[NR] = $6; pexe[$1] = $6
  if ($1 == $2) allck[$3] = allck[$3] " " $1 }
function under(p,   q, n) {
	for (q = p; q + 0 > 1 && n < 200; q = pp[q]) { if (q + 0 == top) return 1; if (!(q in pp)) return 0; n++ }
	return 0
}
function classof(i,   e, b) {
	e = exe[i]
	if (pid[i] + 0 == dpid || pid[i] + 0 == self) return ""
	if (index(e, bin "/") == 1) { b = substr(e, length(bin) + 2); return (b in cls) ? cls[b] : "any" }
	if (under(pid[i])) return dflt
	return ""
}
END {
	for (i = 1; i <= NR; i++) {
		c = classof(i); if (c == "" || c == "any") continue
		judged++; cls_of[i] = c
		if (c ~ /^key:/) { members[c]++; if (ck[i] != "0x0" && ++cnt[c, ck[i]] > best[c]) { best[c] = cnt[c, ck[i]]; ref[c] = ck[i] } }
		if (c == "free") continue
		if (c == "own" && pid[i] == tid[i]) owners[ck[i]] = owners[ck[i]] " " pid[i]
	}
	for (i = 1; i <= NR; i++) {
		if (!(i in cls_of) || cls_of[i] == "free") continue
		c = cls_of[i]; ok = 1; why = ""
		if (c == "zero") { ok = ck[i] == "0x0"; why = "expected 0x0" }
		else if (c ~ /^key:/) { ok = (c in ref) && ck[i] == ref[c]; why = "expected " c "=" ((c in ref) ? ref[c] : "non-zero") }
		else if (c == "own") {
			# one cookie per process: threads share it, no other process does
			np = split(allck[ck[i]], sharers, " ")
			ok = ck[i] != "0x0" && ck[i] !~ /^!/ && np == 1
			why = "expected a cookie of its own (sharers:" allck[ck[i]] ")"
		}
		if (!ok) { printf "mismatch pid %s tid %s exe %s uid %s ppid %s class %s: actual %s, %s\n", pid[i], tid[i], exe[i], uid[pid[i]], pp[pid[i]], c, ck[i], why; bad++ }
	}
	for (k in ref) {
		# a key cookie on a process outside the key (judged or not)
		np = split(allck[ref[k]], sharers, " ")
		for (j = 1; j <= np; j++) {
			p = sharers[j]
			for (i = 1; i <= NR; i++) if (pid[i] == p && tid[i] == p) break
			if (p + 0 == dpid) { printf "note: the daemon main thread %s carries %s cookie %s\n", p, k, ref[k]; continue }
			if (cls_of[i] == "free") { printf "note: pid %s exe %s (not judged) carries %s cookie %s\n", p, exe[i], k, ref[k]; continue }
			if (cls_of[i] != k) { printf "mismatch pid %s exe %s class %s carries %s cookie %s\n", p, exe[i], (i in cls_of) ? cls_of[i] : "unjudged", k, ref[k]; bad++ }
		}
		printf "key %s %d %s\n", k, members[k], ref[k]
	}
	printf "total %d %d\n", judged + 0, bad + 0
}'
judge() { # CLASSES [DEFAULT]
	cs-cookies -t -x > "$W/snap"
	awk -v top=$$ -v dpid="$DPID" -v self=0 -v bin="$BIN" -v classes="$1" -v dflt="${2:-zero}" "$JUDGE" "$W/snap"
}

# phase NAME CLASSES [DEFAULT]: wait until $want processes run programs of
# $BIN (up to 40 s), then up to $SETTLE s for agreement; judge once.
phase() {
	name=$1 classes=$2 dflt=${3:-zero} hard=$(($(date +%s) + 40)) deadline=""
	while :; do
		judge "$classes" "$dflt" > "$W/judged"
		set -- $(tail -n1 "$W/judged")
		total=$2 bad=$3 now=$(date +%s)
		# counted in the snapshot judged, not in a later one
		have=$(awk -v bin="$BIN/" '$1 == $2 && index($6, bin) == 1' "$W/snap" | wc -l)
		if [ "$have" -ge "$want" ]; then
			[ "$bad" = 0 ] && break
			[ -z "$deadline" ] && deadline=$((now + SETTLE))
			[ "$now" -ge "$deadline" ] && break
		fi
		[ "$now" -ge "$hard" ] && break
		sleep 0.5
	done
	grep -E '^(mismatch|note)' "$W/judged" | head -n 20 | sed "s/^/attack: $name: /"
	echo "attack: $name: programs:$(awk -v bin="$BIN/" '$1 == $2 && index($6, bin) == 1 { n[substr($6, length(bin) + 1)]++ } END { for (e in n) printf " %s=%d", e, n[e] }' "$W/snap") (want $want, have $have)"
	echo "attack: $name: keys:$(grep '^key' "$W/judged" | sort | awk '{printf " %s=%s(%s)", $2, $3, $4}'); $total tasks judged, $bad mismatches, $(($(date +%s) - t0)) s"
	if [ "$bad" != 0 ]; then
		for p in $(awk '/^mismatch pid/ {print $3}' "$W/judged" | sort -u | head -n 4); do
			echo "attack: $name: ps $p: $(coresched ps -n -o PID,COMM,GROUP,KEY,COOKIE,ORIGIN,EXE $p 2>&1 | tr -s ' ')"
			pp=$(awk -v p=$p '$1 == p && $2 == p {print $4; exit}' "$W/snap")
			echo "attack: $name: parent $pp: $(coresched ps -n -o PID,COMM,GROUP,KEY,COOKIE,ORIGIN,EXE $pp 2>&1 | tr -s ' ')"
			grep -E "(PID|pid) ($p|$pp)[^0-9]" "$DLOG" | tail -n 8 | sed "s/^/attack: $name: log $p: /"
		done
	fi
	storm_verdict "$name" "$have" "$want" "$bad" "$total"
}

reap() { storm_reap "$BIN/"; }
trap 'reap; cleanup' EXIT

# fresh CONFIG-TEXT: a daemon of its own for the phase
fresh() {
	[ -n "$DPID" ] && kill -0 "$DPID" 2>/dev/null && daemon_stop
	rm -f "$STATE" "$CFG"/rules.d/*.conf
	printf '[Daemon]\nReconcileSec=0\nLogLevel=%s\n%s\n' "${ATK_LOG:-debug}" "$1" > "$CFG/coreschedd.conf"
	daemon_start
}
daemon_kill() { kill -9 "$DPID"; wait "$DPID" 2>/dev/null; }
bystanders() { L sleep 1000; L sh -c 'sleep 1000 & wait'; }

# ---- exec-other ----
if want_on exec-other; then
	fresh "[Group alpha]
MatchExe=$BIN/alpha
[Group beta]
MatchExe=$BIN/beta
[Group trust]
MatchExe=$BIN/trust
Trusted=yes" || exit 1
	bystanders
	i=0; while [ $i -lt "$N" ]; do
		L "$BIN/alpha" tstorm 0 0; want=$((want + 1))                 # a member that stays
		L "$BIN/alpha" we 5 "$BIN/beta" 3; want=$((want + 4))         # placed, then execs beta: forks at once
		L "$BIN/alpha" we 5 "$BIN/trust" 3; want=$((want + 4))        # placed, then execs a trusted program
		L "$BIN/alpha" we 0 "$BIN/beta" 2; want=$((want + 3))         # execs beta before it is placed
		i=$((i + 1))
	done
	phase exec-other "alpha=key:alpha beta=key:beta trust=zero"
	reap
fi

# ---- cpexec ----
if want_on cpexec; then
	fresh "[Group alpha]
MatchExe=$BIN/alpha" || exit 1
	bystanders
	i=0; while [ $i -lt "$N" ]; do
		# helpers of a placed member, siblings of it (CLONE_PARENT): the
		# kernel copied the member's cookie; no group claims the helper
		L "$BIN/alpha" cpexec 5 3 "$BIN/helper" 0; want=$((want + 4))
		i=$((i + 1))
	done
	# The CLONE_PARENT children are this shell's: L's $! is alpha's, so
	# classify the helpers by program: every helper is such a child.
	phase cpexec "alpha=key:alpha helper=key:alpha"
	reap
fi

# ---- texec ----
if want_on texec; then
	fresh "[Group alpha]
MatchExe=$BIN/alpha
[Group beta]
MatchExe=$BIN/beta
[Group trust]
MatchExe=$BIN/trust
Trusted=yes" || exit 1
	bystanders
	i=0; while [ $i -lt "$N" ]; do
		L "$BIN/mt" texec 0 4 "$BIN/alpha" tstorm 2 0; want=$((want + 1))   # unmatched, a thread execs a member
		L "$BIN/alpha" texec 5 4 "$BIN/helpera" 0; want=$((want + 1))       # member, a thread execs a helper
		L "$BIN/alpha" texec 5 4 "$BIN/beta" 0; want=$((want + 1))          # member, a thread execs beta
		L "$BIN/alpha" texec 5 4 "$BIN/trust" 2; want=$((want + 3))         # member, a thread execs trusted, forks
		i=$((i + 1))
	done
	phase texec "alpha=key:alpha helpera=key:alpha beta=key:beta trust=zero mt=zero"
	reap
fi

# ---- tstorm ----
if want_on tstorm; then
	fresh "[Group alpha]
MatchExe=$BIN/alpha
[Group solo]
MatchExe=$BIN/bta
Per=process" || exit 1
	bystanders
	i=0; while [ $i -lt "$N" ]; do
		L "$BIN/alpha" tstorm 40 10; want=$((want + 1))
		L "$BIN/bta" tstorm 40 10; want=$((want + 1))
		i=$((i + 1))
	done
	sleep 3 # the threads are made over 0.4 s (more under TCG)
	phase tstorm "alpha=key:alpha bta=own"
	reap
fi

# ---- chain ----
if want_on chain; then
	fresh "ClearForeign=yes
[Group alpha]
MatchExe=$BIN/alpha" || exit 1
	bystanders
	i=0; while [ $i -lt "$N" ]; do
		L "$BIN/alpha" tstorm 0 0; want=$((want + 1))
		# placed, then a chain 6 deep whose levels exit at once; the
		# orphaned leaf runs an unmatched helper: it carries the
		# member's cookie (the kernel's), a member cannot leave so
		L "$BIN/alpha" we 5 "$BIN/alpha" chain 6 "$BIN/orph" 0; want=$((want + 1))
		i=$((i + 1))
	done
	phase chain "alpha=key:alpha orph=key:alpha"
	reap
fi

# ---- uclear ----
rep=0
while want_on uclear && [ $rep -lt "${ATK_REPEAT:-1}" ]; do
	rep=$((rep + 1))
	fresh "UnmatchedExec=clear
[Group alpha]
MatchExe=$BIN/alpha
[Group beta]
MatchExe=$BIN/beta" || exit 1
	bystanders
	i=0; while [ $i -lt "$N" ]; do
		L "$BIN/alpha" tstorm 0 0; want=$((want + 1))
		# a placed member execs an unmatched helper that forks at once:
		# the helper returns to 0, and so must what it forks (the kernel
		# copied the group's cookie into them if it forked first)
		L "$BIN/alpha" we 5 "$BIN/helper" 3; want=$((want + 4))
		# a placed member's children exec a helper that forks at once
		L "$BIN/beta" -w 5 2 "$BIN/helperb" 2; want=$((want + 7))
		i=$((i + 1))
	done
	phase uclear "alpha=key:alpha helper=zero beta=key:beta helperb=zero"
	reap
done

# ---- uclear-min: UnmatchedExec=clear, ReconcileSec=RECON (default 2),
# the daemon's log for one child that kept the cookie ----
if want_on uclear-min; then
	fresh "UnmatchedExec=clear
ReconcileSec=${ATK_RECON:-2}
[Group alpha]
MatchExe=$BIN/alpha" || exit 1
	L "$BIN/alpha" tstorm 0 0; want=1
	sleep 1
	i=0; while [ $i -lt "$N" ]; do
		L "$BIN/alpha" we 5 "$BIN/helper" 3; want=$((want + 4))
		i=$((i + 1))
	done
	sleep 6 # three reconciles
	phase uclear-min "alpha=key:alpha helper=zero"
	c=$(awk '/^mismatch pid/ {print $3; exit}' "$W/judged")
	if [ -n "$c" ]; then
		pc=$(awk -v c=$c '$1 == c {print $4; exit}' "$W/snap")
		cs-cookies -x | awk -v c=$c -v p=$pc '$1 == c || $1 == p || $4 == p' | sed 's/^/attack: uclear-min: snap: /'
		coresched ps -o PID,COMM,GROUP,KEY,COOKIE,ORIGIN $pc $c 2>&1 | sed 's/^/attack: uclear-min: ps: /'
		grep -E "PID ($c|$pc)[^0-9]" "$DLOG" | sed 's/^/attack: uclear-min: log: /'
		coresched explain $c 2>&1 | sed 's/^/attack: uclear-min: explain: /'
	fi
	reap
fi

# ---- uclear-more: UnmatchedExec=clear, leaving by a uid change or a
# rename, then forking at once ----
if want_on uclear-more; then
	fresh "UnmatchedExec=clear
[Group tenants]
MatchUser=tester
[Group named]
MatchComm=cmember" || exit 1
	bystanders
	i=0; while [ $i -lt "$N" ]; do
		L cs-runas 1000 1000 "$BIN/sfork" 0; want=$((want + 1))
		# tester's placed process runs a setuid-root program that
		# becomes root (no group claims it: cleared) and forks at once
		L cs-runas 1000 1000 "$A" we 5 "$BIN/suid" -u 0:0 2; want=$((want + 3))
		L "$BIN/cmember" tstorm 0 0; want=$((want + 1))
		# a placed member renames itself out and forks at once
		L "$BIN/cmember" we 5 "$BIN/cmember" rename outname 3; want=$((want + 4))
		i=$((i + 1))
	done
	# by uid and comm: suid processes are root now, cmember ones named
	# outname are out of the group
	judge() {
		cs-cookies -t -x | awk -v bin="$BIN" '$6 == bin "/cmember" && $7 == "outname" { $6 = bin "/cmout" } { print }' > "$W/snap"
		awk -v top=$$ -v dpid="$DPID" -v self=0 -v bin="$BIN" -v classes="$1" -v dflt="${2:-zero}" "$JUDGE" "$W/snap"
	}
	phase uclear-more "sfork=key:tenants suid=zero cmember=key:named cmout=zero" any
	judge() {
		cs-cookies -t -x > "$W/snap"
		awk -v top=$$ -v dpid="$DPID" -v self=0 -v bin="$BIN" -v classes="$1" -v dflt="${2:-zero}" "$JUDGE" "$W/snap"
	}
	reap
fi

# ---- cpfork: a placed member of A forks B's member, which clones
# CLONE_PARENT children at once (their parent is the A member; they run
# B's program, and carry A's cookie if cloned before B's member moved) ----
rep=0
while want_on cpfork && [ $rep -lt "${ATK_REPEAT:-1}" ]; do
	rep=$((rep + 1))
	fresh "[Group alpha]
MatchExe=$BIN/pa
[Group beta]
MatchExe=$BIN/bcp" || exit 1
	bystanders
	i=0; while [ $i -lt "$N" ]; do
		L "$BIN/pa" -w 5 1 "$BIN/bcp" cpfork 0 3; want=$((want + 5))
		i=$((i + 1))
	done
	phase cpfork "pa=key:alpha bcp=key:beta"
	# what the daemon makes of them when it reads every process afresh
	coresched reload >> "$W/out" 2>&1
	SETTLE=4 phase cpfork-after-reload "pa=key:alpha bcp=key:beta"
	reap
done

# ---- rename ----
if want_on rename; then
	fresh "[Group named]
MatchComm=renamed cmember" || exit 1
	bystanders
	i=0; while [ $i -lt "$N" ]; do
		L "$BIN/plain" rename renamed 3; want=$((want + 4))                      # renames itself in, forks
		L "$BIN/cmember" we 5 "$BIN/cmember" rename outname 3; want=$((want + 4)) # placed, renames out, forks
		i=$((i + 1))
	done
	phase rename "plain=key:named cmember=key:named"
	reap
fi

# ---- setuid ----
if want_on setuid; then
	fresh "[Group tenants]
MatchUser=tester other
Per=user" || exit 1
	bystanders
	i=0; while [ $i -lt "$N" ]; do
		# tester's process, placed, runs a setuid-root program that
		# becomes root (no group claims root: kept, UnmatchedExec=keep)
		# and forks at once; marked by program name "suid"
		L cs-runas 1000 1000 "$A" we 5 "$BIN/suid" -u 0:0 2; want=$((want + 3))
		# the same, becoming other (1001): another key of the group
		L cs-runas 1000 1000 "$A" we 5 "$BIN/sfork" 0; want=$((want + 1))
		i=$((i + 1))
	done
	# suid to 1001: its own copy, judged apart
	cp "$F" "$BIN/suid2" && chmod 4755 "$BIN/suid2"
	i=0; while [ $i -lt "$N" ]; do
		L cs-runas 1000 1000 "$A" we 5 "$BIN/suid2" -u 1001:1001 2; want=$((want + 3))
		L cs-runas 1001 1001 "$BIN/ten" 0; want=$((want + 1))
		i=$((i + 1))
	done
	phase setuid "suid=key:u1000 sfork=key:u1000 suid2=key:u1001 ten=key:u1001" any
	reap
fi

# ---- cgroup ----
if want_on cgroup; then
	CG=/sys/fs/cgroup/atk
	mkdir -p $CG/m1 $CG/m2 $CG/plain
	fresh "[Group tenants]
MatchCgroup=/atk/m*
Per=cgroup" || exit 1
	bystanders
	i=0; while [ $i -lt "$N" ]; do
		# from the root cgroup (unmatched, untagged) into m1, no exec
		L "$BIN/cg0" cgfork $CG/m1 3; want=$((want + 4))
		# from m1 (a placed member) into m2, at once, no exec
		L sh -c "echo \$\$ > $CG/m1/cgroup.procs && exec $BIN/cg1 we 5 $BIN/cg1 cgfork $CG/m2 3"; want=$((want + 4))
		# a process exec'd in m2: m2's own member
		L sh -c "echo \$\$ > $CG/m2/cgroup.procs && exec $BIN/cg2 tstorm 0 0"; want=$((want + 1))
		# from m1 (placed) into an unmatched cgroup: reported, not judged
		L sh -c "echo \$\$ > $CG/m1/cgroup.procs && exec $BIN/cgx we 5 $BIN/cgx cgfork $CG/plain 1"; want=$((want + 2))
		i=$((i + 1))
	done
	# classify by cgroup: rewrite the snapshot's program as cgroup tags
	judge() {
		cs-cookies -t -x | while read -r p t c pp u e rest; do
			case $e in
			"$BIN"/cg*)
				g=$(sed -n 's/^0:://p' /proc/$p/cgroup 2>/dev/null)
				case $g in /atk/m1) e=$BIN/in-m1 ;; /atk/m2) e=$BIN/in-m2 ;; /atk/plain) e=$BIN/in-plain ;; *) e=$BIN/in-root ;; esac ;;
			esac
			echo "$p $t $c $pp $u $e $rest"
		done > "$W/snap"
		awk -v top=$$ -v dpid="$DPID" -v self=0 -v bin="$BIN" -v classes="$1" -v dflt="${2:-zero}" "$JUDGE" "$W/snap"
	}
	phase cgroup "in-m1=key:m1 in-m2=key:m2 in-root=zero in-plain=key:m1"
	echo "attack: cgroup: children cloned from m1 into /atk/plain (not judged): $(awk -v bin=$BIN '$6 == bin "/in-plain" && $1 == $2 {print $1 ":" $3}' "$W/snap" | tr '\n' ' ')"
	# what the daemon itself makes of them when it reads them afresh
	coresched reload >> "$W/out" 2>&1
	SETTLE=4 phase cgroup-after-reload "in-m1=key:m1 in-m2=key:m2 in-root=zero in-plain=key:m1"
	reap
	unset -f judge 2>/dev/null
	judge() {
		cs-cookies -t -x > "$W/snap"
		awk -v top=$$ -v dpid="$DPID" -v self=0 -v bin="$BIN" -v classes="$1" -v dflt="${2:-zero}" "$JUDGE" "$W/snap"
	}
fi

# ---- reload ----
if want_on reload; then
	fresh "[Group alpha]
MatchExe=$BIN/alpha
[Group beta]
MatchExe=$BIN/beta
[Group trustme]
MatchExe=$BIN/trust" || exit 1
	bystanders
	mixr() {
		L "$BIN/alpha" tstorm 0 0; want=$((want + 1))
		L "$BIN/beta" 2; want=$((want + 3))
		L "$BIN/beta" -w 5 2 "$BIN/helperb" 0; want=$((want + 3))
		L "$BIN/gamma" 2; want=$((want + 3))
		L "$BIN/trust" 2; want=$((want + 3))
	}
	i=0; while [ $i -lt "$N" ]; do
		mixr
		if [ $i = $((N / 2)) ]; then
			# beta removed, alpha Per=process, gamma new, trustme trusted
			cat > "$CFG/coreschedd.conf" <<EOF2
[Daemon]
ReconcileSec=0
[Group alpha]
MatchExe=$BIN/alpha
Per=process
[Group gamma]
MatchExe=$BIN/gamma
[Group trustme]
MatchExe=$BIN/trust
Trusted=yes
EOF2
			coresched reload >> "$W/out" 2>&1 || kill -HUP "$DPID"
		fi
		i=$((i + 1))
	done
	phase reload "alpha=own beta=zero helperb=zero gamma=key:gamma trust=zero"
	reap
fi

# ---- restart ----
rep=0
while want_on restart && [ $rep -lt "${ATK_REPEAT:-1}" ]; do
	rep=$((rep + 1))
	betas=""
	fresh "[Group ten]
MatchExe=$BIN/ten
[Group beta]
MatchExe=$BIN/beta" || exit 1
	bystanders
	i=0; while [ $i -lt "$N" ]; do
		L cs-runas 1000 1000 "$BIN/ten" 2; want=$((want + 3))
		L cs-runas 1001 1001 "$BIN/ten" 2; want=$((want + 3))
		L "$BIN/beta" 2 "$BIN/helperb" 0; want=$((want + 3)); betas="$betas $!"
		if [ $i = $((N / 2)) ]; then
			sleep 2
			daemon_kill
			# while it is down, two placed members take a foreign
			# process's cookie (the same user may): a restart must
			# not let the group adopt it, and must repair them
			L "$BIN/fgn" 0; want=$((want + 1)); fg=$!
			sleep 0.3
			coresched new -d $fg
			for b in $(echo $betas | awk '{print $1, $2}'); do coresched copy -s $fg -d $b; done
			echo "attack: restart: foreign $fg $(cookie $fg); beta members$(for b in $betas; do printf ' %s:%s' $b "$(cookie $b)"; done)"
			printf '[Daemon]\nReconcileSec=0\n[Group ten]\nMatchExe=%s/ten\nPer=user\n[Group beta]\nMatchExe=%s/beta\n' "$BIN" "$BIN" > "$CFG/coreschedd.conf"
		fi
		i=$((i + 1))
	done
	rm -f "$SOCK"
	coreschedd --config-dir "$CFG" >>"$DLOG" 2>&1 &
	DPID=$!
	cleanup_pids="$cleanup_pids $DPID"
	# classify ten by uid: rewrite the program name
	judge() {
		cs-cookies -t -x | awk -v bin="$BIN" '$6 == bin "/ten" { $6 = bin "/ten" $5 } { print }' > "$W/snap"
		awk -v top=$$ -v dpid="$DPID" -v self=0 -v bin="$BIN" -v classes="$1" -v dflt="${2:-zero}" "$JUDGE" "$W/snap"
	}
	wait_for test -S "$SOCK" || fail restart-socket "$(tail -n3 "$DLOG")"
	phase restart "ten1000=key:u1000 ten1001=key:u1001 beta=key:beta helperb=key:beta fgn=free"
	reap
	judge() {
		cs-cookies -t -x > "$W/snap"
		awk -v top=$$ -v dpid="$DPID" -v self=0 -v bin="$BIN" -v classes="$1" -v dflt="${2:-zero}" "$JUDGE" "$W/snap"
	}
done

# ---- startup: members that fork a helper at once, started while the
# daemon starts (its start-up scan racing them); no state file ----
rep=0
while want_on startup && [ $rep -lt "${ATK_REPEAT:-1}" ]; do
	rep=$((rep + 1))
	fresh "[Group beta]
MatchExe=$BIN/beta" || exit 1
	daemon_kill
	bystanders
	# a few before, while no daemon runs
	L "$BIN/beta" 2 "$BIN/helperb" 0; want=$((want + 3))
	L "$BIN/beta" 2 "$BIN/helperb" 0; want=$((want + 3))
	sleep 0.5
	rm -f "$SOCK"
	coreschedd --config-dir "$CFG" >>"$DLOG" 2>&1 &
	DPID=$!
	cleanup_pids="$cleanup_pids $DPID"
	i=0; while [ $i -lt "$N" ]; do
		L "$BIN/beta" 2 "$BIN/helperb" 0; want=$((want + 3))
		i=$((i + 1))
	done
	wait_for test -S "$SOCK" || fail startup-socket "$(tail -n3 "$DLOG")"
	i=0; while [ $i -lt 2 ]; do
		L "$BIN/beta" 2 "$BIN/helperb" 0; want=$((want + 3))
		i=$((i + 1))
	done
	phase startup "beta=key:beta helperb=key:beta"
	reap
done

# ---- loss: members that fork a helper at once (the helper execs an
# unmatched program at once) while the daemon is stalled and its events
# overflow: the rescan after the loss must put the helpers where the
# event path would have (their parent's key, sticky) ----
rep=0
while want_on loss && [ $rep -lt "${ATK_REPEAT:-1}" ]; do
	rep=$((rep + 1))
	fresh "ReceiveBuffer=65536
[Group beta]
MatchExe=$BIN/beta" || exit 1
	bystanders
	# control: the same with the daemon awake
	L "$BIN/beta" 2 "$BIN/helperb" 0; want=$((want + 3))
	sleep 1
	kill -STOP "$DPID"
	cs-storm 0 2 /bin/true > /dev/null 2>&1 # overflow the event socket first
	i=0; while [ $i -lt "$N" ]; do
		L "$BIN/beta" 2 "$BIN/helperb" 0; want=$((want + 3))
		i=$((i + 1))
	done
	sleep 1
	kill -CONT "$DPID"
	phase loss "beta=key:beta helperb=key:beta"
	grep -i -E 'lost|rescan' "$DLOG" | tail -n 3 | sed 's/^/attack: loss: log: /'
	reap
done

# ---- pidreuse ----
if want_on pidreuse; then
	fresh "[Group alpha]
MatchExe=$BIN/alpha
[Group pin]
AllowUsers=tester" || exit 1
	# 1. while SMT is off a member cannot be placed; it exits and its pid
	#    goes to an unmatched process before SMT comes back
	if [ -w "$SMT" ]; then
		echo off > "$SMT"
		"$BIN/alpha" tstorm 0 0 & m=$!
		sleep 1.5
		kill -9 $m; wait $m 2>/dev/null
		cs-pidat $m "$BIN/orph" 0 >> "$W/out" 2>&1 || echo "attack: pidreuse: cs-pidat $m failed"
		echo on > "$SMT"
		"$BIN/alpha" tstorm 0 0 & m2=$!
		cleanup_pids="$cleanup_pids $m2"
		wait_for tagged $m2
		sleep 3
		ro=$(readlink /proc/$m/exe)
		expect pidreuse-smt-premise "$ro" "$BIN/orph"
		expect pidreuse-smt-reused-untagged "$(cookie $m)" 0x0
		expect_set pidreuse-smt-new-member "$(cookie $m2)"
		kill -9 $m 2>/dev/null
	else
		skip pidreuse-smt "no writable $SMT"
	fi
	# 2. an explicit placement's pid reused while the daemon is down
	sleep 1000 & x=$!
	coresched assign --group pin $x || fail pidreuse-assign "assign failed"
	wait_for grep -q "^$x " "$STATE" || fail pidreuse-state "no line for $x: $(cat $STATE)"
	xc=$(cookie $x)
	daemon_kill
	kill -9 $x; wait $x 2>/dev/null
	cs-pidat $x "$BIN/orph" 0 >> "$W/out" 2>&1 || echo "attack: pidreuse: cs-pidat $x failed"
	daemon_start || exit 1
	sleep 2
	expect pidreuse-restart-premise "$(readlink /proc/$x/exe)" "$BIN/orph"
	expect pidreuse-restart-reused-untagged "$(cookie $x)" 0x0
	echo "attack: pidreuse: placed cookie was $xc; ps says: $(coresched ps -n -r -o GROUP,ORIGIN $x 2>&1)"
	kill -9 $x 2>/dev/null
fi
daemon_stop
exit 0
