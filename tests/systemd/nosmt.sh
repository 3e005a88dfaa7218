# The installed service where the kernel has core scheduling but no SMT
# (booted with nosmt, or SMT switched off here): the daemon exits 4 with its
# message and systemd does not restart it (RestartPreventExitStatus=), no
# crash loop. Leaves SMT as it found it and the service stopped.
. ./lib.sh
smt=/sys/devices/system/cpu/smt
switched=
if [ "$(cat $smt/active)" = 1 ]; then
	if ! echo off > $smt/control 2>/dev/null; then
		skip nosmt "SMT is on and $smt/control cannot switch it off"
		exit 0
	fi
	switched=1
fi
expect smt-off "$(cat $smt/active)" 0
# Booted with nosmt and run alone (tests/vm/run --systemd --append nosmt
# nosmt): install the package here; its postinst's start fails, apt does not.
if ! dpkg-query -W coresched >/dev/null 2>&1; then
	d=/usr/libexec/coresched-tests/debs
	out=$(apt-get install -y $d/coresched_$(cat $d/current)_$(dpkg --print-architecture).deb 2>&1) &&
		pass apt-install || fail apt-install "$(echo "$out" | tail -n5)"
fi
systemctl stop coreschedd 2>/dev/null
systemctl reset-failed coreschedd 2>/dev/null
since=$(date '+%Y-%m-%d %H:%M:%S')
if systemctl start coreschedd 2>/dev/null; then fail start-fails "systemctl start succeeded"; else pass start-fails; fi
# Long enough for Restart=on-failure (100 ms apart) to have restarted it
# several times over, and to hit the start limit, were exit 4 not excluded.
sleep 3
expect exit-4 "$(prop coreschedd ActiveState) $(prop coreschedd Result) $(prop coreschedd ExecMainStatus)" "failed exit-code 4"
expect not-restarted "$(prop coreschedd NRestarts)" 0
msg=$(journalctl -u coreschedd --since "$since" -o cat 2>/dev/null | grep -c 'coreschedd: core scheduling is unavailable: SMT is absent or switched off')
expect message-once "$msg" 1
if [ -n "$switched" ]; then
	echo on > $smt/control
	systemctl reset-failed coreschedd
	if systemctl start coreschedd; then pass smt-back-starts; else fail smt-back-starts "$(systemctl status coreschedd 2>&1 | tail -n3)"; fi
	systemctl stop coreschedd 2>/dev/null
fi
