#!/bin/bash
# coresched-runtime on the host against a fake runtime that records its
# arguments: the hook it adds to config.json (and when it does not), what
# it keeps, the errors that stop a container, and the pass-through. The VM
# suite (tests/integration/runtime.sh) starts containers with real runc.
cd "$(dirname "$0")/../.." || exit 1
top=$(pwd)
shim=$top/build/coresched-runtime
T=host/runtime
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

. tests/host/lib.bash

# The fake runtime: its argv (argv[0] first) NUL-separated in $work/argv,
# its stdin in $work/stdin; exits CS_EXIT.
ln -s "$top/build/helpers/cs-argv" "$work/fake"
export CS_ARGV_OUT=$work/argv CS_STDIN_OUT=$work/stdin
echo "Runtime=$work/fake" > "$work/runtime.conf"
export CORESCHED_RUNTIME_CONF=$work/runtime.conf
# coreschedd's configuration ([Container] Lock=): none, unless a case says.
mkdir -p "$work/cfg" "$work/lockcfg"
export CORESCHED_CONFIG_DIR=$work/cfg
printf '[Container]\nLock=yes\n' > "$work/lockcfg/coreschedd.conf"
hook="$top/build/coresched"

plain='{"ociVersion": "1.0.2", "process": {"args": ["/bin/sh"], "cwd": "/"},
 "root": {"path": "rootfs"}, "weird": [1.50, 1e3, 18446744073709551615, -9223372036854775808, "a/b\u00e9", null, true]}'
# bundle DIR JSON: a fresh bundle directory holding JSON as config.json
bundle() { rm -rf "$1"; mkdir -p "$1"; printf '%s' "$2" > "$1/config.json"; }
# shim ARG...: run it from $work with stdin closed; sets out and rc
shim() { rm -f "$work/argv"; out=$(cd "$work" && timeout 30 "$shim" "$@" 2>&1 </dev/null); rc=$?; }
argv_is() { # NAME ARG...: the fake ran with exactly these arguments
	local want
	want=$(printf '%s\0' "$work/fake" "${@:2}" | od -c)
	if [ ! -e "$work/argv" ]; then
		echo "FAIL: $T/$1: the runtime did not run (status $rc): $out"
	elif [ "$(od -c < "$work/argv")" != "$want" ]; then
		echo "FAIL: $T/$1: runtime argv $(tr '\0' ' ' < "$work/argv"), expected $work/fake ${*:2}"
	else
		echo "PASS: $T/$1"
	fi
}
not_run() { # NAME
	if [ -e "$work/argv" ]; then echo "FAIL: $T/$1: the runtime ran: $(tr '\0' ' ' < "$work/argv")"
	else echo "PASS: $T/$1"; fi
}
# check NAME FILE PYTHON: PYTHON (with c = the parsed FILE, hook = ours)
# prints nothing when FILE is as expected, else what is wrong.
check() {
	local why
	why=$(python3 - "$2" "$hook" 2>&1 <<EOF
import json, sys
c = json.load(open(sys.argv[1]))
hook = {"path": sys.argv[2], "args": ["coresched", "oci-hook"], "timeout": 10}
def ours(h): return h.get("args", [None, None])[1:2] == ["oci-hook"] and h.get("path", "").endswith("/coresched")
$3
EOF
)
	if [ -z "$why" ]; then echo "PASS: $T/$1"; else echo "FAIL: $T/$1: $why"; fi
}

# -- The hook is added, and nothing else changes.
b=$work/b1
bundle "$b" "$plain"
cp "$b/config.json" "$work/orig.json"
shim --root /run/x --log /l.json --log-format json create --bundle "$b" --pid-file /p id1
argv_is create-passes-argv --root /run/x --log /l.json --log-format json create --bundle "$b" --pid-file /p id1
check hook-added "$b/config.json" 'if c["hooks"] != {"createRuntime": [hook]}: print(c["hooks"])'
check rest-untouched "$b/config.json" "
o = json.load(open('$work/orig.json'))
del c['hooks']
if c != o: print('before', o, 'after', c)"
[ "$(grep -cE '^ *(1\.50|1e3|18446744073709551615|-9223372036854775808),$' "$b/config.json")" = 4 ] &&
	echo "PASS: $T/numbers-kept-verbatim" || echo "FAIL: $T/numbers-kept-verbatim: $(cat "$b/config.json")"
