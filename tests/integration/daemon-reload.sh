# A reload judges every running process again by the new groups
# (coreschedd.conf(5), MATCHING: "A reload builds the new groups first,
# then reads every process afresh and judges it by them"): members of a
# removed group, with their helpers and explicit placements, return to
# cookie 0; a change of Per= or Trusted= re-keys the members within their
# group; a changed MatchExe= takes in a process it now matches, and a
# member it no longer matches stays in its key (origin sticky), as after
# an exec that no group claims, unless UnmatchedExec=clear, which returns
# every unclaimed member to cookie 0; a new group takes the processes it matches;
# an explicit placement keeps its group and key name; a reload that
# changes nothing moves nobody, and none moves a process of a group it
# leaves as it was. Cookies read from the kernel; `coresched reload`
# returns once every process has been judged again.
. /tests/integration/lib.sh
. /tests/integration/daemon-lib.sh

rm -f /run/coresched/coreschedd.state
for w in steady team gone gonex split trust na nb nc fresh pinr pinx loner; do worker $w; done
# members that run a helper: cs-forker forks two children once it carries
# its cookie, and they run sleep, which no group claims
for f in gonef splitf trustf; do cp /usr/libexec/coresched-tests/cs-forker "$BIN/$f"; done

GONE=yes SPLITEXE="$BIN/split $BIN/splitf" SPLIT=group TRUST=no NARROW="$BIN/na $BIN/nb" FRESH=no PIN="$BIN/pinr" PINPER=group GRAB=no UNMATCHED=keep
write_conf() {
	{
		printf '[Daemon]\nReconcileSec=1\nUnmatchedExec=%s\n' $UNMATCHED
		printf '[Group steady]\nMatchExe=%s\nPer=process\n' "$BIN/steady"
		printf '[Group team]\nMatchExe=%s\nPer=user\n' "$BIN/team"
		[ $GONE = yes ] && printf '[Group gone]\nMatchExe=%s %s\n' "$BIN/gone" "$BIN/gonef"
		printf '[Group split]\nMatchExe=%s\nPer=%s\n' "$SPLITEXE" $SPLIT
		printf '[Group trust]\nMatchExe=%s %s\nTrusted=%s\n' "$BIN/trust" "$BIN/trustf" $TRUST
		printf '[Group narrow]\nMatchExe=%s\n' "$NARROW"
		[ $FRESH = yes ] && printf '[Group fresh]\nMatchExe=%s\n' "$BIN/fresh"
		printf '[Group pinned]\nMatchExe=%s\nPer=%s\n' "$PIN" $PINPER
		[ $GRAB = yes ] && printf '[Group grab]\nMatchExe=%s\nPriority=100\n' "$BIN/loner"
	} > "$CFG/coreschedd.conf"
}

