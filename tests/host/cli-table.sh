# Table output (list, ps) from a stand-in daemon: not to a terminal, each
# row is one line with every cell whole, however long; to a terminal the
# long columns are cut so that each row still fits on one line.
cd "$(dirname "$0")/../.." || exit 1
cs=$PWD/build/coresched
T=host/cli-table
. tests/host/lib.bash

work=$(mktemp -d)
CORESCHED_SOCKET=$work/sock
export CORESCHED_SOCKET
unset COLUMNS
long=/etc/coresched/rules.d/50-$(printf 'very-long-name-%.0s' 1 2 3 4 5 6 7 8).conf:12
exe=/opt/$(printf 'deep/%.0s' $(seq 30))tenant-web
cgroup=/machine.slice/$(printf 'nested-%.0s' $(seq 20)).scope
cat > "$work/replies.json" <<EOF2
{"io.coresched.ListGroups": {"parameters": {"groups": [
  {"name": "web", "key": "1000", "tasks": 3, "cookie": "0x1234", "per": "user",
   "trusted": false, "source": "$long", "assignments": 4},
  {"name": "db", "key": "", "tasks": 1, "cookie": "0x99", "per": "group",
   "trusted": true, "source": "/etc/coresched/coreschedd.conf:3", "assignments": 1}]}},
 "io.coresched.ListProcesses": {"parameters": {"processes": [
  {"pid": 42, "uid": 1000, "user": "tester", "comm": "tenant-web", "group": "web",
   "key": "$cgroup", "cookie": "0x1234", "origin": "rule", "exe": "$exe", "cgroup": "$cgroup"},
  {"pid": 7, "uid": 0, "user": "root", "comm": "db", "group": "db", "key": "",
   "cookie": "0x99", "origin": "rule", "exe": "/usr/sbin/db", "cgroup": "/"}]}},
 "io.coresched.Status": {"parameters": {"version": "0.0.9", "config_sources": [],
   "counters": {"events": 1}}}}
