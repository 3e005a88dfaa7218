# The Debian package as an administrator gets it: a previous build installed
# with apt from the image's own packages (no mirror), enabled and started by
# its maintainer scripts; then the upgrade to this tree's build: the local
# edit of the conffile kept, the service restarted, every group and cookie
# intact. Leaves this tree's package installed and the service stopped, for
# the other tests.
. ./lib.sh
debs=/usr/libexec/coresched-tests/debs
cur=$(cat $debs/current)
prev=$(cat $debs/previous)
arch=$(dpkg --print-architecture)

# The kernel's word through the test helper, not through the package.
kcookie() { cs-cookies | awk -v p="$1" '$1 == p && $2 == p { print $3 }'; }
ktagged() { kc=$(kcookie "$1"); [ -n "$kc" ] && [ "$kc" != 0x0 ]; }
for w in up-a up-b up-c; do cp /bin/sleep /usr/local/bin/$w; done
worker() { # NAME UNIT -> prints the MainPID
	systemd-run -q --slice=tenant.slice --unit="$2" /usr/local/bin/"$1" 3600 || return 1
	prop "$2" MainPID
}

# ---- install the previous build ----
# No package list in the image and no network: apt succeeds only if every
# dependency is already there.
out=$(apt-get install -y $debs/coresched_${prev}_$arch.deb $debs/libpam-coresched_${prev}_$arch.deb 2>&1); rc=$?
if [ $rc -eq 0 ]; then pass apt-install; else fail apt-install "apt-get exited $rc: $(echo "$out" | tail -n5)"; fi
expect installed-version "$(dpkg-query -W -f '${Status} ${Version}' coresched 2>&1)" "install ok installed $prev"
expect pam-installed-version "$(dpkg-query -W -f '${Status} ${Version}' libpam-coresched 2>&1)" "install ok installed $prev"
# The profile is there for pam-auth-update, and off until enabled.
expect pam-profile "$(ls /usr/share/pam-configs/coresched /lib/*/security/pam_coresched.so 2>&1 | wc -l)" 2
expect pam-off-by-default "$(grep -l pam_coresched /etc/pam.d/common-* 2>/dev/null)" ""
out=$(apt-get check 2>&1) && pass dependencies-satisfied || fail dependencies-satisfied "$out"
expect enabled "$(systemctl is-enabled coreschedd.service coreschedd.socket | tr '\n' ' ')" "enabled enabled "
expect started "$(systemctl is-active coreschedd.service coreschedd.socket | tr '\n' ' ')" "active active "
expect runtime-dir "$(stat -c '%U %a' /run/coresched 2>&1)" "root 755"
expect version-previous "$(coresched --version)" "coresched ${prev%-*}"
expect paths "$(command -v coresched) $(command -v coreschedd) $(prop coreschedd ExecStart | sed -n 's/.*path=\([^ ;]*\).*/\1/p')" \
	"/usr/bin/coresched /usr/sbin/coreschedd /usr/sbin/coreschedd"

# ---- vendor drop-ins: a file in /etc replaces the one of the same name ----
# GROUP SOURCE of every group the daemon has loaded, one line each
groups() { coresched list -n -o GROUP,SOURCE 2>/dev/null | awk '{ sub(/:[0-9]+$/, "", $2); print $1, $2 }' | sort -u; }
vendor=/usr/lib/coresched/rules.d/50-examples.conf
before=$(groups)
case $before in
*"system $vendor"*) pass vendor-read ;;
*) fail vendor-read "no group from $vendor: $(echo $before)" ;;
esac
printf '[Group local-system]\nMatchCgroup=/system.slice/* /init.scope\nTrusted=yes\n' > /etc/coresched/rules.d/50-examples.conf
systemctl reload coreschedd
after=$(groups)
case $after in
*"$vendor"*) fail vendor-overridden "$vendor still read: $(echo $after)" ;;
*"local-system /etc/coresched/rules.d/50-examples.conf"*) pass vendor-overridden ;;
*) fail vendor-overridden "groups: $(echo $after)" ;;
esac
rm /etc/coresched/rules.d/50-examples.conf
systemctl reload coreschedd
expect vendor-back "$(groups)" "$before"