cp "$b/config.json" "$work/once.json"
shim run -d --bundle "$b" id1
argv_is run-passes-argv run -d --bundle "$b" id1
cmp -s "$b/config.json" "$work/once.json" && echo "PASS: $T/idempotent" ||
	echo "FAIL: $T/idempotent: changed by the second run: $(cat "$b/config.json")"
left=$(ls -A "$b")
[ "$left" = config.json ] && echo "PASS: $T/no-temporary-left" || echo "FAIL: $T/no-temporary-left: $left"

# -- Existing hooks are kept, ours comes last in createRuntime.
existing='{"ociVersion": "1.0.2", "hooks": {"prestart": [{"path": "/bin/p"}],
 "createRuntime": [{"path": "/usr/bin/nvidia-hook", "args": ["nvidia-hook", "prestart"], "env": ["A=1"]}],
 "poststop": [{"path": "/bin/s", "timeout": 3}]}, "annotations": {"io.coresched.group": "g"}}'
bundle "$work/b2" "$existing"
shim create -b "$work/b2" id2
argv_is create-short-bundle create -b "$work/b2" id2
check existing-hooks-kept "$work/b2/config.json" '
want = {"prestart": [{"path": "/bin/p"}],
 "createRuntime": [{"path": "/usr/bin/nvidia-hook", "args": ["nvidia-hook", "prestart"], "env": ["A=1"]}, hook],
 "poststop": [{"path": "/bin/s", "timeout": 3}]}
if c["hooks"] != want or c["annotations"] != {"io.coresched.group": "g"}: print(c)'

# A coresched oci-hook already there, wherever installed and however set
# (fail mode open), in createRuntime or prestart: the file is not touched.
for stage in createRuntime prestart; do
	j="{\"hooks\": {\"$stage\": [{\"path\": \"/opt/cs/bin/coresched\", \"args\": [\"coresched\", \"oci-hook\", \"--fail-mode\", \"open\"]}]}}"
	bundle "$work/b3" "$j"
	shim run --bundle "$work/b3" id3
	[ "$(cat "$work/b3/config.json")" = "$j" ] && [ "$rc" = 0 ] && echo "PASS: $T/present-in-$stage-kept" ||
		echo "FAIL: $T/present-in-$stage-kept: status $rc: $out; $(cat "$work/b3/config.json")"
done
# "hooks": null and an empty createRuntime are as good as absent.
bundle "$work/b4" '{"hooks": null}'
shim create --bundle "$work/b4" id4
check null-hooks "$work/b4/config.json" 'if c["hooks"] != {"createRuntime": [hook]}: print(c)'
bundle "$work/b4" '{"hooks": {"createRuntime": []}}'
shim create --bundle "$work/b4" id4
check empty-create-runtime "$work/b4/config.json" 'if c["hooks"] != {"createRuntime": [hook]}: print(c)'

# -- Mode and owner survive the rewrite.
bundle "$work/b5" "$plain"
chmod 640 "$work/b5/config.json"
if [ "$(id -u)" = 0 ]; then
	chown 1234:5678 "$work/b5/config.json"
	shim create --bundle "$work/b5" id5
	st=$(stat -c '%a %u %g' "$work/b5/config.json")
	[ "$st" = "640 1234 5678" ] && echo "PASS: $T/mode-owner-kept" || echo "FAIL: $T/mode-owner-kept: $st"
else
	shim create --bundle "$work/b5" id5
	st=$(stat -c '%a' "$work/b5/config.json")
	[ "$st" = 640 ] && echo "PASS: $T/mode-kept" || echo "FAIL: $T/mode-kept: $st"
	echo "SKIP: $T/mode-owner-kept: not root, cannot give the file another owner"
fi