# reload NAME: write the configuration and reload; coresched reload waits
# for the daemon to have judged every process by it
reload() {
	write_conf
	if coresched reload >/tmp/$T-reload.out 2>&1; then
		pass "$1-reload"
	else
		fail "$1-reload" "coresched reload: $(cat /tmp/$T-reload.out)"
	fi
}
# snap PID...: "PID=COOKIE" of each, on one line
snap() { local p; for p in "$@"; do printf '%s=%s ' "$p" "$(cookie "$p")"; done; }
counter() { coresched status 2>/dev/null | sed -n "s/^  $1: //p"; }
# reconciled: wait until two reconcile passes have begun since the call,
# so that one ran wholly after whatever came before (a reconcile repairs
# what differs from the daemon's plan: a plan changed by a reload without
# its cookies shows then). Up to 30 s, for a sanitized daemon.
reconciled() {
	local n0 i=0
	n0=$(counter reconciles)
	while [ $i -lt 300 ]; do
		[ "$(counter reconciles)" -ge $((${n0:-0} + 2)) ] 2>/dev/null && return 0
		sleep 0.1
		i=$((i + 1))
	done
	fail reconciled "no reconcile pass within 30 s ($n0 -> $(counter reconciles))"
}
# all_zero NAME PID...: each of them at cookie 0 (waited for); none given
# is a failure (a helper list left empty)
all_zero() {
	local name=$1 p bad=
	shift
	[ $# -gt 0 ] || { fail "$name" "no processes to judge"; return; }
	for p in "$@"; do settles "$p" 0x0 || bad="$bad $p:$(cookie "$p")"; done
	if [ -z "$bad" ]; then pass "$name"; else fail "$name" "not at cookie 0:$bad"; fi
}
# shared COOKIE PID...: each of them carries COOKIE
shares() { local c=$1 p; shift; for p in "$@"; do cookie_is "$p" "$c" || return 1; done; }
# share_set PID...: all carry the first one's cookie, which is set
share_set() { local c; c=$(cookie "$1"); [ -n "$c" ] && [ "$c" != 0x0 ] && shares "$c" "$@"; }
# all_share NAME PID...: share_set, waited for
all_share() {
	local name=$1
	shift
	if wait_for share_set "$@"; then pass "$name"; else fail "$name" "$(snap "$@")"; fi
}
# distinct_set PID...: each carries a cookie, set, that no other of them carries
distinct_set() {
	local p c seen=
	for p in "$@"; do
		c=$(cookie "$p")
		[ -n "$c" ] && [ "$c" != 0x0 ] || return 1
		case " $seen " in *" $c "*) return 1 ;; esac
		seen="$seen $c"
	done
}
# explained PID: "GROUP|KEY|ORIGIN" as coresched explain prints them
explained() {
	coresched explain "$1" 2>&1 | awk -F': ' '$1 == "group" { g = $2 } $1 == "key" { k = $2 } $1 == "origin" { o = $2 }
		END { print g "|" k "|" o }'
}
# start_forker NAME: $BIN/NAME with two helpers, once they run sleep with
# its cookie: F its pid, FK theirs
helper_ready() { grep -qx sleep /proc/$1/comm 2>/dev/null && cookie_is "$1" "$2"; }
start_forker() {
	local k
	bg "$BIN/$1" -w 10 2 /bin/sleep 1000
	F=$!
	wait_for tagged $F || fail "$1-placed" "$1 ($F) has cookie '$(cookie $F)'"
	wait_for kids_ready $F 2 || fail "$1-forked" "$1 ($F) has children: $(kids $F | tr '\n' ' ')"
	FK=$(kids $F | tr '\n' ' ')
	for k in $FK; do
		wait_for helper_ready $k "$(cookie $F)" ||
			fail "$1-helper-ready" "helper $k runs $(cat /proc/$k/comm), cookie $(cookie $k), its parent's $(cookie $F)"
	done
}
runs() { grep -qx "$2" /proc/$1/comm 2>/dev/null; }

write_conf
daemon_start || exit 1

bg $BIN/steady 1 >/dev/null; s1=$!
bg $BIN/steady 1 >/dev/null; s2=$!
bg cs-runas 1000 1000 $BIN/team 1 >/dev/null; t1=$!
bg cs-runas 1001 1001 $BIN/team 1 >/dev/null; t2=$!
bg $BIN/gone 1 >/dev/null; g1=$!
start_forker gonef; gf=$F gk=$FK
bg $BIN/gonex 1 >/dev/null; gx=$!
bg $BIN/split 1 >/dev/null; sp1=$!
bg $BIN/split 1 >/dev/null; sp2=$!
bg $BIN/split 1 >/dev/null; sp3=$!
start_forker splitf; sf=$F sk=$FK
bg $BIN/trust 1 >/dev/null; tr1=$!
bg $BIN/trust 1 >/dev/null; tr2=$!
start_forker trustf; tf=$F tk=$FK
bg $BIN/na 1 >/dev/null; na=$!
bg $BIN/nb 1 >/dev/null; nb=$!
bg $BIN/nc 1 >/dev/null; nc=$!
bg $BIN/fresh 1 >/dev/null; fr1=$!
bg $BIN/fresh 1 >/dev/null; fr2=$!
bg $BIN/pinr 1 >/dev/null; pr=$!
bg $BIN/pinx 1 >/dev/null; px=$!
bg $BIN/loner 1 >/dev/null; lo=$!
bg $BIN/loner 1 >/dev/null; lo2=$!

