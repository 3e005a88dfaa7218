# Adversarial races on the event path, judged by the kernel's cookies:
# execs into and out of groups that fork at once, CLONE_PARENT children,
# a non-main thread's exec, threads made during a placement, orphan
# chains, UnmatchedExec=clear, renames, setuid programs (see
# attack-lib.sh).
ATK_PHASES="exec-other cpexec cpfork texec tstorm chain uclear uclear-more rename setuid"
[ "$ATK" = all ] && ATK=
. /tests/integration/attack-lib.sh