# -- Where the bundle is: every way runc accepts it.
forms() { # NAME ARG...: with the bundle at $work/bf
	bundle "$work/bf" "$plain"
	shim "${@:2}"
	check "bundle-$1" "$work/bf/config.json" 'if c.get("hooks") != {"createRuntime": [hook]}: print(c)'
}
forms equals create --bundle="$work/bf" id
forms single-dash create -bundle "$work/bf" id
forms short-equals create -b="$work/bf" id
forms after-id create id --bundle "$work/bf"
forms global-options --root /r --systemd-cgroup --log-format=json --debug create --console-socket /s -b "$work/bf" id
forms last-wins create --bundle "$work/nonesuch" --bundle "$work/bf" id
forms relative run -d --bundle bf id
# restore makes a container from a checkpoint, and runc runs the
# createRuntime hooks there too; its options that take a value keep it.
forms restore restore --image-path /ckpt --work-path /w --manage-cgroups-mode soft -d -b "$work/bf" id
argv_is restore-passes-argv restore --image-path /ckpt --work-path /w --manage-cgroups-mode soft -d -b "$work/bf" id
forms restore-value-like-option restore --lsm-profile -b --bundle "$work/bf" id
bundle "$work/bf" "$plain"
rm -f "$work/argv"
out=$(cd "$work/bf" && "$shim" create id 2>&1 </dev/null); rc=$?
check bundle-default-cwd "$work/bf/config.json" 'if c.get("hooks") != {"createRuntime": [hook]}: print(c)'

# -- Bad config.json: a clear error naming the file, and no runtime.
bad() { # NAME PATTERN JSON
	bundle "$work/bad" "$3"
	shim run --bundle "$work/bad" idb
	result "$1" 1 "$2" "$rc" "$out"
	not_run "$1-not-started"
	[ "$(cat "$work/bad/config.json")" = "$3" ] || echo "FAIL: $T/$1-untouched: $(cat "$work/bad/config.json")"
}
bad malformed "^coresched-runtime: $work/bad/config.json:2: invalid JSON: (unexpected end of input|.*expected)" \
	'{"ociVersion": "1.0.2",
 "process": '
bad malformed-token "^coresched-runtime: $work/bad/config.json:1: invalid JSON: .+" '{"ociVersion": tru}'
bad trailing "$work/bad/config.json:1: invalid JSON: trailing bytes after the object" '{} {}'
bad empty "$work/bad/config.json:1: invalid JSON: unexpected end of input" ''
bad not-an-object "$work/bad/config.json: not a JSON object" '["a"]'
bad hooks-not-object "$work/bad/config.json: hooks: must be an object" '{"hooks": []}'
bad stage-not-array "$work/bad/config.json: hooks.createRuntime: must be an array" '{"hooks": {"createRuntime": {}}}'
bad hook-not-object "$work/bad/config.json: hooks.prestart\[1\]: must be an object" \
	'{"hooks": {"prestart": [{"path": "/a"}, "b"]}}'
# The runtime's log gets the error too: containerd reports its last error.
bundle "$work/bad" '{"a": '
shim --log "$work/log.json" --log-format json run --bundle "$work/bad" idl
check log-json "$work/log.json" "
if c['level'] != 'error' or c['msg'] != 'coresched-runtime: $work/bad/config.json:1: invalid JSON: unexpected end of input' or not c['time'].endswith('Z'):
	print(c)"
shim --log="$work/log.txt" create --bundle "$work/bad" idl
grep -qE '^time="[0-9T:-]+Z" level=error msg="coresched-runtime: [^"]*/bad/config.json:1: invalid JSON: unexpected end of input"$' "$work/log.txt" &&
	echo "PASS: $T/log-text" || echo "FAIL: $T/log-text: $(cat "$work/log.txt")"
mkdir -p "$work/nobundle"
shim run --bundle "$work/nobundle" idn
result missing-config 1 "cannot read $work/nobundle/config.json: No such file or directory" "$rc" "$out"
not_run missing-config-not-started
head -c $((16 * 1024 * 1024 + 1)) /dev/zero | tr '\0' ' ' > "$work/nobundle/config.json"
shim run --bundle "$work/nobundle" idn
result too-big 1 "cannot read $work/nobundle/config.json: longer than 16 MiB" "$rc" "$out"
not_run too-big-not-started

