# The bash completion: functions, options and their values, before and
# after the function (options may come first, as in util-linux).
cd "$(dirname "$0")/../.." || exit 1
T=host/completion
bc=/usr/share/bash-completion/bash_completion
if [ ! -r "$bc" ]; then
	echo "SKIP: $T: $bc is missing (package bash-completion)"
	exit 0
fi
exec bash -c '
T=$1
. "$2" 2>/dev/null
. scripts/coresched.bash-completion
PATH=$PWD/build:$PATH
export CORESCHED_SOCKET=/nonexistent
# comp NAME "WORDS" EXPECTED...: completing the last of WORDS offers every
# EXPECTED ("!WORD": must not offer WORD)
comp() {
	local name=$1 line=$2 w missing=""
	shift 2
	read -ra COMP_WORDS <<<"$line"
	[[ $line == *" " ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE=$line
	COMP_POINT=${#line}
	COMPREPLY=()
	# compopt complains outside a real completion; what it sets is not tested
	_coresched coresched "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}" 2>/dev/null
	for w in "$@"; do
		if [[ $w == !* ]]; then
			printf "%s\n" "${COMPREPLY[@]}" | grep -qxF -- "${w#!}" && missing="$missing $w"
		else
			printf "%s\n" "${COMPREPLY[@]}" | grep -qxF -- "$w" || missing="$missing $w"
		fi
	done
	if [ -z "$missing" ]; then echo "PASS: $T/$name"; else
		echo "FAIL: $T/$name: wrong for$missing; offered: ${COMPREPLY[*]}"; fi
}
comp functions "coresched " get new copy run list stats oci-hook
comp functions-prefix "coresched ch" check-config !copy
comp stats-untagged-no-user "coresched stats -u " !root
comp stats-untagged-options "coresched stats -u -" --json --interval
comp untagged-before-stats "coresched -u stats -" --untagged !--user
comp user-before-ps "coresched -u root ps -" --user
comp first-options "coresched --v" --verbose --version
comp function-after-verbose "coresched -v n" new
comp function-after-dest "coresched -d $$ n" new
comp dest-value-before-function "coresched -d " $$ 1
comp type-before-function "coresched -t " pid tgid pgid
comp new-options-after-prefix "coresched -v new --d" --dest --dest-type
comp new-no-source "coresched new -" -d --lock !-s
comp copy-source "coresched copy -" -s --source -d
comp type-after-function "coresched -v copy -s 1 -t " pid tgid pgid
comp new-command-after-dashes "coresched -v new -- coresche" coresched
comp new-command-args "coresched new -- ls --versio" --version
comp list-columns "coresched list -o GROUP,CO" GROUP,COOKIE !GROUP,PID
comp ps-columns-options-first "coresched -n ps -o EX" EXE
comp stats-options "coresched stats -" --interval --count --json
comp get-pids "coresched get " $$ 1
' bash "$T" "$bc"