EOF2
python3 tests/host/fake-coreschedd.py "$CORESCHED_SOCKET" "$work/replies.json" &
fake=$!
trap 'kill $fake 2>/dev/null; rm -rf "$work"' EXIT
i=0; while [ ! -S "$CORESCHED_SOCKET" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done

# rows NAME OUTPUT N PATTERN...: OUTPUT is N lines, and line k+1 matches
# the k-th PATTERN (the first line is the heading).
rows() {
	local name=$1 out=$2 n=$3 k=2
	shift 3
	if [ "$(printf '%s\n' "$out" | wc -l)" != "$n" ]; then
		echo "FAIL: $T/$name: expected $n lines, got: $out"
		return
	fi
	for pat in "$@"; do
		if ! printf '%s\n' "$out" | sed -n "${k}p" | grep -qE -- "$pat"; then
			echo "FAIL: $T/$name: line $k lacks /$pat/: $out"
			return
		fi
		k=$((k + 1))
	done
	echo "PASS: $T/$name"
}

out=$($cs list | cat)
rows list-piped "$out" 3 "^web +1000 +3 +0x1234 +user +no +$long\$" '^db +1 +0x99 +group'
# -J: TRUSTED is a JSON boolean.
out=$($cs list -J -o GROUP,TRUSTED | tr -d ' \n')
[ "$out" = '{"dry_run":false,"groups":[{"group":"web","trusted":false},{"group":"db","trusted":true}]}' ] &&
	echo "PASS: $T/list-json-trusted-false" || echo "FAIL: $T/list-json-trusted-false: $out"
out=$($cs ps -o +EXE,CGROUP | cat)
rows ps-piped "$out" 3 "^ +7 +root +db +db .* /usr/sbin/db +/\$" \
	"^ +42 +tester +tenant-web +web +$cgroup +0x1234 +rule +$exe +$cgroup\$"
# A daemon from before the exposure was counted (an upgrade not yet
# restarted) has no "exposure" in its Status: said so, no abort.
out=$($cs stats --untagged 2>&1)
rc=$?
result stats-untagged-old-daemon 1 'does not report the exposure' "$rc" "$out"
out=$($cs status 2>&1)
rc=$?
result status-old-daemon 0 'events: 1' "$rc" "$out"
out=$(COLUMNS=60 $cs list | cat)
rows list-piped-columns-ignored "$out" 3 "$long\$" "^db "

if command -v script >/dev/null && script -qc true /dev/null >/dev/null 2>&1; then
	# A terminal that says it has no width (a serial console): whole rows.
	out=$(script -qc "stty cols 0 rows 0; $cs list" /dev/null </dev/null | tr -d '\r')
	rows list-unsized-terminal "$out" 3 "$long\$" '^db '
	# A sized terminal: one line per row, the long cells cut to fit.
	out=$(script -qc "stty cols 90 rows 24; $cs list" /dev/null </dev/null | tr -d '\r')
	rows list-terminal-one-line-per-row "$out" 3 '^web +1000 +3 +0x1234 +user +no +/etc/coresched' '^db '
	too_wide=$(printf '%s\n' "$out" | awk 'length($0) > 90' | wc -l)
	if [ "$too_wide" = 0 ]; then echo "PASS: $T/list-terminal-fits"; else
		echo "FAIL: $T/list-terminal-fits: $too_wide lines wider than 90 columns: $out"; fi
	out=$(script -qc "stty cols 40 rows 24; $cs list -r" /dev/null </dev/null | tr -d '\r')
	rows list-terminal-raw-whole "$out" 3 "^web 1000 3 0x1234 user no $long\$" '^db '
	out=$(script -qc "stty cols 100 rows 24; $cs ps -o +EXE,CGROUP" /dev/null </dev/null | tr -d '\r')
	rows ps-terminal-one-line-per-row "$out" 3 '^ +7 ' '^ +42 +tester +tenant-web +web '
else
	echo "SKIP: $T/list-terminal: no working script(1) to give coresched a terminal"
fi

# A cgroup path the kernel cut: ps marks it first, so that the mark stays
# when a terminal's width cuts the cell.
kill $fake 2>/dev/null
wait $fake 2>/dev/null
rm -f "$CORESCHED_SOCKET"
cut_cg=/machine.slice/$(printf 'nested-%.0s' $(seq 40)).scope
cat > "$work/replies.json" <<EOF2
{"io.coresched.ListProcesses": {"parameters": {"processes": [
  {"pid": 42, "uid": 1000, "user": "tester", "comm": "tenant-web", "group": "web", "key": "k",
   "cookie": "0x1234", "origin": "rule", "exe": "/usr/bin/web", "cgroup": "$cut_cg", "cgroup_cut": true}]}}}
EOF2
python3 tests/host/fake-coreschedd.py "$CORESCHED_SOCKET" "$work/replies.json" &
fake=$!
i=0; while [ ! -S "$CORESCHED_SOCKET" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
out=$($cs ps -o PID,CGROUP | cat)
rows ps-cut-cgroup-piped "$out" 2 "^ +42 +\\(cut\\) $cut_cg/\\.\\.\\.\$"
if command -v script >/dev/null && script -qc true /dev/null >/dev/null 2>&1; then
	out=$(script -qc "stty cols 80 rows 24; $cs ps -o PID,COMM,CGROUP" /dev/null </dev/null | tr -d '\r')
	rows ps-cut-cgroup-terminal "$out" 2 '^ +42 +tenant-web +\(cut\) /machine\.slice/nested-'
else
	echo "SKIP: $T/ps-cut-cgroup-terminal: no working script(1) to give coresched a terminal"
fi

# A process's comm, exe, cgroup and key are its owner's to choose: the text
# output prints their control bytes as \xNN (no line of its own, no
# terminal sequence); JSON output keeps the value as it is.
kill $fake 2>/dev/null
wait $fake 2>/dev/null
rm -f "$CORESCHED_SOCKET"
cat > "$work/replies.json" <<'EOF2'
{"io.coresched.Explain": {"parameters": {"pid": 42, "comm": "x\u001b[2Jy", "exe": "/tmp/a\nb",
   "uid": 1000, "gid": 1000, "cgroup": "/u\u0007.scope", "rules": [
   {"group": "web", "source": "x.conf:1", "matched": true, "reason": "exe /tmp/a\nb"}],
   "rule_group": "web", "group": "web", "key": "/u\u0007.scope", "origin": "rule",
   "cookie": "0x1", "expected_cookie": "0x1", "agrees": true}},
 "io.coresched.ListProcesses": {"parameters": {"processes": [
  {"pid": 42, "uid": 1000, "user": "tester", "comm": "x\u001b[2Jy", "group": "web", "key": "k",
   "cookie": "0x1", "origin": "rule", "exe": "/tmp/a\nb", "cgroup": "/u\u0007.scope"},
  {"pid": 43, "uid": 1000, "user": "tester", "comm": "caf\u00e9\u009b2J", "group": "web", "key": "k",
   "cookie": "0x1", "origin": "rule", "exe": "/tmp/caf\u00e9", "cgroup": "/"}]}},
 "io.coresched.Reload": {"error": "io.coresched.Unheard",
   "parameters": {"what": "x\u001b\u009by"}},
 "io.coresched.Assign": {"error": "io.coresched.AssignFailed",
   "parameters": {"pid": 42, "error": "permission denied: \u001b]0;pwned\u0007"}}}
EOF2
python3 tests/host/fake-coreschedd.py "$CORESCHED_SOCKET" "$work/replies.json" &
fake=$!
i=0; while [ ! -S "$CORESCHED_SOCKET" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
# controls NAME OUTPUT PATTERN: no control byte but newlines, and PATTERN.
controls() {
	if LC_ALL=C grep -q '[[:cntrl:]]' <<<"$2"; then
		echo "FAIL: $T/$1: a control byte in the output: $(od -c <<<"$2" | head -5)"
	elif ! grep -qE -- "$3" <<<"$2"; then
		echo "FAIL: $T/$1: output lacks /$3/: $2"
	else
		echo "PASS: $T/$1"
	fi
}
out=$($cs explain 42 2>&1)
controls explain-escapes-controls "$out" '^comm: x\\x1b\[2Jy$'
grep -qxF 'exe: /tmp/a\x0ab' <<<"$out" && grep -qxF 'cgroup: /u\x07.scope' <<<"$out" &&
	grep -qxF 'key: /u\x07.scope' <<<"$out" && grep -qF 'exe /tmp/a\x0ab' <<<"$out" &&
	echo "PASS: $T/explain-escapes-every-field" || echo "FAIL: $T/explain-escapes-every-field: $out"
out=$($cs ps -o PID,COMM,EXE,CGROUP 2>&1 | cat)
controls ps-escapes-controls "$out" '^ +42 +x\\x1b\[2Jy '
# In a UTF-8 locale a name in UTF-8 shows as it is, its C1 controls
# escaped (libsmartcols escapes by the locale's character set).
out=$(LC_ALL=C.UTF-8 $cs ps -o PID,COMM,EXE 43 2>&1 | cat)
controls ps-utf8-kept-c1-escaped "$out" '^ +43 +café\\xc2\\x9b2J +/tmp/café$'
LC_ALL=C grep -qF $'\xc2\x9b' <<<"$out" && echo "FAIL: $T/ps-utf8-no-c1: a C1 control in: $out" ||
	echo "PASS: $T/ps-utf8-no-c1"
# An error the CLI does not know is shown as the JSON it came as, escaped once.
out=$($cs reload 2>&1)
controls unknown-error-escaped-once "$out" '^coresched: coreschedd answered io.coresched.Unheard \{"what":"x\\u001b\\xc2\\x9by"\}$'
out=$($cs explain -J 42 2>&1)
if python3 -c 'import json,sys; e=json.load(sys.stdin); sys.exit(e["comm"] != "x\x1b[2Jy" or e["exe"] != "/tmp/a\nb")' <<<"$out"; then
	echo "PASS: $T/explain-json-keeps-values"
else
	echo "FAIL: $T/explain-json-keeps-values: $out"
fi
out=$($cs assign -g web 42 2>&1)
rc=$?
controls assign-error-escapes-controls "$out" '^coresched: cannot assign PID 42: permission denied: \\x1b\]0;pwned\\x07$'
[ $rc = 6 ] && echo "PASS: $T/assign-error-exit-code" || echo "FAIL: $T/assign-error-exit-code: $rc"

# Column names are ASCII, compared without the locale's case rules: in a
# Turkish locale the lower case of I is not i.
mkdir -p "$work/loc"
if command -v localedef >/dev/null && localedef -i tr_TR -f UTF-8 "$work/loc/tr_TR.UTF-8" >/dev/null 2>&1; then
	out=$(LOCPATH=$work/loc LC_ALL=tr_TR.UTF-8 $cs ps -o pid,comm 42 2>&1)
	rc=$?
	result turkish-locale-columns 0 '^ *PID +COMM$' $rc "$out"
else
	echo "SKIP: $T/turkish-locale-columns: no localedef, or no tr_TR source (package locales)"
fi

# A call cannot carry a byte that is not UTF-8: the CLI says so rather
# than have the daemon act on another path or name.
mkdir -p "$work/caf$(printf '\351')"
ln -s "$work/caf$(printf '\351')" "$work/link"
out=$($cs check-config "$work/link" 2>&1)
result check-config-path-not-utf8 1 "^coresched: cannot use $work/link: its full path $work/caf\\\\xe9 is not UTF-8" $? "$out"
out=$($cs assign -g "web$(printf '\351')" 42 2>&1)
result call-not-utf8-refused 1 "^coresched: io.coresched.Assign failed: an argument is not UTF-8, which the daemon's protocol cannot carry\$" $? "$out"

# A reply without a list the CLI prints (an older or newer daemon) shows
# an empty list; the CLI does not abort.
kill $fake 2>/dev/null
wait $fake 2>/dev/null
rm -f "$CORESCHED_SOCKET"
cat > "$work/replies.json" <<'EOF2'
{"io.coresched.Explain": {"parameters": {"pid": 42, "comm": "x"}},
 "io.coresched.Status": {"parameters": {"version": "0.0.9", "counters": [1, 2]}},
 "io.coresched.Stats": {"parameters": {}},
 "io.coresched.ListProcesses": {"parameters": {"processes": {"pid": 42}}},
 "io.coresched.Assign": {"parameters": {"group": "web", "failed": {"pid": 42, "error": "no such process"}}},
 "io.coresched.CheckConfig": {"parameters": {"ok": "false", "errors": "x"}}}
EOF2
python3 tests/host/fake-coreschedd.py "$CORESCHED_SOCKET" "$work/replies.json" &
fake=$!
i=0; while [ ! -S "$CORESCHED_SOCKET" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
out=$($cs explain 42 2>&1)
result explain-no-rules 0 '(no groups are configured)' $? "$out"
out=$($cs status 2>&1)
result status-no-sources 0 '^config sources:$' $? "$out"
out=$($cs stats 2>&1)
result stats-no-keys 0 '' $? "$out"
out=$($cs ps 2>&1)
result ps-processes-not-a-list 0 '' $? "$out"
# A list of failures that is not a list is no success.
out=$($cs assign -g web 42 2>&1)
result assign-failures-malformed 1 'malformed list of failures' $? "$out"
# "ok" as a string is not a yes.
out=$($cs check-config 2>&1)
result check-config-invalid-says-so 1 '^coresched: the configuration is not valid$' $? "$out"
