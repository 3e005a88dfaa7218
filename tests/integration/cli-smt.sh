# SMT switched off at run time gives ENODEV; on again, calls work.
. /tests/integration/lib.sh

ctl=/sys/devices/system/cpu/smt/control
[ -w $ctl ] || { skip smt-toggle "no writable $ctl"; exit 0; }
echo off > $ctl
msg=$(coresched get 2>&1)
rc=$?
expect smt-off-rc $rc 4
case $msg in *SMT*) pass smt-off-message ;; *) fail smt-off-message "$msg" ;; esac
echo on > $ctl
coresched new -- true
expect smt-on-again $? 0
expect smt-active-again "$(cat /sys/devices/system/cpu/smt/active)" 1
