# Sourced by the host tests (not a test itself: run-checks runs *.sh).

# result NAME WANT_RC PATTERN RC OUTPUT [FAILURE]: one PASS/FAIL line for a
# command that exited RC printing OUTPUT; FAILURE, when given, is a further
# reason the caller found to fail it.
result() {
	local name=$1 want=$2 pat=$3 rc=$4 out=$5 extra=${6:-}

	if [ "$rc" != "$want" ]; then
		echo "FAIL: $T/$name: exit status $rc, expected $want; output: $out"
	elif [ -n "$pat" ] && ! grep -qE -- "$pat" <<<"$out"; then
		echo "FAIL: $T/$name: output lacks /$pat/: $out"
	elif [ -n "$extra" ]; then
		echo "FAIL: $T/$name: $extra"
	else
		echo "PASS: $T/$name"
	fi
}
