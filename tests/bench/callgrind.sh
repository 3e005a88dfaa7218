#!/bin/bash
# tests/bench/callgrind.sh [SMALL BIG] [GROUPS...]: instructions per event
# of the daemon's event path (build/bench/bench-event under callgrind, on
# the host). For each group count it replays SMALL and BIG cycles of fork,
# exec, exit (default 700 and 4000: 2,100 and 12,000 events) and divides
# the difference in instructions by the difference in events, which takes
# out start-up (configuration, fake /proc, the first use of each key).
# Per kind: the same difference of the inclusive cost of the wrapper the
# bench sends that kind through. Prints one table.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
small=${1:-700}
big=${2:-4000}
shift $(( $# >= 2 ? 2 : $# ))
groups=${*:-10 100 1000}
bin=$top/build/bench/bench-event
kinds="replay_fork replay_exec_match replay_exec_other replay_exit"

command -v valgrind >/dev/null || { echo "callgrind: valgrind is not installed, skipped"; exit 0; }
make -C "$top" -s build/bench/bench-event >&2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One run: "total EVENTS IR" then "KIND COUNT IR" per kind.
measure() {
	local cycles=$1 g=$2 globs=$3 out=$tmp/cg.$1.$2.$3
	valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" "$cycles" "$g" 64 $globs \
		> "$tmp/stdout" 2> "$tmp/stderr" || { cat "$tmp/stdout" "$tmp/stderr" >&2; return 1; }
	callgrind_annotate --inclusive=yes --threshold=100 "$out" > "$tmp/annotate"
	awk -v kinds="$kinds" '
		FNR == NR && /^kinds:/ { for (i = 2; i < NF; i += 2) count[$i] = $(i + 1); next }
		FNR == NR && /^replayed/ { events = $2; next }
		FNR == NR { next }
		/PROGRAM TOTALS/ { gsub(",", "", $1); total = $1 }
		{ for (k in count) if (index($0, ":" k " ")) { gsub(",", "", $1); ir[k] = $1 } }
		END {
			print "total", events, total
			n = split(kinds, ks, " ")
			for (i = 1; i <= n; i++) print ks[i], count[ks[i]], ir[ks[i]] + 0
		}' "$tmp/stdout" "$tmp/annotate"
}

# Instructions per event between two runs, per line of measure().
per_event() {
	join <(sort "$1") <(sort "$2") | awk '{ d = $4 - $2; printf "%s %.0f\n", $1, (d > 0 ? ($5 - $3) / d : 0) }'
}

echo "== 3b. instructions per event (callgrind, host replay)"
echo "# $((small * 3)) and $((big * 3)) events of fork, exec, exit; 64 processes, half matching;"
echo "# Ir per event = (Ir(big) - Ir(small)) / events difference; kernel calls are not counted"
printf '%-7s %-12s %9s %9s %11s %11s %9s\n' groups patterns "all" fork "exec match" "exec other" exit
for globs in "" globs; do
	for g in $groups; do
		measure "$small" "$g" "$globs" > "$tmp/a"
		measure "$big" "$g" "$globs" > "$tmp/b"
		per_event "$tmp/a" "$tmp/b" > "$tmp/r"
		v() { awk -v k="$1" '$1 == k { print $2 }' "$tmp/r"; }
		printf '%-7s %-12s %9s %9s %11s %11s %9s\n' "$g" "$([ -n "$globs" ] && echo "10% globs" || echo "exact paths")" \
			"$(v total)" "$(v replay_fork)" "$(v replay_exec_match)" "$(v replay_exec_other)" "$(v replay_exit)"
	done
done