# -- Every other command goes through untouched, config.json in the cwd or not.
bundle "$work/cwd" "$plain"
cp "$work/cwd/config.json" "$work/cwd.json"
pass_through() { # NAME ARG...
	rm -f "$work/argv"
	out=$(cd "$work/cwd" && "$shim" "${@:2}" 2>&1 </dev/null); rc=$?
	argv_is "$1" "${@:2}"
	cmp -s "$work/cwd/config.json" "$work/cwd.json" || echo "FAIL: $T/$1: config.json in the cwd changed"
}
pass_through state state id1
pass_through exec --root /r exec -t --env 'A=b c' id1 sh -c 'echo "run --bundle ."'
pass_through delete delete -f id1
pass_through kill --log /l kill id1 KILL
pass_through start start id1
pass_through version --version
pass_through no-arguments
pass_through empty-argument '' create
pass_through global-value-not-command --root run state id1
pass_through create-help create --help
pass_through global-help --help run
pass_through after-double-dash exec id1 -- run --bundle .
CS_EXIT=42 shim delete id1
result exit-status 42 '' "$rc" "$out"
out=$(printf 'to the runtime\n' | "$shim" state id1 2>&1); rc=$?
[ "$(cat "$work/stdin")" = "to the runtime" ] && echo "PASS: $T/stdin-passed" ||
	echo "FAIL: $T/stdin-passed: status $rc: $out; runtime read '$(cat "$work/stdin")'"

# -- Which runtime: runtime.conf, else runc from PATH (never itself).
mkdir -p "$work/path1" "$work/path2"
ln -s "$shim" "$work/path1/runc"
ln -s "$top/build/helpers/cs-argv" "$work/path2/runc"
echo "# nothing set" > "$work/runtime.conf"
rm -f "$work/argv"
out=$(cd "$work/cwd" && PATH=$work/path1:$work/path2:/usr/bin:/bin "$shim" state id1 2>&1 </dev/null); rc=$?
want=$(printf '%s\0' runc state id1 | od -c)
[ -e "$work/argv" ] && [ "$(od -c < "$work/argv")" = "$want" ] && echo "PASS: $T/default-runc-in-path" ||
	echo "FAIL: $T/default-runc-in-path: status $rc: $out; argv $(tr '\0' ' ' < "$work/argv" 2>/dev/null)"
out=$(PATH=$work/path1 "$shim" state id1 2>&1 </dev/null); rc=$?
result runc-only-itself 127 "cannot find the runtime 'runc': not in PATH" "$rc" "$out"
rm -f "$work/runtime.conf"
out=$(PATH=$work/path2:/usr/bin:/bin "$shim" state id1 2>&1 </dev/null); rc=$?
result conf-missing-is-default 0 '' "$rc" "$out"

conf() { # NAME WANT_RC PATTERN CONF
	printf '%s\n' "$4" > "$work/runtime.conf"
	bundle "$work/bc" "$plain"
	shim run --bundle "$work/bc" idc
	result "$1" "$2" "$3" "$rc" "$out"
	not_run "$1-not-started"
	cmp -s "$work/bc/config.json" <(printf '%s' "$plain") || echo "FAIL: $T/$1: config.json changed"
}
conf conf-unknown-key 1 "^coresched-runtime: $work/runtime.conf:3: unknown key 'Runtim'" \
	"$(printf '# comment\n; another\nRuntim = /usr/sbin/runc')"
conf conf-no-equals 1 "$work/runtime.conf:1: expected Key=Value, got 'runc'" 'runc'
conf conf-empty 1 "$work/runtime.conf:1: Runtime: empty" 'Runtime='
conf conf-relative 1 "$work/runtime.conf:1: Runtime: 'bin/runc' must be an absolute path" 'Runtime=bin/runc'
conf conf-long-line 1 "$work/runtime.conf:1: line longer than 4096 bytes" "Runtime=/$(printf '%05000d' 0)"
conf conf-missing-runtime 127 "cannot find the runtime '$work/nonesuch': No such file or directory" \
	"Runtime=$work/nonesuch"
