# tests/bench/bench-proc.c: it builds, reads a live child with the daemon's
# own readers and prints one row for each read (a cost and its ratio to the
# floor's readlink, which is 1); a bad count is refused. No time is judged.
cd "$(dirname "$0")/../.." || exit 1
T=host/bench-proc
. tests/host/lib.bash
B=${B:-build}
if ! out=$(make -s "$B/bench/bench-proc" 2>&1); then
	echo "FAIL: $T/build: $out"
	exit 0
fi
out=$("$B/bench/bench-proc" 20 2>&1); rc=$?
rows=$(grep -cE '^[a-z].* +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2}$' <<<"$out")
why=
[ "$rows" = 8 ] || why="$rows rows of figures, expected 8"
grep -qE '^floor: readlink of exe +[0-9.]+ +1\.00$' <<<"$out" || why="${why:+$why; }the floor's row is not its own 1.00"
grep -qE '^pidfd \+ whole read +[0-9.]+ ' <<<"$out" || why="${why:+$why; }no row for a whole read with its pidfd"
result table 0 '^== 3e\. ' "$rc" "$out" "$why"
out=$("$B/bench/bench-proc" 0 2>&1); rc=$?
result bad-count 2 '^usage: bench-proc' "$rc" "$out"
