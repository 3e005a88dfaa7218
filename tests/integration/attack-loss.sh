# Adversarial races around scans, judged by the kernel's cookies:
# clone3 into cgroups under Per=cgroup, a reload in the middle of a
# storm, members forking helpers while the daemon starts, lost events,
# reused pids (see attack-lib.sh). One phase runs on request only:
# restart (ATK=restart): when as many members carry a foreign cookie as
# the group's own at the restart, the vote of the start-up adoption may
# take either, as coreschedd(8) says, and the phase then fails.
ATK_PHASES="cgroup reload startup loss pidreuse"
[ "$ATK" = all ] && ATK=
. /tests/integration/attack-lib.sh
