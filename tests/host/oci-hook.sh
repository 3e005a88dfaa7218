#!/bin/bash
# coresched oci-hook on the host without a daemon: the state it refuses,
# the messages and exit statuses a runtime would show, and the fail modes.
# The VM suite (tests/integration/oci-hook.sh) tests the effects with runc.
cd "$(dirname "$0")/../.." || exit 1
cs=build/coresched
T=host/oci-hook
work=$(mktemp -d)
sleep 1000 & live=$!
trap 'kill $live $listener 2>/dev/null; rm -rf "$work"' EXIT
export CORESCHED_SOCKET=$work/missing.sock

. tests/host/lib.bash

as=
check() { # NAME EXPECTED_RC PATTERN STATE [OPTION...]
	local name=$1 want=$2 pat=$3 state=$4 out rc extra=
	shift 4
	# A hook that hangs would hang the runtime: 124 from timeout fails.
	out=$(printf '%s' "$state" | timeout 30 $as "$cs" oci-hook "$@" 2>&1) # $as: a user to run as
	rc=$?
	[ -z "$pat" ] && [ -n "$out" ] && extra="expected no output, got: $out"
	result "$name" "$want" "$pat" "$rc" "$out" "$extra"
}

ok="{\"ociVersion\":\"1.0.2\",\"id\":\"web\",\"status\":\"creating\",\"pid\":$live,\"bundle\":\"/b\""
check malformed-json 1 'invalid container state on stdin: .*invalid JSON' '{"id":'
check empty-input 1 'invalid JSON' ''
check not-an-object 1 'not a JSON object' '[]'
check missing-pid 1 'pid: missing' '{"id":"web"}'
check string-pid 1 'pid: must be an integer' '{"id":"web","pid":"1"}'
check zero-pid 1 'pid: must be a positive integer, not 0' '{"id":"web","pid":0}'
check missing-id 1 'id: missing' "{\"pid\":$live}"
check long-id 1 'id: longer than 1024 bytes' "{\"id\":\"$(printf '%01025d' 0)\",\"pid\":$live}"
check annotations-array 1 'annotations: must be an object' "$ok,\"annotations\":[]}"
check annotation-number 1 'annotations.io.coresched.group: must be a string' \
	"$ok,\"annotations\":{\"io.coresched.group\":1}}"
check bad-policy 1 "io.coresched.policy='share' is neither 'isolate' nor 'trusted'" \
	"$ok,\"annotations\":{\"io.coresched.policy\":\"share\"}}"
check no-such-pid 1 'container web: PID 2147483646 does not exist' '{"id":"web","pid":2147483646}'
# Fail mode closed refuses a container only where a cookie could isolate
# it; on a kernel without core scheduling (this host's, usually) or without
# SMT for good nothing could, and refusing would stop every container: it
# starts, and says so. SMT switched off at run time can be switched on
# again: that still refuses.
"$cs" get >/dev/null 2>&1; has_sc=$? # 3: no CONFIG_SCHED_CORE, 4: no SMT
smt=$(cat /sys/devices/system/cpu/smt/control 2>/dev/null)
case $has_sc:$smt in
3:*) nothing_isolates='this kernel has no core scheduling \(CONFIG_SCHED_CORE\)' ;;
4:notsupported|4:notimplemented|4:forceoff) nothing_isolates='SMT is absent or forced off' ;;
*) nothing_isolates= ;;
esac
if [ -z "$nothing_isolates" ]; then
	check closed-refuses 1 \
		'coreschedd is not running and fail mode is closed: refusing to start container web untagged' "$ok}"
	check closed-is-default-explicit 1 'refusing to start container web untagged' "$ok}" --fail-mode closed
else
	check closed-no-core-scheduling-starts 0 \
		"coreschedd is not running, and $nothing_isolates: no cookie could isolate container web; starting it untagged" "$ok}"
	check closed-explicit-no-core-scheduling-starts 0 'starting it untagged' "$ok}" --fail-mode closed
