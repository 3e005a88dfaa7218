#!/bin/bash
# pam_coresched on the host, where no daemon runs and the kernel lacks core
# scheduling: its arguments, and what each failure mode does with no
# daemon to ask. A service file of our own in a temporary PAM directory,
# driven by pam-drive (an application opening a session as login does).
set -u
T=pam
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/host/lib.bash"
drive=$top/build/helpers/pam-drive
module=$top/build/pam_coresched.so
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ ! -x "$drive" ] || [ ! -e "$module" ]; then
	echo "FAIL: $T: build/helpers/pam-drive or build/pam_coresched.so missing (run make)"
	exit 1
fi

service() { # NAME ARGS...: a session (and account) stack of the module alone
	local name=$1; shift
	printf 'account required %s %s\nsession required %s %s\n' "$module" "$*" "$module" "$*" > "$tmp/$name"
}
run() { # NAME: pam-drive on that service for root; sets rc and out
	out=$("$drive" -c "$tmp" "${@:2}" "$1" root true 2>&1)
	rc=$?
}
nosock="socket=$tmp/no-such-socket"

service open $nosock fail=open
run open
result "open-no-daemon" 0 '^open: Success' "$rc" "$out"

service default $nosock
run default
result "default-is-open" 0 '^open: Success' "$rc" "$out"

service closed $nosock fail=closed
run closed
result "closed-no-daemon-fails-session" 2 '^open: Cannot make/remove an entry for the specified session' "$rc" "$out"
run closed -a
result "closed-account-refuses" 1 '^acct: Permission denied' "$rc" "$out"
# Without fail=closed the account check stays out of it (PAM_IGNORE): the
# stack's other modules decide.
printf 'account required pam_permit.so\naccount required %s %s %s\nsession required %s %s %s\n' \
	"$module" $nosock fail=open "$module" $nosock fail=open > "$tmp/permit"
run permit -a
result "open-account-ignored" 0 '^acct: Success' "$rc" "$out"

# No core scheduling in this kernel: a fresh cookie cannot be made, and
# the login goes on (the log line says why).
service new $nosock fail=new
run new
result "new-without-core-scheduling" 0 '^open: Success' "$rc" "$out"

# A socket nobody listens on is as unreachable as none.
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$tmp/dead.sock"
service dead "socket=$tmp/dead.sock" fail=closed
run dead
result "closed-dead-socket-fails" 2 '^open: Cannot make' "$rc" "$out"

for bad in fail=maybe model=sideways socket=relative timeout=0 frobnicate; do
	service bad $nosock "$bad"
	run bad
	result "bad-argument-$bad" 2 '^open: Cannot make' "$rc" "$out"
	run bad -a
	result "bad-argument-$bad-account" 1 '^acct: ' "$rc" "$out"
done
service forced $nosock model=fork timeout=100 debug
run forced
result "model-timeout-debug-accepted" 0 '^open: Success' "$rc" "$out"

# A daemon that does not accept (stopped, or stuck): once its backlog is
# full, connect() blocks. The timeout bounds the login all the same.
python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(0)
held = []
for i in range(8):
    c = socket.socket(socket.AF_UNIX); c.setblocking(False)
    try:
        c.connect(sys.argv[1]); held.append(c)
    except BlockingIOError:
        break
open(sys.argv[2], "w").close()
time.sleep(60)
' "$tmp/full.sock" "$tmp/full.ready" &
stuck=$!
for _ in $(seq 50); do [ -e "$tmp/full.ready" ] && break; sleep 0.1; done
service stuck "socket=$tmp/full.sock" timeout=300 fail=closed
out=$(timeout 5 "$drive" -c "$tmp" stuck root true 2>&1)
rc=$?
result "closed-stuck-daemon-times-out" 2 '^open: Cannot make' "$rc" "$out"
out=$(timeout 5 "$drive" -c "$tmp" -a stuck root true 2>&1)
rc=$?
result "closed-stuck-daemon-account-times-out" 1 '^acct: Permission denied' "$rc" "$out"
service stuckopen "socket=$tmp/full.sock" timeout=300
out=$(timeout 5 "$drive" -c "$tmp" stuckopen root true 2>&1)
rc=$?
result "open-stuck-daemon-times-out" 0 '^open: Success' "$rc" "$out"
kill "$stuck" 2>/dev/null
wait "$stuck" 2>/dev/null || :

# A stand-in daemon that places every session and writes down the methods
# called: in the fork model the opener leaves the user's key after its
# fork; in the exec model it keeps it.
python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(8)
log = open(sys.argv[2], "a", buffering=1)
while True:
    c, _ = s.accept()
    buf = b""
    while not buf.endswith(b"\0"):
        d = c.recv(4096)
        if not d:
            break
        buf += d
    m = buf.split(b"\"method\":\"")[1].split(b"\"")[0].decode() if b"\"method\":\"" in buf else "?"
    log.write(m + "\n")
    c.sendall(b"{\"parameters\":{\"group\":\"users\",\"key\":\"0\",\"cookie\":\"0x1\",\"origin\":\"session\",\"placed\":true}}\0")
    c.close()