# Before any reload: the placements the reloads change.
for p in $s1 $s2 $t1 $t2 $g1 $sp1 $sp2 $sp3 $tr1 $tr2 $na $nb $pr; do
	wait_for tagged $p || fail "placed-$p" "$(cat /proc/$p/comm 2>&1) ($p) has cookie '$(cookie $p)'"
done
# and the others running their programs
for pn in $gx:gonex $nc:nc $fr1:fresh $fr2:fresh $px:pinx $lo:loner $lo2:loner; do
	wait_for runs ${pn%%:*} ${pn#*:} || fail "started-${pn#*:}" "${pn%%:*} runs $(cat /proc/${pn%%:*}/comm 2>&1)"
done
coresched assign --group gone $gx || fail assign-gone "coresched assign --group gone $gx failed"
coresched assign --group pinned $lo || fail assign-pinned "coresched assign --group pinned $lo failed"
expect_distinct premise-gone-apart "$(cookie $g1)" "$(cookie $s1)"
all_share premise-gone-shared $g1 $gf $gk $gx
all_share premise-split-shared $sp1 $sp2 $sp3 $sf $sk
all_share premise-trust-shared $tr1 $tr2 $tf $tk
expect_distinct premise-narrow-apart "$(cookie $na)" "$(cookie $sp1)"
expect premise-narrow-nc-unmatched "$(cookie $nc)" 0x0
expect premise-fresh-unmatched "$(cookie $fr1) $(cookie $fr2)" "0x0 0x0"
all_share premise-pinned-explicit $pr $lo
expect premise-pinned-explained "$(explained $lo)" "pinned|(one key for the whole group)|assign"
expect premise-pinx-unmatched "$(cookie $px)" 0x0
expect premise-loner-unmatched "$(cookie $lo2)" 0x0
bystanders="$s1 $s2 $t1 $t2"
distinct_set $s1 $s2 $t1 $t2 && pass premise-bystanders || fail premise-bystanders "$(snap $bystanders)"
everyone="$bystanders $g1 $gf $gk $gx $sp1 $sp2 $sp3 $sf $sk $tr1 $tr2 $tf $tk $na $nb $nc $fr1 $fr2 $pr $px $lo $lo2"

# 7. A reload that changes nothing moves nobody: not as it returns, nor
# once reconciles have run since.
before=$(snap $everyone)
reload noop
expect noop-moves-nobody "$(snap $everyone)" "$before"
reconciled
expect noop-moves-nobody-after-reconcile "$(snap $everyone)" "$before"

# 1. A removed group: its members, the helpers of one, and a process
# placed in it explicitly return to cookie 0.
others=$(snap $bystanders $sp1 $tr1 $na $nb $pr $lo)
GONE=no
reload remove
all_zero removed-members $g1 $gf
all_zero removed-helpers $gk
all_zero removed-explicit $gx
expect removed-others-unmoved "$(snap $bystanders $sp1 $tr1 $na $nb $pr $lo)" "$others"
reconciled
all_zero removed-members-stay $g1 $gf $gk $gx

# 2. Per=group to Per=process: each member, helpers too (the group claims
# them: they are its members), gets a cookie of its own; none is left at
# 0 or in the old shared cookie. And back: one cookie shared again.
old=$(cookie $sp1)
others=$(snap $bystanders $tr1 $na $nb $pr $lo)
SPLIT=process
reload per-process
if wait_for distinct_set $sp1 $sp2 $sp3 $sf $sk; then pass per-process-distinct; else
	fail per-process-distinct "$(snap $sp1 $sp2 $sp3 $sf $sk)"; fi
case " $(snap $sp1 $sp2 $sp3 $sf $sk)" in
*"=$old "*) fail per-process-left-old-key "$(snap $sp1 $sp2 $sp3 $sf $sk), the old shared cookie $old" ;;
*) pass per-process-left-old-key ;;
esac
expect per-process-others-unmoved "$(snap $bystanders $tr1 $na $nb $pr $lo)" "$others"
reconciled
distinct_set $sp1 $sp2 $sp3 $sf $sk && pass per-process-distinct-stays ||
	fail per-process-distinct-stays "$(snap $sp1 $sp2 $sp3 $sf $sk)"
