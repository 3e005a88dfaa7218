# The shipped unit's exposure as systemd-analyze scores it: 2.0 ("OK") or
# lower, without the options that would break the daemon.
cd "$(dirname "$0")/../.." || exit 1
T=host/unit-security
unit=${1:-systemd/coreschedd.service}
limit=2.0

if ! command -v systemd-analyze >/dev/null 2>&1; then
	echo "SKIP: $T/score: systemd-analyze is not installed"
	exit 0
fi
out=$(systemd-analyze security --offline=true "$unit" 2>&1)
score=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9][0-9.]*\).*/\1/p' <<<"$out" | tail -n1)
if [ -z "$score" ]; then
	echo "FAIL: $T/score: no exposure level in: $(tail -n3 <<<"$out")"
elif awk -v s="$score" -v l="$limit" 'BEGIN { exit !(s <= l) }'; then
	echo "PASS: $T/score ($score)"
else
	echo "FAIL: $T/score: exposure $score, above $limit"
fi

# Options that would cut the daemon off from what it must see.
for bad in PrivateNetwork PrivateUsers 'ProtectProc=invisible' 'ProcSubset=pid'; do
	if grep -qE "^${bad%%=*}=(yes|true|${bad#*=})\$" "$unit"; then
		echo "FAIL: $T/no-${bad%%=*}: $unit sets $bad, which breaks the daemon"
	else
		echo "PASS: $T/no-${bad%%=*}"
	fi
done
