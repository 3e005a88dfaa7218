#!/bin/bash
# Event loss on this host, in a dry run: a 4096-byte buffer under an exec
# storm loses events again and again. The daemon drains and rescans each
# time, logs once that rescans follow one another (ReceiveBuffer= too
# small for the load, coreschedd.conf(5)), and afterwards plans the
# group's key for every member started during the storm, and knows every
# process of the test. Needs root (the proc connector).
T=host/daemon-loss-dry
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/host/lib.bash"
d=$top/build/coreschedd
cs=$top/build/coresched
json=$top/build/helpers/cs-json
storm=$top/build/helpers/cs-storm

need_root_for_events
daemon_workdir lossdry
cp /bin/true "$W/bin/flash"
cp /bin/sleep "$W/bin/member"
cat > "$W/cfg/coreschedd.conf" <<EOF
[Daemon]
ReconcileSec=0
ReceiveBuffer=4096
[Group members]
MatchExe=$W/bin/member
EOF
start_dry_run

# Two storms of an unmatched program for 3 s; members started all along.
"$storm" 0 3 "$W/bin/flash" >"$W/storm1" &
s1=$!
"$storm" 0 3 "$W/bin/flash" >"$W/storm2" &
s2=$!
for i in $(seq 1 30); do
	"$W/bin/member" 1000 </dev/null >/dev/null 2>&1 &
	pids+=($!)
	sleep 0.1
done
wait "$s1" "$s2"

# Planned for every member: the key of the group, from a rescan or an event.
planned() {
	local p out
	for p in "${pids[@]}"; do
		out=$("$cs" ps -J "$p" 2>/dev/null | "$json" processes.0.group 2>/dev/null)
		[ "$out" = members ] || return 1
	done
}
end=$((SECONDS + 20))
until planned || [ $SECONDS -ge $end ]; do sleep 0.2; done
bad=
for p in "${pids[@]}"; do
	g=$("$cs" ps -J "$p" 2>/dev/null | "$json" processes.0.group 2>/dev/null)
	[ "$g" = members ] || bad="$bad $p:${g:-none}"
done
result members-planned 0 '' 0 '' "${bad:+members not planned:$bad}"

lost=$("$cs" status -J | "$json" counters.lost)
result losses 0 '' 0 '' "$([ "${lost:-0}" -ge 2 ] || echo "counters.lost is '$lost', want 2 or more: the storm did not overflow twice")"
n=$(grep -c 'Events were lost again within a second of a rescan' "$W/log")
result back-to-back-logged 0 '' 0 '' "$([ "$n" = 1 ] || echo "the warning came $n times, want once: $(tail -5 "$W/log")")"
grep -q 'ReceiveBuffer=4096 ' "$W/log"
result back-to-back-names-buffer 0 '' $? "$(grep 'lost again' "$W/log")"

# The buffer is the socket's from the start: a reload that changes it says
# that it waits for the next start, and the warning names the one in use.
sed -i 's/^ReceiveBuffer=4096$/ReceiveBuffer=1M/' "$W/cfg/coreschedd.conf"
out=$("$cs" reload 2>&1)
grep -q 'ReceiveBuffer=1048576 takes effect at the next start; until then the socket keeps 4096' "$W/log"
result reload-keeps-buffer 0 '' $? "$out $(tail -3 "$W/log")"
