# What an unprivileged user may and may not tag.
. /tests/integration/lib.sh

bg cs-runas 1000 1000 sleep 100
own=$!
bg sleep 100
roots=$!
bg cs-runas 1001 1001 sleep 100
others=$!
sleep 0.3

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
sleep 0.3
expect_set user-runs-tagged "$(cookie $!)"