fi
# Open: a fresh cookie where the kernel has core scheduling, else a warning;
# the container starts either way.
untagged='^$|fail mode is open, starting container web untagged|no cookie could isolate container web; starting it untagged'
check open-starts 0 "$untagged" "$ok}" --fail-mode open
check trusted-needs-nothing 0 '' "$ok,\"annotations\":{\"io.coresched.policy\":\"trusted\"}}"
check bad-fail-mode 1 "unsupported fail mode 'ajar'" "$ok}" --fail-mode ajar
check bad-timeout 1 "invalid timeout '-1'" "$ok}" --timeout -1
check extra-argument 1 'takes no arguments' "$ok}" extra
# Option errors read as every other function's, once, as coresched(1) quotes
# them (coresched -V status: "coresched: invalid option -- 'V'").
check bad-option 1 "^coresched: invalid option -- 'V'$" "$ok}" -V
check unknown-long-option 1 "^coresched: unrecognized option '--bogus'$" "$ok}" --bogus
check missing-value 1 "^coresched: option '--timeout' requires an argument$" "$ok}" --timeout

# A daemon that accepts but never answers: the timeout bounds the wait and
# counts as unreachable.
python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(8)
time.sleep(60)' "$work/mute.sock" & listener=$!
for _ in $(seq 50); do [ -S "$work/mute.sock" ] && break; sleep 0.1; done
export CORESCHED_SOCKET=$work/mute.sock
if [ -z "$nothing_isolates" ]; then
	check timeout-closed 1 'coreschedd did not answer within 300 ms and fail mode is closed' "$ok}" --timeout 300
else
	check timeout-closed-no-core-scheduling 0 "coreschedd did not answer within 300 ms, and $nothing_isolates" "$ok}" --timeout 300
fi
check timeout-open 0 "$untagged" "$ok}" --timeout 300 --fail-mode open

# A rootless engine reads the same hooks.d and runs the hook as its user;
# the daemon places containers for root and ControlGroup= only. Its refusal is then as good
# as no daemon: the fail mode decides, and a trusted container starts. As
# root the same refusal stops the container.
if [ "$(id -u)" != 0 ]; then
	echo "SKIP: $T/rootless-*: needs root (the hook runs as another user)"
else
	printf '%s' '{"io.coresched.AssignContainer": {"error": "io.coresched.PermissionDenied",
		"parameters": {"reason": "AssignContainer needs root or a member of ControlGroup="}}}' >"$work/deny.json"
	chmod 755 "$work"
	python3 tests/host/fake-coreschedd.py "$work/deny.sock" "$work/deny.json" & listener="$listener $!"
	for _ in $(seq 50); do [ -S "$work/deny.sock" ] && break; sleep 0.1; done
	chmod 666 "$work/deny.sock"
	export CORESCHED_SOCKET=$work/deny.sock
	check root-refused 1 'coreschedd refused to place container web: io.coresched.PermissionDenied' "$ok}"
	as="build/helpers/cs-runas 65534 65534"
	rootless='coreschedd places containers for root and members of ControlGroup= only, and this hook runs as uid 65534 \(a rootless engine\)'
	if [ -z "$nothing_isolates" ]; then
		check rootless-closed 1 "$rootless and fail mode is closed: refusing to start container web untagged" "$ok}"
	else
		check rootless-closed-no-core-scheduling 0 "$rootless, and $nothing_isolates" "$ok}"
	fi
	check rootless-open 0 "$untagged|$rootless and a cookie of its own failed" "$ok}" --fail-mode open
	check rootless-trusted 0 '' "$ok,\"annotations\":{\"io.coresched.policy\":\"trusted\"}}"
	# Rootless podman runs its runtime, and the hook, as root of a user
	# namespace of its own: the daemon sees the user, and so does the hook.
	if build/helpers/cs-runas 65534 65534 unshare -Ur true 2>/dev/null; then
		as="build/helpers/cs-runas 65534 65534 unshare -Ur"
		rootless='coreschedd places containers for root and members of ControlGroup= only, and this hook runs as uid 0 of a user namespace \(a rootless engine\)'
		check rootless-userns-open 0 "$untagged|$rootless" "$ok}" --fail-mode open
		if [ -z "$nothing_isolates" ]; then
			check rootless-userns-closed 1 "$rootless and fail mode is closed" "$ok}"
		else
			check rootless-userns-closed-no-core-scheduling 0 "$rootless, and $nothing_isolates" "$ok}"
		fi
	else
		echo "SKIP: $T/rootless-userns-*: no unprivileged user namespaces here"
	fi
	as=
fi