SPLIT=group
reload per-group
all_share per-group-shared $sp1 $sp2 $sp3 $sf $sk
distinct_set $sp1 $s1 $s2 $t1 $t2 $tr1 $na $pr && pass per-group-own-cookie ||
	fail per-group-own-cookie "$(snap $sp1 $s1 $s2 $t1 $t2 $tr1 $na $pr)"
reconciled
all_share per-group-shared-stays $sp1 $sp2 $sp3 $sf $sk

# 3. Trusted=yes: members get no cookie (coreschedd.conf(5), Trusted=),
# and their helpers, which no group claims, leave a key that has none.
# Unset again: the members share a cookie of the group's.
others=$(snap $bystanders $sp1 $na $nb $pr $lo)
TRUST=yes
reload trusted
all_zero trusted-members $tr1 $tr2 $tf
all_zero trusted-helpers $tk
expect trusted-others-unmoved "$(snap $bystanders $sp1 $na $nb $pr $lo)" "$others"
reconciled
all_zero trusted-stays $tr1 $tr2 $tf $tk
TRUST=no
reload untrusted
all_share untrusted-shared $tr1 $tr2 $tf
distinct_set $tr1 $s1 $s2 $t1 $t2 $sp1 $na $pr && pass untrusted-own-cookie ||
	fail untrusted-own-cookie "$(snap $tr1 $s1 $s2 $t1 $t2 $sp1 $na $pr)"
echo "  trust's helpers after Trusted=no: $(snap $tk)(its members: $(cookie $tr1))"

# 4. MatchExe= of narrow changes from na nb to nb nc: na, no longer
# matched, stays in narrow's key as an unclaimed member (coreschedd.conf(5),
# MATCHING: "In a key, it stays there with its cookie"; section 8 lets it
# go); nb stays where it is; nc, matched now, joins nb's key.
nbc=$(cookie $nb)
others=$(snap $bystanders $sp1 $tr1 $pr $lo)
NARROW="$BIN/nb $BIN/nc"
reload matchexe
expect matchexe-unmatched-kept "$(cookie $na)" "$nbc"
expect matchexe-unmatched-sticky "$(explained $na)" "narrow|(one key for the whole group)|sticky"
expect matchexe-still-matched-stays "$(cookie $nb)" "$nbc"
settles $nc "$nbc"
expect matchexe-newly-matched-joins "$(cookie $nc)" "$nbc"
expect matchexe-others-unmoved "$(snap $bystanders $sp1 $tr1 $pr $lo)" "$others"
reconciled
expect matchexe-stays "$(snap $na $nb $nc)" "$na=$nbc $nb=$nbc $nc=$nbc "

# 5. A new group takes the running processes it matches, with a cookie
# of its own.
others=$(snap $bystanders $sp1 $tr1 $nb $pr $lo)
FRESH=yes
reload new-group
all_share new-group-shared $fr1 $fr2
distinct_set $fr1 $s1 $s2 $t1 $t2 $sp1 $tr1 $nb $pr && pass new-group-own-cookie ||
	fail new-group-own-cookie "$(snap $fr1 $s1 $s2 $t1 $t2 $sp1 $tr1 $nb $pr)"
