# Shared by the systemd-image tests (sourced; runs inside that VM as root).
# The integration tests' library (installed beside this file by
# tests/vm/mkimage), with this suite's test names and a few additions.
. ./integration-lib.sh
PATH=/usr/libexec/coresched-tests:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

pass() { echo "PASS: vm-systemd/$T/$1"; }
fail() { echo "FAIL: vm-systemd/$T/$1: $2"; }
skip() { echo "SKIP: vm-systemd/$T/$1: $2"; }

# prop UNIT PROPERTY -> its value from systemctl show
prop() { systemctl show -P "$2" "$1"; }
# is_set PID: PID carries a cookie
is_set() { c=$(cookie "$1"); [ -n "$c" ] && [ "$c" != 0x0 ]; }
