#!/bin/bash
# tests/bench/callgrind-match.sh [COUNT] [GROUPS...]: instructions per rule
# look-up (build/bench/bench-match --count under callgrind, on the host),
# for the configurations and inputs of bench-match's table. Only
# rules_match() and what it calls are collected (--toggle-collect), so
# loading the configuration is left out; the total is divided by COUNT
# (default 2000). Prints one table.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
count=${1:-2000}
shift $(( $# >= 1 ? 1 : 0 ))
groups=${*:-10 100 1000}
bin=$top/build/bench/bench-match

command -v valgrind >/dev/null || { echo "callgrind-match: valgrind is not installed, skipped"; exit 0; }
make -C "$top" -s build/bench/bench-match >&2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Instructions per look-up for one configuration and input.
measure() {
	local out=$tmp/cg.$1.$2.$3
	valgrind --tool=callgrind --toggle-collect=rules_match --callgrind-out-file="$out" \
		"$bin" --count "$count" "$1" "$2" "$3" > "$tmp/stdout" 2> "$tmp/stderr" ||
		{ cat "$tmp/stdout" "$tmp/stderr" >&2; return 1; }
	callgrind_annotate "$out" | awk -v n="$count" \
		'/PROGRAM TOTALS/ { gsub(",", "", $1); printf "%.0f\n", $1 / n }'
}

echo "== 5c. instructions per rule look-up (callgrind, host, $count look-ups of rules_match)"
printf '%-7s %-13s %12s %12s\n' groups patterns last-group no-match
for patterns in exact globs; do
	for g in $groups; do
		printf '%-7s %-13s %12s %12s\n' "$g" "$([ $patterns = globs ] && echo "10% globs" || echo "exact paths")" \
			"$(measure "$g" $patterns last)" "$(measure "$g" $patterns none)"
	done
done
