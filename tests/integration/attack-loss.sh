# Adversarial races around scans, judged by the kernel's cookies:
# clone3 into cgroups under Per=cgroup, a reload in the middle of a
# storm, members forking helpers while the daemon starts, lost events,
# reused pids, a kill -9 restart while members were given a foreign
# process's cookie (see attack-lib.sh).
ATK_PHASES="cgroup reload startup loss pidreuse restart"
[ "$ATK" = all ] && ATK=
. /tests/integration/attack-lib.sh