# ---- groups and cookies to carry through the upgrade ----
cat > /etc/coresched/rules.d/50-upgrade.conf <<'C'
[Group upa]
MatchComm=up-a up-b
[Group upc]
MatchComm=up-c
C
systemctl reload coreschedd
a=$(worker up-a up-a1); b=$(worker up-b up-b1); c=$(worker up-c up-c1)
wait_for ktagged "$a" && wait_for ktagged "$b" && wait_for ktagged "$c"
ca=$(kcookie "$a"); cc=$(kcookie "$c")
expect_set upgrade-tagged "$ca"
expect upgrade-same-group "$(kcookie "$b")" "$ca"
expect_distinct upgrade-two-groups "$ca" "$cc"
# A local edit of the conffile (the package's conffile is the same in both
# builds, so dpkg keeps the edit without asking).
printf '\n# Local edit: kept across upgrades.\n' >> /etc/coresched/coreschedd.conf
sum=$(md5sum < /etc/coresched/coreschedd.conf)
main=$(prop coreschedd MainPID)

# ---- upgrade ----
out=$(apt-get install -y $debs/coresched_${cur}_$arch.deb $debs/libpam-coresched_${cur}_$arch.deb 2>&1); rc=$?
if [ $rc -eq 0 ]; then pass apt-upgrade; else fail apt-upgrade "apt-get exited $rc: $(echo "$out" | tail -n5)"; fi
expect upgraded-version "$(dpkg-query -W -f '${Status} ${Version}' coresched 2>&1)" "install ok installed $cur"
expect pam-upgraded-version "$(dpkg-query -W -f '${Status} ${Version}' libpam-coresched 2>&1)" "install ok installed $cur"
expect version-current "$(coresched --version) $(coreschedd --version)" "coresched ${cur%-*} coreschedd ${cur%-*}"
expect conffile-kept "$(md5sum < /etc/coresched/coreschedd.conf)" "$sum"
expect no-conffile-copies "$(ls /etc/coresched | grep -E 'dpkg-(new|old|dist)' | tr '\n' ' ')" ""
new=$(prop coreschedd MainPID)
if [ "$new" != 0 ] && [ "$new" != "$main" ] && [ "$(systemctl is-active coreschedd)" = active ]; then
	pass upgrade-restarted
else
	fail upgrade-restarted "MainPID $main before, $new after, $(systemctl is-active coreschedd)"
fi
expect upgrade-still-enabled "$(systemctl is-enabled coreschedd.service coreschedd.socket | tr '\n' ' ')" "enabled enabled "
expect upgrade-cookies-kept "$(kcookie "$a") $(kcookie "$b") $(kcookie "$c")" "$ca $ca $cc"
expect upgrade-groups-kept "$(coresched list -n -o GROUP,COOKIE | grep '^up' | tr -s ' ' | sort | tr '\n' ' ')" "upa $ca upc $cc "
# The restarted daemon still knows each group's cookie: a newcomer joins it.
a2=$(worker up-a up-a2)
wait_for ktagged "$a2"
expect upgrade-newcomer-joins "$(kcookie "$a2")" "$ca"
coresched status >/dev/null 2>&1 && pass upgrade-socket-answers || fail upgrade-socket-answers "coresched status failed"

# ---- the autopkgtest, against the installed package ----
sh /usr/libexec/coresched-tests/debian-tests/smoke 2>&1 | sed 's#^\(PASS\|FAIL\|SKIP\): smoke/#\1: vm-systemd/'"$T"'/autopkgtest-#'

systemctl stop 'up-*' coreschedd 2>/dev/null
rm -f /etc/coresched/rules.d/50-upgrade.conf
