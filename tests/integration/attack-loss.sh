# Adversarial races around scans, judged by the kernel's cookies:
# clone3 into cgroups under Per=cgroup, a reload in the middle of a
# storm, a start-up among forking members, lost events, reused pids (see
# attack-lib.sh). The restart phase runs on request (ATK=restart): when
# as many members carry a foreign cookie as the group's own at the
# restart, the vote of the start-up adoption may take either, as
# coreschedd(8) says, and the phase then fails.
ATK_PHASES="cgroup reload startup loss pidreuse"
. /tests/integration/attack-lib.sh