conf conf-itself 127 "cannot find the runtime '$shim': that is coresched-runtime itself" "Runtime=$shim"
printf '  Runtime = %s  \n' "$work/path2/runc" > "$work/runtime.conf"
shim state id1
[ "$(head -zn1 "$work/argv" 2>/dev/null | tr -d '\0')" = "$work/path2/runc" ] &&
	echo "PASS: $T/conf-spaces-trimmed" || echo "FAIL: $T/conf-spaces-trimmed: status $rc: $out"

# -- [Container] Lock=yes: the seccomp rules that keep the cookie.
echo "Runtime=$work/fake" > "$work/runtime.conf"
lockpy='
def lock_rules(calls):
    out = []
    for r in calls[:3]:
        a = r.get("args", [])
        out.append((r.get("names"), r.get("action"), r.get("errnoRet"),
                    [(x["index"], x["value"], x["valueTwo"], x["op"]) for x in a]))
    return out
want = [(["prctl"], "SCMP_ACT_ERRNO", 1, [(0, 4294967295, 62, "SCMP_CMP_MASKED_EQ"), (1, 4294967295, c, "SCMP_CMP_MASKED_EQ")]) for c in (1, 2, 3)]
'
b=$work/lock1
bundle "$b" "$plain"
CORESCHED_CONFIG_DIR=$work/lockcfg shim run -b "$b" x
check lock-profile-made "$b/config.json" "$lockpy
s = c['linux']['seccomp']
if s['defaultAction'] != 'SCMP_ACT_ALLOW': print('default', s['defaultAction'])
if lock_rules(s['syscalls']) != want or len(s['syscalls']) != 3: print(s['syscalls'])
if not any(ours(h) for h in c['hooks']['createRuntime']): print('no hook')"
cp "$b/config.json" "$work/lock1.once"
CORESCHED_CONFIG_DIR=$work/lockcfg shim run -b "$b" x
cmp -s "$b/config.json" "$work/lock1.once" && echo "PASS: $T/lock-idempotent" ||
	echo "FAIL: $T/lock-idempotent: $(diff "$work/lock1.once" "$b/config.json" | head -n5)"
# An allow-list profile that allows prctl whatever its arguments (as
# Docker's does): prctl leaves that rule, other options and GET stay
# allowed, the lock comes first, and nothing else changes.
b=$work/lock2
bundle "$b" '{"ociVersion": "1.0.2", "process": {"args": ["/bin/sh"]}, "root": {"path": "r"},
 "linux": {"seccomp": {"defaultAction": "SCMP_ACT_ERRNO", "architectures": ["SCMP_ARCH_X86_64"],
  "syscalls": [{"names": ["read", "prctl", "write"], "action": "SCMP_ACT_ALLOW"},
               {"names": ["prctl"], "action": "SCMP_ACT_ALLOW"},
               {"names": ["personality"], "action": "SCMP_ACT_ALLOW", "args": [{"index": 0, "value": 0, "op": "SCMP_CMP_EQ"}]}]}}}'
CORESCHED_CONFIG_DIR=$work/lockcfg shim run -b "$b" x
check lock-allowlist "$b/config.json" "$lockpy
s = c['linux']['seccomp']; calls = s['syscalls']
if lock_rules(calls) != want: print('lock', calls[:3])
if s['architectures'] != ['SCMP_ARCH_X86_64'] or s['defaultAction'] != 'SCMP_ACT_ERRNO': print('changed', s)
rest = [r for r in calls[3:] if r.get('names') != ['prctl']]
if rest != [{'names': ['read', 'write'], 'action': 'SCMP_ACT_ALLOW'}, {'names': ['personality'], 'action': 'SCMP_ACT_ALLOW', 'args': [{'index': 0, 'value': 0, 'op': 'SCMP_CMP_EQ'}]}]: print('rest', rest)
allow = [r for r in calls[3:] if r.get('names') == ['prctl']]
if any(r['action'] != 'SCMP_ACT_ALLOW' or not r.get('args') for r in allow): print('unconditional prctl left', allow)
# what the allow rules admit, as libseccomp reads them (masked compares ORed)
def admits(opt, cmd):
    for r in allow:
        ok = True
        for a in r['args']:
            v = opt if a['index'] == 0 else cmd
            if (v & a['value']) != a['valueTwo']: ok = False
        if ok: return True
    return False
