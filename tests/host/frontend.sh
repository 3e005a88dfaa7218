# The front end: build/coresched links libc only and hands what it does not
# do itself to the full command line (build/coresched-cli), which must then
# answer exactly as if it had been called directly.
cd "$(dirname "$0")/../.." || exit 1
fe=build/coresched
full=build/coresched-cli
T=host/frontend

. tests/host/lib.bash

# What the loader maps: libc alone. A sanitized build also needs the
# sanitizers' runtimes, so there only the direct dependencies are judged.
if [ "${SANITIZE:-}" = 1 ]; then
	libs=$(readelf -d "$fe" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | grep -vE '^lib(asan|ubsan)\.so' | sort | tr '\n' ' ')
else
	libs=$(ldd "$fe" | awk '$1 !~ /^linux-vdso|ld-linux/ { print $1 }' | sort | tr '\n' ' ')
fi
result libc-only 0 '' 0 "" "$([ "$libs" = "libc.so.6 " ] || echo "$fe loads: $libs")"
# The check can tell: the full command line loads json-c.
ldd "$full" | grep -q libjson-c && echo "PASS: $T/full-cli-loads-json-c" ||
	echo "FAIL: $T/full-cli-loads-json-c: ldd $full: $(ldd "$full" | tr '\n' ' ')"

# same NAME ARG...: the front end and the full command line print the same
# stdout and stderr (PIDs aside: each is another process) and exit alike.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export CORESCHED_SOCKET=$work/no-such-socket
same() {
	local name=$1 a b ra rb
	shift
	a=$("$fe" "$@" 2>"$work/ea"); ra=$?
	b=$("$full" "$@" 2>"$work/eb"); rb=$?
	a="$a|$(sed 's/PID [0-9]*/PID N/; s/pid [0-9]*/pid N/' "$work/ea")|$ra"
	b="$b|$(sed 's/PID [0-9]*/PID N/; s/pid [0-9]*/pid N/' "$work/eb")|$rb"
	[ "$a" = "$b" ] && echo "PASS: $T/same-$name" ||
		echo "FAIL: $T/same-$name: front end: $a; full: $b"
}
same help --help
same version -V
same no-function
same get get
same get-pids get 1 2
same pre-source -s 1 2
same unknown frob
same bad-option new -x
same bad-long run --bogus
same run-no-command run
same run-new run --new -- true
same run-plain -- true
same new-command new -- true
same copy-dest copy -d 1
same function-help run -h
same lock-no-command get --lock
same lock run --lock -- true
same lock-new new --lock -- true
same group run -g web -- true
same group-new run -g web --new -- true
same group-empty run -g '' -- true
same pre-verbose-group -v run -g web -- true
same status status
same list-json list -J
same ps-user -u root ps
same stats-untagged stats -u -c 1
same clear clear 1
same assign assign -g web 1
same reload reload
same oci-hook-help oci-hook -h

# Installed elsewhere (an unpacked package, a DESTDIR): the full command
# line is found where the install layout puts it beside the front end.
mkdir -p "$work/usr/bin" "$work/usr/libexec/coresched"
cp "$fe" "$work/usr/bin/coresched"
cp "$full" "$work/usr/libexec/coresched/coresched-cli"
out=$("$work/usr/bin/coresched" status 2>&1); rc=$?
result relocated-handoff 7 'coreschedd is not running' $rc "$out"
# Missing: the direct functions still work; the rest says what is missing.
rm "$work/usr/libexec/coresched/coresched-cli"
out=$("$work/usr/bin/coresched" --version 2>&1); rc=$?
result missing-full-direct 0 '^coresched ' $rc "$out"
out=$("$work/usr/bin/coresched" status 2>&1); rc=$?
result missing-full-named 1 '^coresched: cannot execute the full command line /.*/coresched-cli: No such file' $rc "$out"
