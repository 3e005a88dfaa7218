#!/bin/bash
# The Debian package: `make deb` builds it (once per change of a shipped
# file), lintian finds no error or warning, it holds what it should where it
# should, and its programs agree with debian/changelog on the version. The
# packaged daemon, run on this host, exits 3 when the kernel lacks core
# scheduling; the autopkgtest runs against the unpacked package.
T=host/deb
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/host/lib.bash"
cd "$top" || exit 1

for t in dpkg-buildpackage dh lintian; do
	if ! command -v $t >/dev/null; then
		echo "SKIP: $T: $t is not installed (scripts/install-deps installs it)"
		exit 0
	fi
done
out=$(make -s deb 2>&1); rc=$?
result build 0 '' $rc "$out"
ver=$(dpkg-parsechangelog -S Version)
deb=build/deb/coresched_${ver}_$(dpkg --print-architecture).deb
[ -f "$deb" ] || { echo "FAIL: $T/build: $deb is missing"; exit 1; }

# Errors and warnings fail; overrides carry their reason in a comment.
out=$(lintian --fail-on none -I build/deb/coresched_"$ver"_*.changes build/deb/coresched_"$ver".dsc 2>/dev/null); rc=$?
bad=$(grep -E '^[EW]: ' <<<"$out")
result lintian 0 '' $rc "$out" "${bad:+$(tr '\n' ' ' <<<"$bad")}"
n_over=$(grep -cv '^#' debian/coresched.lintian-overrides)
n_comm=$(grep -c '^#' debian/coresched.lintian-overrides)
[ "$n_over" -le "$n_comm" ] && echo "PASS: $T/overrides-commented" ||
	echo "FAIL: $T/overrides-commented: $n_over overrides, $n_comm comment lines"