for opt, cmd, w in [(62, 0, True), (62, 1, False), (62, 2, False), (62, 3, False), (15, 0, True), (0, 0, True),
                    (63, 1, True), (0xffffffff, 0, True), (62 | (1 << 32), 1, False)]:
    if admits(opt & 0xffffffff, cmd & 0xffffffff) != w: print('prctl', opt, cmd, 'admitted' if not w else 'refused')"
cp "$b/config.json" "$work/lock2.once"
CORESCHED_CONFIG_DIR=$work/lockcfg shim run -b "$b" x
argv_is lock-allowlist-again-runs run -b "$b" x
cmp -s "$b/config.json" "$work/lock2.once" && echo "PASS: $T/lock-allowlist-idempotent" ||
	echo "FAIL: $T/lock-allowlist-idempotent: $(diff "$work/lock2.once" "$b/config.json" | head -n5)"
# "prctl" named twice in one unconditional allow: every mention goes, or
# the one left swallows the lock (runc let CREATE through).
b=$work/lock4
bundle "$b" '{"ociVersion": "1.0.2", "process": {"args": ["/bin/sh"]}, "root": {"path": "r"},
 "linux": {"seccomp": {"defaultAction": "SCMP_ACT_ERRNO",
  "syscalls": [{"names": ["prctl", "read", "prctl"], "action": "SCMP_ACT_ALLOW"}]}}}'
CORESCHED_CONFIG_DIR=$work/lockcfg shim run -b "$b" x
check lock-prctl-named-twice "$b/config.json" "$lockpy
calls = c['linux']['seccomp']['syscalls']
if lock_rules(calls) != want: print('lock', calls[:3])
if any('prctl' in r['names'] and not r.get('args') and r['action'] != 'SCMP_ACT_ERRNO' for r in calls): print('unconditional prctl left', calls)"
# A rule that lets prctl through on conditions of its own (here: option
# 62, any command) wins over the lock where both match, as would a tracer
# or a listener: the container is refused, not started unlocked.
for case in 'ALLOW "args": [{"index": 0, "value": 62, "op": "SCMP_CMP_EQ"}]' \
	    'LOG "args": [{"index": 1, "value": 0, "op": "SCMP_CMP_GE"}]' 'NOTIFY "args": []' 'TRACE "args": []'; do
	b=$work/lock5
	bundle "$b" '{"ociVersion": "1.0.2", "process": {"args": ["/bin/sh"]}, "root": {"path": "r"},
 "linux": {"seccomp": {"defaultAction": "SCMP_ACT_ERRNO", "listenerPath": "/l",
  "syscalls": [{"names": ["read"], "action": "SCMP_ACT_ALLOW"},
               {"names": ["prctl"], "action": "SCMP_ACT_'"${case%% *}"'", '"${case#* }"'}]}}}'
	cp "$b/config.json" "$work/lock5.before"
	CORESCHED_CONFIG_DIR=$work/lockcfg shim run -b "$b" x
	result "lock-refuses-${case%% *}" 1 "syscalls\[1\]: SCMP_ACT_${case%% *} for prctl.*cannot lock" $rc "$out"
	not_run "lock-refuses-${case%% *}-not-run"
