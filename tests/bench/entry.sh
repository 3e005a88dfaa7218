# Measurement 8 (sourced by tests/bench/run): every entry point that gives
# a process its group's cookie, the window the process itself sees (the
# probe: from the start of its main until its cookie is set) and the CPU
# time the daemon counted as run untagged (coresched stats --untagged).
# A rule acts on the exec event, after the program started; run -g, the
# OCI hook and coresched-runtime place the process before its first
# instruction, so their window is the probe's first look and their
# untagged CPU is 0 by construction: the rows show it is so.

# first_row LABEL FILE: how many probes found their cookie at the first
# look (the second column of each probe's line).
first_row() {
	awk -v l="$1" '$1 != "timeout" { n++; f += $2 } END { printf "%-44s %6d %10d %9.1f%%\n", l, n, f, n ? 100 * f / n : 0 }' "$2" | tee -a $RES
}

# exposure GROUP: "placements cpu_ns" the daemon counted for GROUP
exposure() {
	coresched status -J 2>/dev/null | cs-json exposure >/dev/null 2>&1 || { echo "0 0"; return; }
	n=$(coresched status -J 2>/dev/null | cs-json 'exposure.#' 2>/dev/null || echo 0)
	i=0
	while [ "$i" -lt "$n" ]; do
		st=$(coresched status -J 2>/dev/null)
		if [ "$(echo "$st" | cs-json "exposure.$i.group")" = "$1" ]; then
			echo "$(echo "$st" | cs-json "exposure.$i.untagged_placements") $(echo "$st" | cs-json "exposure.$i.untagged_cpu_ns")"
			return
		fi
		i=$((i + 1))
	done
	echo "0 0"
}

# cpu_row LABEL GROUP N: the daemon's untagged CPU for GROUP over N processes
cpu_row() {
	set -- "$1" $(exposure "$2") "$3"
	awk -v l="$1" -v p="$2" -v ns="$3" -v n="$4" \
		'BEGIN { printf "%-44s %6d %10d %12.1f %12.1f\n", l, n, p, ns / 1000, n ? ns / 1000 / n : 0 }' | tee -a $RES
}

# The container rows: a busybox-free rootfs holding the probe and the VM's
# libraries; the entrypoint prints its window and exits.
entry_bundle() { # DIR HOOK(yes|no)
	mkdir -p "$1"
	hooks=
	[ "$2" = yes ] && hooks='"hooks": { "createRuntime": [ { "path": "'"$(command -v coresched)"'", "args": ["coresched", "oci-hook"], "timeout": 20 } ] },'
	cat > "$1/config.json" <<JSON
{
  "ociVersion": "1.0.2",
  "process": { "terminal": false, "user": { "uid": 0, "gid": 0 },
    "args": ["/probe", "5000"], "env": ["PATH=/"], "cwd": "/" },
  "root": { "path": "$B/rootfs" },
  $hooks
  "mounts": [ { "destination": "/proc", "type": "proc", "source": "proc" } ],
  "linux": { "namespaces": [ { "type": "pid" }, { "type": "mount" }, { "type": "ipc" }, { "type": "uts" } ] }
}
JSON
}

# containers FILE RUNTIME HOOK: N containers, each probe's line into FILE
containers() {
	: > "$1"
	i=0
	while [ $i -lt $ENTRY_N ]; do
		rm -rf $B/ctr; entry_bundle $B/ctr "$3"
		"$2" run --no-pivot --no-new-keyring -b $B/ctr cs-bench-$i < /dev/null 2>> $B/ctr.err | head -n1 >> "$1"
		runc delete -f cs-bench-$i >/dev/null 2>&1
		i=$((i + 1))
	done
}

bench_entry() {
	ENTRY_N=${BENCH_ENTRY_N:-$((N < 50 ? N : 50))}
	out ""
	out "== 8. entry points: the window the process sees (us, from its main until its cookie is set; n=$N, containers n=$ENTRY_N)"
	header "entry point"
	conf "[Group probe]
MatchExe=$B/bin/probe
[Group run]
[Group containers]
[Group logins]
MatchUser=tester
Per=user
" && dstart || return
	probes $B/e-rule 5000
	row "rule on exec (MatchExe=)" $B/e-rule
	: > $B/e-run
	i=0
	while [ $i -lt $N ]; do coresched run -g run -- $B/bin/probe 5000 >> $B/e-run; i=$((i + 1)); done
	row "coresched run -g" $B/e-run
	if command -v runc >/dev/null; then
		mkdir -p $B/rootfs/proc
		cp $B/bin/probe $B/rootfs/probe
		for d in /lib /lib64 /usr/lib; do [ -d $d ] && mkdir -p $B/rootfs$d && cp -a $d/. $B/rootfs$d/; done
		containers $B/e-hook runc yes
		row "OCI hook (hooks.d, createRuntime)" $B/e-hook
		if command -v coresched-runtime >/dev/null; then
			containers $B/e-shim coresched-runtime no
			row "coresched-runtime (Docker, containerd)" $B/e-shim
		else
			note "coresched-runtime not installed: its row is left out"
		fi
		[ -s $B/ctr.err ] && note "containers: $(tail -n2 $B/ctr.err)"
	else
		note "no runc: the container rows are left out"
	fi
	# A login: pam-drive opens a session as login and su do (open, fork
	# the user's process, wait); the user's process is the probe.
	pam=$(dirname "$(command -v pam-drive 2>/dev/null)")/pam_coresched.so
	if command -v pam-drive >/dev/null && [ -f "$pam" ]; then
		mkdir -p $B/pam.d
		echo "session required $pam socket=$SOCK" > $B/pam.d/cs-bench
		# Not the rule row's program: the rules would claim it at its exec
		# (as they do in a session), which is that row's measurement.
		cp $B/bin/probe $B/bin/login-probe
		: > $B/e-pam
		i=0
		while [ $i -lt $N ]; do
			pam-drive -c $B/pam.d cs-bench tester $B/bin/login-probe 5000 2>>$B/pam.err |
				grep -E '^([0-9.]+ [01]|timeout)$' >> $B/e-pam
			i=$((i + 1))
		done
		row "PAM login (pam_coresched, fork model)" $B/e-pam
		[ -s $B/pam.err ] && note "pam: $(tail -n2 $B/pam.err)"
	else
		note "pam-drive or pam_coresched.so not in the VM: the login row is left out"
	fi
	out ""
	out "$(printf '%-44s %6s %10s %10s' "cookie at the process's first look" n first share)"
	first_row "rule on exec (MatchExe=)" $B/e-rule
	first_row "coresched run -g" $B/e-run
	[ -s $B/e-hook ] && first_row "OCI hook (hooks.d, createRuntime)" $B/e-hook
	[ -s $B/e-shim ] && first_row "coresched-runtime (Docker, containerd)" $B/e-shim
	[ -s $B/e-pam ] && first_row "PAM login (pam_coresched, fork model)" $B/e-pam
	out ""
	out "$(printf '%-44s %6s %10s %12s %12s' "untagged CPU, daemon's count" n placed total_us per_proc_us)"
	cpu_row "rule on exec (MatchExe=)" probe "$N"
	cpu_row "coresched run -g" run "$N"
	command -v runc >/dev/null && cpu_row "OCI hook + coresched-runtime (containers)" containers "$((2 * ENTRY_N))"
	[ -s $B/e-pam ] && cpu_row "PAM login (pam_coresched)" logins "$N"
	dstop
}