files=$(dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\.||')
missing=
for f in /usr/sbin/coreschedd /usr/bin/coresched /lib/systemd/system/coreschedd.service \
	/lib/systemd/system/coreschedd.socket /usr/lib/tmpfiles.d/coresched.conf \
	/etc/coresched/coreschedd.conf /etc/coresched/rules.d/ /usr/lib/coresched/rules.d/50-examples.conf \
	/usr/share/containers/oci/hooks.d/coresched.json /usr/share/man/man1/coresched.1.gz \
	/usr/share/man/man5/coreschedd.conf.5.gz /usr/share/man/man8/coreschedd.8.gz \
	/usr/share/bash-completion/completions/coresched /usr/share/doc/coresched/copyright \
	/usr/bin/coresched-runtime /etc/coresched/runtime.conf /usr/share/man/man8/coresched-runtime.8.gz; do
	grep -qxF "$f" <<<"$files" || missing="$missing $f"
done
result contents 0 '' 0 "" "${missing:+missing:$missing}"
result no-local-prefix 0 '' 0 "" "$(grep '^/usr/local' <<<"$files" | tr '\n' ' ')"

ctl=$(mktemp -d)
root=$(mktemp -d)
trap 'rm -rf "$ctl" "$root"' EXIT
dpkg-deb -e "$deb" "$ctl"
dpkg-deb -x "$deb" "$root"
expect_eq() { # NAME ACTUAL EXPECTED
	[ "$2" = "$3" ] && echo "PASS: $T/$1" || echo "FAIL: $T/$1: got '$2', expected '$3'"
}
expect_eq conffiles "$(cat "$ctl/conffiles")" "/etc/coresched/coreschedd.conf
/etc/coresched/runtime.conf"
# dh_installsystemd enables and starts both units; dh_installtmpfiles
# creates /run/coresched at install time.
grep -q "deb-systemd-helper.*enable 'coreschedd.service'" "$ctl/postinst" &&
	grep -q "deb-systemd-helper.*enable 'coreschedd.socket'" "$ctl/postinst" &&
	grep -q "deb-systemd-invoke .*coreschedd.service.*coreschedd.socket\|deb-systemd-invoke .*coreschedd.socket.*coreschedd.service" "$ctl/postinst" &&
	echo "PASS: $T/units-enabled-started" || echo "FAIL: $T/units-enabled-started: postinst does not enable and start both units"
grep -q 'systemd-tmpfiles .*--create coresched.conf' "$ctl/postinst" &&
	echo "PASS: $T/tmpfiles-created" || echo "FAIL: $T/tmpfiles-created: postinst does not run systemd-tmpfiles"
expect_eq unit-exec "$(sed -n 's/^ExecStart=//p' "$root/lib/systemd/system/coreschedd.service")" /usr/sbin/coreschedd
expect_eq unit-no-restart-loop "$(sed -n 's/^RestartPreventExitStatus=//p' "$root/lib/systemd/system/coreschedd.service")" "3 4"
expect_eq hook-path "$(sed -n 's/.*"path": *"\([^"]*\)".*/\1/p' "$root/usr/share/containers/oci/hooks.d/coresched.json")" /usr/bin/coresched
for f in $(grep '\.conf$' <<<"$files" | grep rules.d); do
	cmp -s "$root$f" "conf/rules.d/${f##*/}" || echo "FAIL: $T/vendor-rules: $f differs from conf/rules.d"
done
# hardening=+all: bind-now and PIE (what `hardening-check` reads).
for p in usr/sbin/coreschedd usr/bin/coresched; do
	h=$(readelf -d -h "$root/$p" 2>/dev/null)
	grep -q 'DYN (Position-Independent Executable' <<<"$h" && grep -q 'BIND_NOW' <<<"$h" && grep -q 'FLAGS_1.*NOW' <<<"$h" &&
		echo "PASS: $T/hardened-${p##*/}" || echo "FAIL: $T/hardened-${p##*/}: not PIE with bind-now"
done

# The front end in /usr/bin loads libc only; the full command line ships in
# /usr/libexec/coresched and is found from the unpacked front end.
libs=$(ldd "$root/usr/bin/coresched" | awk '$1 !~ /^linux-vdso|ld-linux/ { print $1 }' | tr '\n' ' ')
expect_eq front-end-libc-only "$libs" "libc.so.6 "
grep -qxF /usr/libexec/coresched/coresched-cli <<<"$files" && echo "PASS: $T/full-cli-shipped" ||
	echo "FAIL: $T/full-cli-shipped: no /usr/libexec/coresched/coresched-cli in the package"
out=$(CORESCHED_SOCKET="$ctl/no-socket" "$root/usr/bin/coresched" status 2>&1); rc=$?
result full-cli-handoff 7 'coreschedd is not running' $rc "$out"

# One version: debian/changelog's upstream part, in both programs, in the
# package and in the tree's own build.
up=${ver%-*}
for p in usr/bin/coresched usr/sbin/coreschedd; do
	n=${p##*/}
	expect_eq "version-$n" "$("$root/$p" --version 2>&1)" "$n $up"
	expect_eq "version-tree-$n" "$(build/$n --version 2>&1)" "$n $up"
done

# The packaged daemon on a kernel without CONFIG_SCHED_CORE: exit 3, said
# so, before touching anything (under systemd, RestartPreventExitStatus
# keeps it from restarting).
if grep -qw sched_core /proc/kallsyms 2>/dev/null || [ -e /sys/kernel/debug/sched/core ]; then
	echo "SKIP: $T/packaged-daemon-exit-3: this host's kernel has core scheduling"
else
	printf '[Group g]\nMatchComm=x\n' > "$ctl/coreschedd.conf"
	out=$("$root/usr/sbin/coreschedd" --config-dir "$ctl" --socket "$ctl/sock" 2>&1); rc=$?
	result packaged-daemon-exit-3 3 '^coreschedd: .*CONFIG_SCHED_CORE' $rc "$out"
fi

# The autopkgtest, against the unpacked package (the installed one is
# tested in the systemd image).
out=$(PATH="$root/usr/bin:$root/usr/sbin:$PATH" CORESCHED_SMOKE_VERSION=$up sh debian/tests/smoke 2>&1); rc=$?
bad=$(grep '^FAIL' <<<"$out")
result autopkgtest-smoke 0 '^PASS: smoke/get' $rc "$out" "$bad"

# libpam-coresched: the module, its pam-auth-update profile and man page;
# its maintainer scripts hand the profile to pam-auth-update, as
# libpam-systemd's do.
pdeb=$(ls build/deb/libpam-coresched_"$ver"_*.deb 2>/dev/null | head -n1)
if [ -z "$pdeb" ]; then
	echo "FAIL: $T/pam-package: no libpam-coresched_$ver .deb in build/deb"
else
	pfiles=$(dpkg-deb -c "$pdeb" | awk '{print $6}' | sed 's|^\.||')
	pmissing=
	for f in "/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/security/pam_coresched.so" \
		/usr/share/pam-configs/coresched /usr/share/man/man8/pam_coresched.8.gz; do
		grep -qxF "$f" <<<"$pfiles" || pmissing="$pmissing $f"
	done
	result pam-contents 0 '' 0 "" "${pmissing:+missing:$pmissing}"
	grep -q pam_coresched <<<"$files" && echo "FAIL: $T/pam-not-in-coresched: the module is in the coresched package" ||
		echo "PASS: $T/pam-not-in-coresched"
	pctl=$(mktemp -d)
	dpkg-deb -e "$pdeb" "$pctl"
	grep -q '^	pam-auth-update --package$' "$pctl/postinst" 2>/dev/null && grep -q 'pam-auth-update --package --remove coresched' "$pctl/prerm" 2>/dev/null &&
		echo "PASS: $T/pam-maintainer-scripts" || echo "FAIL: $T/pam-maintainer-scripts: $(cat "$pctl/postinst" "$pctl/prerm" 2>&1 | head -n 20)"
	rm -rf "$pctl"
fi