done
# Denying ones, and conditional ones the runtime skips (the default
# action), are left as they are.
b=$work/lock6
bundle "$b" '{"ociVersion": "1.0.2", "process": {"args": ["/bin/sh"]}, "root": {"path": "r"},
 "linux": {"seccomp": {"defaultAction": "SCMP_ACT_ALLOW",
  "syscalls": [{"names": ["prctl"], "action": "SCMP_ACT_ALLOW", "args": [{"index": 0, "value": 15, "op": "SCMP_CMP_EQ"}]},
               {"names": ["prctl"], "action": "SCMP_ACT_KILL", "args": [{"index": 0, "value": 22, "op": "SCMP_CMP_EQ"}]}]}}}'
CORESCHED_CONFIG_DIR=$work/lockcfg shim run -b "$b" x
result lock-keeps-harmless 0 '' $rc "$out"
check lock-keeps-harmless-rules "$b/config.json" "$lockpy
calls = c['linux']['seccomp']['syscalls']
if lock_rules(calls) != want or len(calls) != 5: print(calls)"
# Look-alikes of the lock's rules (a mask of 0, another argument) lock
# nothing: the profile is not taken for locked, the real rules go first.
b=$work/lock7
fake='"names": ["prctl"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1, "args": [{"index": 0, "value": 0, "valueTwo": 62, "op": "SCMP_CMP_MASKED_EQ"}, {"index": 2, "value": 4294967295, "valueTwo"'
bundle "$b" '{"ociVersion": "1.0.2", "process": {"args": ["/bin/sh"]}, "root": {"path": "r"},
 "linux": {"seccomp": {"defaultAction": "SCMP_ACT_ALLOW",
  "syscalls": [{'"$fake"': 1, "op": "SCMP_CMP_MASKED_EQ"}]}, {'"$fake"': 2, "op": "SCMP_CMP_MASKED_EQ"}]}, {'"$fake"': 3, "op": "SCMP_CMP_MASKED_EQ"}]}]}}}'
CORESCHED_CONFIG_DIR=$work/lockcfg shim run -b "$b" x
check lock-not-fooled "$b/config.json" "$lockpy
calls = c['linux']['seccomp']['syscalls']
if lock_rules(calls) != want or len(calls) != 6: print(calls)"
# A configuration that does not load locks, and says so.
mkdir -p "$work/badcfg"; printf '[Container]\nLock=maybe\n' > "$work/badcfg/coreschedd.conf"
b=$work/lock3
bundle "$b" "$plain"
CORESCHED_CONFIG_DIR=$work/badcfg shim run -b "$b" x
result lock-bad-config-warns 0 "^coresched-runtime: warning: .*coreschedd.conf:2.*locking the container's cookie" $rc "$out"
check lock-bad-config-locks "$b/config.json" "$lockpy
if lock_rules(c['linux']['seccomp']['syscalls']) != want: print(c['linux'])"

# [Container] FailMode=open travels with the hook it adds.
mkdir -p "$work/opencfg"; printf '[Container]\nFailMode=open\n' > "$work/opencfg/coreschedd.conf"
b=$work/open1
bundle "$b" "$plain"
CORESCHED_CONFIG_DIR=$work/opencfg shim run -b "$b" x
check failmode-open-hook "$b/config.json" "
h = [x for x in c['hooks']['createRuntime'] if ours(x)]
if len(h) != 1 or h[0]['args'] != ['coresched', 'oci-hook', '--fail-mode', 'open']: print(h)
if 'seccomp' in c.get('linux', {}): print('locked without Lock=')"
# A configuration that does not load fails closed, whatever its FailMode=
# says, and locks.
mkdir -p "$work/badopencfg"; printf '[Container]\nFailMode=open\nLock=maybe\n' > "$work/badopencfg/coreschedd.conf"
b=$work/open2
bundle "$b" "$plain"
CORESCHED_CONFIG_DIR=$work/badopencfg shim run -b "$b" x
result failmode-bad-config-warns 0 "^coresched-runtime: warning: .*coreschedd.conf:3.*fail mode closed" $rc "$out"
check failmode-bad-config-closed "$b/config.json" "
h = [x for x in c['hooks']['createRuntime'] if ours(x)]
if len(h) != 1 or h[0]['args'] != ['coresched', 'oci-hook']: print(h)"
