# Adversarial races around scans, judged by the kernel's cookies:
# clone3 into cgroups under Per=cgroup, a reload and a kill -9 restart in
# the middle of a storm, a start-up among forking members, lost events,
# reused pids (see attack-lib.sh).
ATK_PHASES="cgroup reload restart startup loss pidreuse"
. /tests/integration/attack-lib.sh
