# What an unprivileged user may and may not tag.
. /tests/integration/lib.sh

bg cs-runas 1000 1000 sleep 100
own=$!
bg sleep 100
roots=$!
bg cs-runas 1001 1001 sleep 100
others=$!
# each running sleep: cs-runas's child is root's until its exec
for p in $own $roots $others; do wait_for grep -qx sleep /proc/$p/comm; done

cs-runas 1000 1000 coresched new -d $own
expect user-tags-own-rc $? 0
expect_set user-tags-own "$(cookie $own)"

msg=$(cs-runas 1000 1000 coresched new -d $roots 2>&1)
expect user-tags-root-rc $? 6
case $msg in *"permission denied"*CAP_SYS_PTRACE*) pass user-tags-root-message ;; *) fail user-tags-root-message "$msg" ;; esac
expect user-tags-root-unchanged "$(cookie $roots)" 0x0

cs-runas 1000 1000 coresched new -d $others 2>/dev/null
expect user-tags-other-rc $? 6
expect user-tags-other-unchanged "$(cookie $others)" 0x0

cs-runas 1000 1000 coresched get 99999 2>/dev/null
expect no-such-process-rc $? 5

bg cs-runas 1000 1000 coresched new -- sleep 100
wait_for tagged $!
expect_set user-runs-tagged "$(cookie $!)"

# A set-user-ID front end executes only the full command line it was built
# with, never one beside a link of it in a directory of the caller's (here
# a copy stands for the hard link). Not set-user-ID, it takes the one
# beside it, as in a build tree: the check can tell.
mkdir -p /tmp/fe && chmod 777 /tmp/fe && rm -f /tmp/fe/ran
cp "$(command -v coresched)" /tmp/fe/coresched && chown 0:0 /tmp/fe/coresched && chmod 4755 /tmp/fe/coresched
printf '#!/bin/sh\nid -u > /tmp/fe/ran\n' > /tmp/fe/coresched-cli && chmod 755 /tmp/fe/coresched-cli
msg=$(cs-runas 1000 1000 /tmp/fe/coresched status 2>&1)
if [ -e /tmp/fe/ran ]; then fail suid-frontend-ignores-neighbour "ran /tmp/fe/coresched-cli: $msg"; else pass suid-frontend-ignores-neighbour; fi
chmod 755 /tmp/fe/coresched
cs-runas 1000 1000 /tmp/fe/coresched status > /dev/null 2>&1
expect plain-frontend-takes-neighbour "$(cat /tmp/fe/ran 2>/dev/null)" 1000
rm -rf /tmp/fe
