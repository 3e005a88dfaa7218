#!/bin/bash
# coreschedd's command line on the host (whose kernel lacks core
# scheduling): bad options are refused before anything is touched.
T=host/daemon-args
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/host/lib.bash"
d=$top/build/coreschedd

out=$("$d" --seccomp=bogus 2>&1); rc=$?
result seccomp-bad-mode 2 "^coreschedd: --seccomp: 'bogus' is not enforce, log or off$" $rc "$out"
out=$("$d" --help 2>&1); rc=$?
result help-lists-seccomp 0 '--seccomp=MODE' $rc "$out"
result help-lists-dry-run 0 '--dry-run' $rc "$out"
out=$("$d" extra-arg 2>&1); rc=$?
result unexpected-argument 2 "unexpected argument 'extra-arg'" $rc "$out"
out=$("$d" --socket rel.sock 2>&1); rc=$?
result socket-relative 2 "^coreschedd: --socket: 'rel.sock' is not an absolute path$" $rc "$out"
# A configuration directory that is not there is an error, not defaults.
out=$("$d" --check-config --config-dir /nonexistent-coresched-dir 2>&1); rc=$?
result config-dir-missing 1 "^/nonexistent-coresched-dir: No such file or directory, as coreschedd sees it$" $rc "$out"
out=$("$d" --check-config --config-dir /etc/hostname 2>&1); rc=$?
result config-dir-not-a-directory 1 "^/etc/hostname: Not a directory, as coreschedd sees it$" $rc "$out"
# The kernel check comes after the configuration and before any privilege
# or socket is touched: exit 3, and no keeper or socket left behind.
cfg=$(mktemp -d)
trap 'rm -rf "$cfg"' EXIT
printf '[Group g]\nMatchComm=x\n' > "$cfg/coreschedd.conf"
if grep -qw sched_core /proc/kallsyms 2>/dev/null || [ -e /sys/kernel/debug/sched/core ]; then
	echo "SKIP: $T/no-sched-core-exit-3: this host's kernel has core scheduling"
else
	out=$("$d" --config-dir "$cfg" --socket "$cfg/sock" 2>&1); rc=$?
	extra=; [ -e "$cfg/sock" ] && extra="left a socket behind"
	pgrep -x coreschedd-keep >/dev/null && extra="left a keeper running"
	result no-sched-core-exit-3 3 'CONFIG_SCHED_CORE' $rc "$out" "$extra"
fi

# Lock= where nothing can lock: loads, with a warning naming the place.
printf '[Group plain]\nLock=yes\n[Group ruled]\nMatchComm=x\nLock=yes\n' > "$cfg/coreschedd.conf"
out=$("$d" --config-dir "$cfg" --check-config 2>&1 >/dev/null); rc=$?
result lock-rule-warns 0 "^coreschedd: warning: $cfg/coreschedd.conf:5: \[Group ruled\] Lock=yes locks only what 'coresched run -g ruled' starts" $rc "$out"
n=$(grep -c 'warning:' <<<"$out")
result lock-launcher-only-no-warning 0 '^1$' 0 "$n"
printf '[Container]\nLock=yes\n' > "$cfg/coreschedd.conf"
out=$("$d" --config-dir "$cfg" --check-config 2>&1 >/dev/null); rc=$?
result lock-container-warns 0 "^coreschedd: warning: $cfg/coreschedd.conf:2: \[Container\] Lock=yes locks only containers started through coresched-runtime" $rc "$out"
