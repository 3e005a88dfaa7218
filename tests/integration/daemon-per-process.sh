# Per=process: the children of a member that a rule placed get cookies of
# their own, also when they run an unmatched helper at once (forked the
# moment the member's exec is done, so that the daemon often reads them
# only after their exec), as when they are forked once the member carries
# its cookie. None shares its parent's cookie, none is left at 0.
# Cookies read from the kernel (coresched get).
. /tests/integration/lib.sh
. /tests/integration/daemon-lib.sh

cp /usr/libexec/coresched-tests/cs-forker "$BIN/pp"
cat > "$CFG/coreschedd.conf" <<EOF2
[Daemon]
ReconcileSec=1
[Group pp]
MatchExe=$BIN/pp
Per=process
EOF2
daemon_start || exit 1
race="" waited=""
for i in 1 2 3 4; do
	bg "$BIN/pp" 3 /bin/sleep 1000; race="$race $!"
	bg "$BIN/pp" -w 10 3 /bin/sleep 1000; waited="$waited $!"
done
# judge NAME PARENTS...: every child of each parent has a cookie that is
# neither 0 nor its parent's, and no two children share one
judge() {
	local name=$1 p ch c pc bad= seen= n=0 counts=
	shift
	for p in "$@"; do
		wait_for tagged "$p"
		# a parent may be placed before its forks: count them all
		wait_for kids_ready "$p" 3
		pc=$(cookie "$p")
		counts="$counts $p:$(kids "$p" | wc -l)($(cut -d' ' -f3 /proc/$p/stat 2>/dev/null || echo gone),$pc)"
		for ch in $(kids "$p"); do
			# forked after the parent's placement, a child carries
			# the parent's cookie until the daemon reads its fork
			wait_for own_cookie "$ch" "$pc"
			c=$(cookie "$ch")
			n=$((n + 1))
			case " $seen " in *" $c "*) bad="$bad $ch:$c(twice)" ;; esac
			[ "$c" = 0x0 ] || [ -z "$c" ] || [ "$c" = "$pc" ] && bad="$bad $ch:$c(parent $p:$pc)"
			seen="$seen $c"
		done
	done
	[ "$n" -eq $(( $# * 3 )) ] || bad="$bad children:$n, parent:children(state,cookie):$counts"
	if [ -z "$bad" ]; then pass "$name"; else fail "$name" "$bad"; fi
}
judge helper-at-once-own-cookie $race
judge helper-after-placement-own-cookie $waited
daemon_stop
