#!/bin/bash
# Golden configuration tests: each tests/conf/NN-name.conf becomes
# DIR/coreschedd.conf (and NN-name.d/, when present, DIR/rules.d) and is
# checked with `coreschedd --check-config --config-dir DIR`. NN-name.ok is
# the expected stdout (exit status 0), NN-name.err the expected stderr (exit
# status 1). The temporary directory prints as @DIR@. Also checks that the
# shipped configuration loads.
# Prints one "PASS: conf/NAME" or "FAIL: conf/NAME" line per case.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=$top/build/coreschedd
failed=0

if [ ! -x "$bin" ]; then
	echo "FAIL: conf/golden: $bin is missing; run make first"
	exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() { # name, message
	echo "FAIL: conf/$1${2:+: $2}"
	failed=1
}

# run_case NAME CONF DROPIN_DIR: leaves stdout, stderr and the exit status
# in $work/out, $work/err and $rc, with the directory spelled @DIR@.
run_case() {
	local dir=$work/$1
	mkdir -p "$dir"
	cp "$2" "$dir/coreschedd.conf"
	if [ -n "$3" ] && [ -d "$3" ]; then
		cp -a "$3" "$dir/rules.d"
	fi
	"$bin" --check-config --config-dir "$dir" >"$work/out.raw" 2>"$work/err.raw"
	rc=$?
	sed "s|$dir|@DIR@|g" "$work/out.raw" >"$work/out"
	sed "s|$dir|@DIR@|g" "$work/err.raw" >"$work/err"
}

check_golden() { # NAME
	local name=$1 base=$top/tests/conf/$1 want got status
	run_case "$name" "$base.conf" "$base.d"
	if [ -e "$base.ok" ]; then
		want=$base.ok got=$work/out status=0
	elif [ -e "$base.err" ]; then
		want=$base.err got=$work/err status=1
	else
		fail "$name" "neither $name.ok nor $name.err exists"
		return
	fi
	if [ "$rc" -ne "$status" ]; then
		fail "$name" "exit status $rc, expected $status"
		sed 's/^/  /' "$work/err"
		return
	fi
	if ! diff -u "$want" "$got" >"$work/diff"; then
		fail "$name"
		sed 's/^/  /' "$work/diff"
		return
	fi
	echo "PASS: conf/$name"
}

for f in "$top"/tests/conf/*.conf; do
	[ -e "$f" ] || continue
	check_golden "$(basename "$f" .conf)"
done

# The shipped files must load as they are installed.
shipped=$work/shipped-rules.d
mkdir -p "$shipped"
cp "$top"/conf/rules.d/*.conf "$shipped"/ 2>/dev/null
run_case shipped "$top/conf/coreschedd.conf" "$shipped"
if [ "$rc" -ne 0 ]; then
	fail shipped "exit status $rc"
	sed 's/^/  /' "$work/err"
elif ! grep -q '^# source: @DIR@/coreschedd.conf$' "$work/out"; then
	fail shipped "coreschedd.conf was not read"
else
	echo "PASS: conf/shipped"
fi

# The configuration fuzzer's dictionary names every key the parser knows
# (daemon/conf-keys.c's tables), so that mutations reach each one.
missing=
keys=$(grep -o '[CDG]("[A-Za-z]*"' "$top/daemon/conf-keys.c" | sed 's/.*("\(.*\)"/\1/' | sort -u)
for k in $keys; do
	grep -q "=\"$k=\"\$" "$top/tests/fuzz/conf.dict" || missing="$missing $k"
done
if [ -z "$keys" ]; then
	fail fuzz-dict "no key found in daemon/conf-keys.c"
elif [ -n "$missing" ]; then
	fail fuzz-dict "tests/fuzz/conf.dict lacks:$missing"
else
	echo "PASS: conf/fuzz-dict"
fi

exit "$failed"
