# apt purge: the service stops, every file the package installed and every
# unit link is gone, and the cookies of running processes stay as they are.
. ./lib.sh
kcookie() { cs-cookies | awk -v p="$1" '$1 == p && $2 == p { print $3 }'; }
ktagged() { kc=$(kcookie "$1"); [ -n "$kc" ] && [ "$kc" != 0x0 ]; }
cp /bin/sleep /usr/local/bin/pg-a
printf '[Group pg]\nMatchComm=pg-a\n' > /etc/coresched/rules.d/50-purge.conf
systemctl restart coreschedd
systemd-run -q --slice=tenant.slice --unit=pg-a1 /usr/local/bin/pg-a 3600
a=$(prop pg-a1 MainPID)
wait_for ktagged "$a"
ca=$(kcookie "$a")
expect_set tagged "$ca"
# What the tests themselves put in /etc/coresched goes first: an
# administrator's files are not the package's, and dpkg leaves them.
rm -f /etc/coresched/rules.d/50-purge.conf /etc/coresched/rules.d/50-sdtest.conf /etc/coresched/rules.d/60-broken.conf
owned="$(dpkg -L coresched) $(dpkg -L libpam-coresched)"
# Enabled, the PAM profile must leave the stacks with the package (prerm).
DEBIAN_FRONTEND=noninteractive pam-auth-update --enable coresched >/dev/null 2>&1
expect pam-enabled "$(grep -l pam_coresched /etc/pam.d/common-session 2>/dev/null)" /etc/pam.d/common-session

out=$(apt-get purge -y coresched libpam-coresched 2>&1); rc=$?
if [ $rc -eq 0 ]; then pass apt-purge; else fail apt-purge "apt-get exited $rc: $(echo "$out" | tail -n5)"; fi
dpkg-query -s coresched >/dev/null 2>&1 && fail not-installed "$(dpkg-query -W -f '${Status}' coresched)" || pass not-installed
dpkg-query -s libpam-coresched >/dev/null 2>&1 && fail pam-not-installed "$(dpkg-query -W -f '${Status}' libpam-coresched)" || pass pam-not-installed
# The stacks themselves (pam-auth-update keeps its backups as *.pam-old).
expect pam-stacks-clean "$(grep -l pam_coresched /etc/pam.d/common-auth /etc/pam.d/common-account /etc/pam.d/common-session /etc/pam.d/common-session-noninteractive /etc/pam.d/common-password 2>/dev/null)" ""
left=
for f in $owned; do
	[ -e "$f" ] || [ -L "$f" ] || continue
	# A directory (or a link to one: merged /usr's /lib) that stays must
	# belong to another package too, or hold something that was never ours
	# (each file of ours is checked here).
	if [ -d "$f" ] && { dpkg -S "$f" >/dev/null 2>&1 || [ -n "$(ls -A "$f")" ]; }; then
		continue
	fi
	left="$left $f"
done
for f in /etc/coresched /usr/lib/coresched /run/coresched; do [ -e "$f" ] && left="$left $f"; done
expect no-file-left "$left" ""
expect units-gone "$(systemctl list-unit-files --no-legend 'coreschedd*' | wc -l) $(find /etc/systemd/system /lib/systemd/system -name 'coreschedd*' | wc -l)" "0 0"
expect units-inactive "$(systemctl is-active coreschedd.service coreschedd.socket | tr '\n' ' ')" "inactive inactive "
expect daemon-gone "$(pgrep -x coreschedd | wc -l)" 0
expect cookies-untouched "$(kcookie "$a")" "$ca"
systemctl stop pg-a1
