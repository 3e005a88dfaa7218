#!/bin/bash
# The engine's own allocations failing, in the task-table model
# (tests/unit/test-engine-model.c) built with fault injection
# (CORESCHED_FAULT=site:errno[:count]): the tests that need it, each run
# alone. Prints their PASS/FAIL lines.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
B=${B:-build}
bin=$B/fault/tests/test-engine-model
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! make -s --no-print-directory B="$B/fault" FAULT=1 "$bin" > "$log" 2>&1; then
	echo "FAIL: engine-faults/build: $(tail -5 "$log" | tr '\n' '|')"
	exit 1
fi
rc=0
for t in test_program_entry_fails_at_exec; do
	out=$(UNIT_ONLY=$t "$bin" 2>&1)
	st=$?
	if [ $st -eq 0 ] && printf '%s\n' "$out" | grep -q "^PASS: unit/$t$"; then
		echo "PASS: engine-faults/$t"
	else
		echo "FAIL: engine-faults/$t: exit status $st: $(printf '%s\n' "$out" | grep -v '^model:' | tail -5 | tr '\n' '|')"
		rc=1
	fi
done
exit $rc