' "$tmp/fake.sock" "$tmp/calls" &
fake=$!
for _ in $(seq 50); do [ -S "$tmp/fake.sock" ] && break; sleep 0.1; done
calls() { tr '\n' ' ' < "$tmp/calls"; : > "$tmp/calls"; }
service placed "socket=$tmp/fake.sock" fail=closed
service placedexec "socket=$tmp/fake.sock" fail=closed model=exec
printf 'session required pam_permit.so\n' > "$tmp/permitonly"
: > "$tmp/calls"
run placed
result "fork-model-leaves" 0 '^open: Success' "$rc" "$out" \
	"$(c=$(calls); [ "$c" = "io.coresched.OpenSession io.coresched.LeaveSession " ] || echo "calls: $c")"
run placedexec
result "exec-model-keeps" 0 '^open: Success' "$rc" "$out" \
	"$(c=$(calls); [ "$c" = "io.coresched.OpenSession " ] || echo "calls: $c")"
# In a PID namespace whose PID 1 runs the opener's own program (a
# container started as sshd -D), the opener is PID 1's child running PID
# 1's program, yet not systemd: the fork model all the same.
if unshare -pf --mount-proc true 2>/dev/null; then
	out=$(unshare -pf --mount-proc "$drive" -c "$tmp" permitonly root "$drive" -c "$tmp" placed root true 2>&1)
	rc=$?
	result "pid1-same-program-is-fork-model" 0 '^open: Success' "$rc" "$out" \
		"$(c=$(calls); [ "$c" = "io.coresched.OpenSession io.coresched.LeaveSession " ] || echo "calls: $c")"
	# Where PID 1 is systemd, its child about to exec a service opens the
	# session: systemd itself before version 255, systemd-executor since.
	mkdir -p "$tmp/bin"
	cp "$drive" "$tmp/bin/systemd"
	cp "$drive" "$tmp/bin/systemd-executor"
	for opener in systemd systemd-executor; do
		out=$(unshare -pf --mount-proc "$tmp/bin/systemd" -c "$tmp" permitonly root \
			"$tmp/bin/$opener" -c "$tmp" placed root true 2>&1)
		rc=$?
		result "pid1-systemd-$opener-is-exec-model" 0 '^open: Success' "$rc" "$out" \
			"$(c=$(calls); [ "$c" = "io.coresched.OpenSession " ] || echo "calls: $c")"
	done
else
	echo "SKIP: $T/pid1-same-program-is-fork-model: no PID namespace here"
fi
kill "$fake" 2>/dev/null
wait "$fake" 2>/dev/null || :

# A daemon too slow to answer within the timeout may still have placed the
# opener: it is handed back after its fork (fail=open) or at once when the
# session fails (fail=closed); LeaveSession is harmless where it did not.
python3 -c '
import socket, sys, threading, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(8)
log = open(sys.argv[2], "a", buffering=1)
def serve(c):
    buf = b""
    while not buf.endswith(b"\0"):
        d = c.recv(4096)
        if not d:
            break
        buf += d
    m = buf.split(b"\"method\":\"")[1].split(b"\"")[0].decode() if b"\"method\":\"" in buf else "?"
    log.write(m + "\n")
    if m.endswith("OpenSession"):
        time.sleep(1)
    try:
        c.sendall(b"{\"parameters\":{\"group\":\"users\",\"placed\":true}}\0")
    except OSError:
        pass
    c.close()
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
' "$tmp/slow.sock" "$tmp/calls" &
slow=$!
for _ in $(seq 50); do [ -S "$tmp/slow.sock" ] && break; sleep 0.1; done
: > "$tmp/calls"
service slowopen "socket=$tmp/slow.sock" timeout=300
run slowopen
result "late-answer-open-leaves-after-fork" 0 '^open: Success' "$rc" "$out" \
	"$(c=$(calls); [ "$c" = "io.coresched.OpenSession io.coresched.LeaveSession " ] || echo "calls: $c")"
service slowclosed "socket=$tmp/slow.sock" timeout=300 fail=closed
run slowclosed
result "late-answer-closed-leaves-at-once" 2 '^open: Cannot make' "$rc" "$out" \
	"$(c=$(calls); [ "$c" = "io.coresched.OpenSession io.coresched.LeaveSession " ] || echo "calls: $c")"
kill "$slow" 2>/dev/null
wait "$slow" 2>/dev/null || :