expect new-group-others-unmoved "$(snap $bystanders $sp1 $tr1 $nb $pr $lo)" "$others"

# 6. An explicit placement survives a reload that changes its group's
# rules (pinned now matches pinx too, which joins it), and is not moved by
# a new group of higher priority whose rule matches it (grab takes the
# other loner, which nobody placed).
loc=$(cookie $lo)
PIN="$BIN/pinr $BIN/pinx" GRAB=yes
reload explicit
expect explicit-same-cookie "$(cookie $lo)" "$loc"
expect explicit-same-group-key "$(explained $lo)" "pinned|(one key for the whole group)|assign"
settles $px "$loc"
expect explicit-rule-change-applied "$(cookie $px)" "$loc"
wait_for tagged $lo2
expect_distinct explicit-rival-rule-applied "$(cookie $lo2)" "$loc"
expect explicit-rival-group "$(explained $lo2 | cut -d'|' -f1)" grab
reconciled
expect explicit-stays "$(cookie $lo) $(explained $lo)" "$loc pinned|(one key for the whole group)|assign"
# Per= of its group changes: re-keyed within the group, under the same
# key name, while the rule's members take keys by the new Per=.
PINPER=user
reload explicit-per
expect explicit-per-group-key "$(explained $lo)" "pinned|(one key for the whole group)|assign"
expect_set explicit-per-cookie "$(cookie $lo)"
expect explicit-per-rule-key "$(explained $pr)" "pinned|0|rule"
reconciled
expect explicit-per-stays "$(explained $lo)" "pinned|(one key for the whole group)|assign"

# 7 again, after all that: a reload that changes nothing moves nobody.
everyone="$bystanders $sp1 $sp2 $sp3 $sf $sk $tr1 $tr2 $tf $tk $na $nb $nc $fr1 $fr2 $pr $px $lo $lo2"
before=$(snap $everyone)
reload noop-late
expect noop-late-moves-nobody "$(snap $everyone)" "$before"
reconciled
expect noop-late-moves-nobody-after-reconcile "$(snap $everyone)" "$before"

# 8. UnmatchedExec=clear: a reload judges the members no group claims
# (na, split's helpers) by it, and returns them to cookie 0; the members
# the rules claim keep their cookies, and so does the explicit placement.
claimed="$nb $nc $sp1 $sp2 $sp3 $sf $tr1 $fr1 $pr $lo"
before=$(snap $claimed)
UNMATCHED=clear
reload unmatched-clear
all_zero unmatched-clear-released $na $sk
expect unmatched-clear-claimed-kept "$(snap $claimed)" "$before"
reconciled
all_zero unmatched-clear-released-stay $na $sk
expect unmatched-clear-claimed-stay "$(snap $claimed)" "$before"

# 9. Still UnmatchedExec=clear: split's MatchExe= narrows to its forker
# and its Per= changes in the same reload. The members no longer claimed
# return to 0 rather than being re-keyed with the group; the forker, still
# claimed, gets a cookie of its own.
old=$(cookie $sf)
SPLITEXE="$BIN/splitf" SPLIT=process
reload clear-per-narrowed
all_zero clear-per-narrowed-released $sp1 $sp2 $sp3
wait_for own_cookie $sf "$old" && pass clear-per-narrowed-rekeyed ||
	fail clear-per-narrowed-rekeyed "$sf: $(cookie $sf), its old cookie $old"
reconciled
all_zero clear-per-narrowed-released-stay $sp1 $sp2 $sp3

kill -0 $DPID && pass daemon-alive || fail daemon-alive "coreschedd exited: $(tail -n 5 $DLOG)"
daemon_stop || fail daemon-stop "coreschedd did not stop cleanly"
