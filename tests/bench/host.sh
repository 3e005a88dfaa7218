#!/bin/bash
# tests/bench/host.sh [3c] [4c] [4d] [5d] [key=value...]: host speed of the
# daemon's event path, on any kernel with the proc connector (no core
# scheduling needed): coreschedd --dry-run against the floor, cs-floor
# --dry-run, both subscribed during the same storms; and its start-up
# against a bare walk of /proc. A dry run decides and records exactly
# as the daemon does, and applies nothing; the floor in a dry run reads
# /proc/PID/exe and compares it, and makes no core-scheduling call either.
# Needs root (the proc connector) and a built tree; run by
# tests/bench/collect after the VM part. Prints four tables; nothing here
# passes or fails on a time.
#   3c: CPU per exec (matching and not) at a fixed rate, ratio to the floor
#   4c: the highest exec rate followed with no loss, 1..N spawners
#   4d: the untagged window (event to cookie) of matching execs, quiet and
#       beside an unmatched storm, each listener's p50/p90/p99, ratio to the
#       floor: both at nice 0, and at the unit's Nice=
#   5d: time to READY with many idle processes, ratio to cs-walk (a bare
#       walk of /proc reading what the daemon reads), and the daemon's peak RSS
#   key=value or BENCH_KEY env: cpurate (execs/s asked, 1000), cpusecs
#   (seconds per storm, 5), cpureps (runs, 3), life (seconds each child of
#   the CPU storms lives, 0.1), spawners (N, 2 x CPUs), losssecs (seconds
#   per storm, 3), lossreps (runs per level, 3), winrate (probes/s of 4d,
#   100), winsecs (seconds of probes per run, 5), winreps (runs, 3), startprocs (idle
#   processes for 5d, 10000), startreps (interleaved rounds of 5d, 7).
#   Other keys are ignored: tests/bench/collect passes the VM's here too.
#   About 3 minutes on 2 CPUs.
# 4c also keeps its runs, one a line, in build/bench/data/loss.txt for
# tests/bench/plot.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
NCPU=$(nproc)

ONLY=
for a in "$@"; do
	case $a in
	3c | 4c | 4d | 5d) ONLY="$ONLY $a" ;;
	*=*) k=$(echo "${a%%=*}" | tr a-z A-Z); export "BENCH_$k=${a#*=}" ;;
	esac
done
CPURATE=${BENCH_CPURATE:-1000}
CPUSECS=${BENCH_CPUSECS:-5}
CPUREPS=${BENCH_CPUREPS:-3}
LIFE=${BENCH_LIFE:-0.1}
SPAWNERS=${BENCH_SPAWNERS:-$((2 * NCPU))}
LOSSSECS=${BENCH_LOSSSECS:-3}
LOSSREPS=${BENCH_LOSSREPS:-3}
WINRATE=${BENCH_WINRATE:-100}
WINSECS=${BENCH_WINSECS:-5}
WINREPS=${BENCH_WINREPS:-3}
STARTPROCS=${BENCH_STARTPROCS:-10000}
STARTREPS=${BENCH_STARTREPS:-7}

note() { echo "bench: $*" >&2; }
want() { [ -z "$ONLY" ] || case " $ONLY " in *" $1 "*) ;; *) return 1 ;; esac; }

if [ "$(id -u)" != 0 ]; then
	echo "bench: host speed (3c, 4c, 4d, 5d) needs root for the proc connector; skipped"
	exit 0
fi
for p in coreschedd coresched helpers/cs-floor helpers/cs-storm helpers/cs-json helpers/cs-ready helpers/cs-spawn \
	helpers/cs-walk; do
	[ -x "$top/build/$p" ] || { echo "bench: build/$p is missing (run make); host speed skipped"; exit 1; }
done
PATH=$top/build/helpers:$top/build:$PATH

B=$(mktemp -d /tmp/coresched-hostbench.XXXXXX)
DPID='' FPID='' SPIDS=''
cleanup() {
	[ -n "$FPID" ] && kill "$FPID" 2>/dev/null
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null
	[ -n "$SPIDS" ] && kill $SPIDS 2>/dev/null
	wait 2>/dev/null
	rm -rf "$B"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$B/cfg/rules.d" "$B/bin"
# Matching and unmatched storms run the same program under two paths:
# only the path differs, so only the verdict does.
cp /bin/true "$B/bin/stormer"
cp /bin/sleep "$B/bin/sleeper"
export CORESCHED_SOCKET=$B/io.coresched
# The daemon's defaults but for the periodic reconcile (off, as in
# tests/bench/run): its full rescans would be charged to the storms.
printf '[Daemon]\nReconcileSec=0\n[Group storm]\nMatchExe=%s\n[Group sleep]\nMatchExe=%s\n' \
	"$B/bin/stormer" "$B/bin/sleeper" > "$B/cfg/coreschedd.conf"
# The floor gets the daemon's default receive buffer, read from the daemon.
RCVBUF=$(coreschedd --check-config --config-dir "$B/cfg" | sed -n 's/^ReceiveBuffer=//p')
[ -n "$RCVBUF" ] || { echo "bench: coreschedd --check-config names no ReceiveBuffer"; exit 1; }

dstart() {
	rm -f "$CORESCHED_SOCKET"
	nice -n "${DNICE:-0}" coreschedd --dry-run --config-dir "$B/cfg" --socket "$CORESCHED_SOCKET" >> "$B/dlog" 2>&1 &
	DPID=$!
	local i=0
	while [ ! -S "$CORESCHED_SOCKET" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	[ -S "$CORESCHED_SOCKET" ] || { note "coreschedd --dry-run did not start: $(tail -3 "$B/dlog")"; return 1; }
}
dstop() { kill "$DPID" 2>/dev/null; wait "$DPID" 2>/dev/null; DPID=; }
# fstart EXE: the floor on EXE; fstop stops it and sets FLOOR to its
# "execs matched losses" (not in a subshell: it must wait for the floor).
fstart() {
	nice -n "${FNICE:-0}" cs-floor --dry-run --rcvbuf "$RCVBUF" "$1" > "$B/floor.out" 2> "$B/floor.err" &
	FPID=$!
	local i=0 how
	while ! grep -qs ready "$B/floor.out" && kill -0 "$FPID" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1; i=$((i + 1))
	done
	grep -qs ready "$B/floor.out" && return 0
	if kill -0 "$FPID" 2>/dev/null; then
		how="still not subscribed after 10 s (state $(awk '{ print $3 }' /proc/"$FPID"/stat 2>/dev/null),"
		how="$how in $(cat /proc/"$FPID"/wchan 2>/dev/null))"
		kill "$FPID" 2>/dev/null
		wait "$FPID" 2>/dev/null
	else
		wait "$FPID"
		how="exit status $?"
	fi
	FPID=
	note "cs-floor did not start: $how: $(cat "$B/floor.err")"
	return 1
}
fstop() {
	kill "$FPID" 2>/dev/null; wait "$FPID" 2>/dev/null; FPID=
	FLOOR=$(sed -n 's/^cs-floor: \([0-9]*\) execs, \([0-9]*\) matched, .*, \([0-9]*\) losses$/\1 \2 \3/p' "$B/floor.err")
	[ -n "$FLOOR" ] || { note "cs-floor said: $(cat "$B/floor.err")"; FLOOR="0 0 0"; }
}
# counters: the daemon's "events execs lost" since it started.
counters() {
	coresched status -J > "$B/status.json" || return 1
	echo "$(cs-json counters.events < "$B/status.json") $(cs-json counters.execs < "$B/status.json")" \
		"$(cs-json counters.lost < "$B/status.json")"
}
# cpu_ns PID: CPU time of all of PID's threads, from schedstat (exact)
# when the kernel keeps it, else utime+stime (tick-sampled).
if [ -r /proc/self/schedstat ]; then
	CPU_SRC="/proc/PID/task/*/schedstat"
	cpu_ns() { cat /proc/"$1"/task/*/schedstat | awk '{ s += $1 } END { printf "%.0f", s }'; }
else
	CPU_SRC="/proc/PID/stat utime+stime"
	cpu_ns() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.0f", ($14 + $15) * 1e9 / hz }' /proc/"$1"/stat; }
fi
now_ns() { date +%s%N; }
# median: of the numbers on stdin, one a line.
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; else print "-" }'; }
out() { echo "$*"; }

# ---- 3c. CPU per exec ---------------------------------------------------

# cpu_phase TAG [EXE]: with EXE, a storm of EXE (living $LIFE s) at
# $CPURATE/s for $CPUSECS s, then $LIFE s and a little for the last exits;
# without, as long with nothing started. Appends "TAG execs rate wall_ns
# daemon_ns floor_ns" to $B/cpu.
cpu_phase() {
	local tag=$1 t0 t1 d0 d1 f0 f1 n=0 rate=0
	t0=$(now_ns) d0=$(cpu_ns "$DPID") f0=$(cpu_ns "$FPID")
	if [ $# -gt 1 ]; then
		cs-storm "$CPURATE" "$CPUSECS" "$2" "$LIFE" > "$B/storm.out"
		read -r n _ rate < <(sed 's/[a-z]*=//g' "$B/storm.out")
		n=${n:-0} rate=${rate:-0}
	else
		sleep "$CPUSECS"
	fi
	sleep "$(awk -v l="$LIFE" 'BEGIN { print l + 0.5 }')"
	t1=$(now_ns) d1=$(cpu_ns "$DPID") f1=$(cpu_ns "$FPID")
	echo "$tag $n $rate $((t1 - t0)) $((d1 - d0)) $((f1 - f0))" >> "$B/cpu"
}

# cpu_rows: from $B/cpu, per run: idle rates, then us per exec gross and
# net of the run's idle rate, for each listener; prints the table's rows.
cpu_rows() {
	awk '
		$1 == "idle" { run++; idle_d = $5 / $4; idle_f = $6 / $4
			print "idle_d", idle_d * 1e6; print "idle_f", idle_f * 1e6; next }
		$2 > 0 {
			d = $5 / $2 / 1000; f = $6 / $2 / 1000
			dn = ($5 - idle_d * $4) / $2 / 1000; fn = ($6 - idle_f * $4) / $2 / 1000
			print $1 "_rate", $3; print $1 "_d", d; print $1 "_dn", dn
			print $1 "_f", f; print $1 "_fn", fn; if (fn > 0) print $1 "_ratio", dn / fn }
	' "$B/cpu" > "$B/cpu.vals"
	declare -A M
	local k
	for k in idle_d idle_f match_rate match_d match_dn match_f match_fn match_ratio \
		other_rate other_d other_dn other_f other_fn other_ratio; do
		M[$k]=$(awk -v k=$k '$1 == k { print $2 }' "$B/cpu.vals" | median)
	done
	range() { awk -v k="$1" '$1 == k { v = $2; if (n++ == 0 || v < lo) lo = v; if (v > hi) hi = v }
		END { if (n) printf "%.2f-%.2f", lo, hi }' "$B/cpu.vals"; }
	# num FORMAT VALUE: VALUE in FORMAT, or "-" when there is none.
	num() { awk -v f="$1" -v v="$2" 'BEGIN { if (v == "-" || v == "") print "-"; else printf f "\n", v }'; }
	row() { printf '%-40s %8s %12s %12s\n' "$1" "$(num %.0f "$2")" "$(num %.1f "$3")" "$(num %.1f "$4")"; }
	out "$(row "coreschedd, idle (us CPU per second)" - "${M[idle_d]}" -)"
	out "$(row "coreschedd, matching exe" "${M[match_rate]}" "${M[match_d]}" "${M[match_dn]}")"
	out "$(row "coreschedd, unmatched exe" "${M[other_rate]}" "${M[other_d]}" "${M[other_dn]}")"
	out "$(row "floor, idle (us CPU per second)" - "${M[idle_f]}" -)"
	out "$(row "floor, matching exe" "${M[match_rate]}" "${M[match_f]}" "${M[match_fn]}")"
	out "$(row "floor, unmatched exe" "${M[other_rate]}" "${M[other_f]}" "${M[other_fn]}")"
	out ""
	out "ratio of net us/exec, coreschedd / floor (median of the runs' ratios; range)"
	out "$(printf '%-40s %8s  (%s)' "matching exe" "$(num %.2f "${M[match_ratio]}")" "$(range match_ratio)")"
	out "$(printf '%-40s %8s  (%s)' "unmatched exe" "$(num %.2f "${M[other_ratio]}")" "$(range other_ratio)")"
}

bench_host_cpu() {
	out ""
	out "== 3c. listener CPU per exec, host, dry run (CPU time from $CPU_SRC; coreschedd --dry-run and cs-floor --dry-run"
	out "   on the same storms of $CPURATE/s asked for ${CPUSECS}s, each child living ${LIFE}s; us per child started, its fork,"
	out "   exec and exit events together; net: minus the listener's idle rate of the same run; median of $CPUREPS runs)"
	out "$(printf '%-40s %8s %12s %12s' "listener, storm" "rate/s" "us/exec" "net us/exec")"
	: > "$B/cpu"
	dstart || return
	fstart "$B/bin/sleeper" || { dstop; return; }
	sleep 1
	local i
	for i in $(seq "$CPUREPS"); do
		cpu_phase idle
		cpu_phase match "$B/bin/sleeper"
		cpu_phase other /bin/sleep
	done
	fstop
	note "floor over the CPU runs: $FLOOR (execs, matched, losses)"
	dstop
	cpu_rows
}

# ---- 4c. loss ---------------------------------------------------------

# loss_run K: K spawners of the matching exe as fast as each can for
# $LOSSSECS s; appends "K rate spawned daemon_execs daemon_lost floor_execs
# floor_matched floor_lost" to $B/loss.
loss_run() {
	local k=$1 i c0 c1 pids=
	fstart "$B/bin/stormer" || return 1
	c0=$(counters) || { note "coresched status failed"; fstop; return 1; }
	for i in $(seq "$k"); do
		cs-storm 0 "$LOSSSECS" "$B/bin/stormer" > "$B/storm.$i" & pids="$pids $!"
	done
	wait $pids
	sleep 1 # what the listeners still have queued
	c1=$(counters) || { note "coresched status failed"; fstop; return 1; }
	fstop
	set -- $c0 $c1
	local de=$(($5 - $2)) dl=$(($6 - $3))
	cat "$B"/storm.[0-9]* | sed 's/[a-z]*=//g' | awk -v k="$k" -v de="$de" -v dl="$dl" -v f="$FLOOR" '
		{ n += $1; if ($2 > s) s = $2 }
		END { split(f, ff, " "); printf "%d %.0f %d %d %d %d %d %d\n", k, s ? n / s : 0, n, de, dl, ff[1], ff[2], ff[3] }' >> "$B/loss"
	rm -f "$B"/storm.[0-9]*
}

# loss_save: the runs of 4c, with what produced them, for tests/bench/plot.
loss_save() {
	local data=$top/build/bench/data
	mkdir -p "$data" || return
	{
		echo "# run: commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null), host dry run, $NCPU cpus, kernel $(uname -r), $(date -u '+%Y-%m-%d %H:%M UTC')"
		echo "# sizes: spawners=$SPAWNERS losssecs=$LOSSSECS lossreps=$LOSSREPS rcvbuf=$RCVBUF"
		echo "# spawners rate spawned coreschedd_execs coreschedd_losses floor_execs floor_matched floor_losses"
		cat "$B/loss"
	} > "$data/loss.txt"
}

bench_host_loss() {
	out ""
	out "== 4c. exec rate followed without loss, host, dry run (coreschedd --dry-run and cs-floor --dry-run, both with"
	out "   the default ReceiveBuffer=$RCVBUF; K spawners of a matching exe (a copy of /bin/true) as fast as each can,"
	out "   ${LOSSSECS}s per run, $LOSSREPS runs per K; rate and counts: medians; seen: exec events counted, the host's own included;"
	out "   losses: ENOBUFS, summed over the runs)"
	out "$(printf '%-9s %9s %9s | %16s %7s | %16s %7s' spawners execs/s spawned "coreschedd seen" losses "floor seen" losses)"
	: > "$B/loss"
	dstart || return
	sleep 1
	local k i
	for k in $(seq "$SPAWNERS"); do
		for i in $(seq "$LOSSREPS"); do
			loss_run "$k" || break 2
		done
		med() { awk -v k="$k" -v c="$1" '$1 == k { print $c }' "$B/loss" | median; }
		sum() { awk -v k="$k" -v c="$1" '$1 == k { s += $c } END { print s + 0 }' "$B/loss"; }
		out "$(printf '%-9s %9.0f %9.0f | %16.0f %7s | %16.0f %7s' "$k" "$(med 2)" "$(med 3)" "$(med 4)" "$(sum 5)" \
			"$(med 6)" "$(sum 8)")"
	done
	dstop
	loss_save
	awk '$4 < $3 { print "bench: coreschedd counted fewer execs than were spawned (" $4 " < " $3 ") with " $5 " losses at " $1 " spawners" }
	     $6 < $3 { print "bench: the floor counted fewer execs than were spawned (" $6 " < " $3 ") with " $8 " losses at " $1 " spawners" }' \
		"$B/loss" >&2
	best() { awk -v c="$1" '$c == 0 && $2 > b { b = $2; k = $1 } END { printf "%.0f/s (%d spawners)", b, k }' "$B/loss"; }
	worst() { awk -v c="$1" '$c > 0 && (w == "" || $2 < w) { w = $2; k = $1 }
		END { if (w == "") print "none"; else printf "%.0f/s (%d spawners)", w, k }' "$B/loss"; }
	out "highest rate of a run with no loss: coreschedd $(best 5), floor $(best 8)"
	out "lowest rate of a run with a loss: coreschedd $(worst 5), floor $(worst 8)"
	out "$(awk -v n="$NCPU" '$1 == n { r[++c] = $2; dl += $5; fl += $8 }
		END { if (c) printf "at %d spawners (%d CPUs): %d runs, %.0f-%.0f execs/s, coreschedd losses %d, floor losses %d", n, n, c, r[1], r[c], dl, fl }' \
		<(sort -k1,1n -k2,2n "$B/loss"))"
}

# ---- 4d. the untagged window ------------------------------------------

# The daemon's priority as its unit ships it (Nice=).
UNIT_NICE=$(sed -n 's/^Nice=//p' "$top/systemd/coreschedd.service")
UNIT_NICE=${UNIT_NICE:-0}

# window_run TAG LOAD DNICE FNICE: a fresh daemon (at nice DNICE) and
# floor (FNICE), so that their windows are their own since they started;
# probes, a matching copy of /bin/sleep living $LIFE s, at $WINRATE/s for
# $WINSECS s, beside (LOAD storm) an unmatched storm of /bin/sleep at
# $CPURATE/s or (LOAD idle) nothing. Appends "TAG/LOAD probes d_n d_p50
# d_p90 d_p99 d_max f_n f_p50 f_p90 f_p99 f_max" to $B/win.
window_run() {
	local tag=$1/$2 spid= n dw fw
	DNICE=$3 dstart || return 1
	FNICE=$4 fstart "$B/bin/sleeper" || { dstop; return 1; }
	sleep 1
	if [ "$2" = storm ]; then
		cs-storm "$CPURATE" $((WINSECS + 2)) /bin/sleep "$LIFE" > "$B/bg.out" & spid=$!
		sleep 1
	fi
	cs-storm "$WINRATE" "$WINSECS" "$B/bin/sleeper" "$LIFE" > "$B/storm.out"
	read -r n _ < <(sed 's/[a-z]*=//g' "$B/storm.out")
	[ -n "$spid" ] && wait "$spid"
	sleep "$(awk -v l="$LIFE" 'BEGIN { print l + 0.5 }')"
	coresched status -J > "$B/status.json" || { note "coresched status failed"; fstop; dstop; return 1; }
	dw=$(for k in placements p50_usec p90_usec p99_usec max_usec; do cs-json "window.$k" < "$B/status.json"; done | xargs)
	fstop
	dstop
	fw=$(sed -n 's/^cs-floor: window n=\([0-9]*\) p50=\([0-9]*\) p90=\([0-9]*\) p99=\([0-9]*\) max=\([0-9]*\) .*/\1 \2 \3 \4 \5/p' \
		"$B/floor.err")
	[ -n "$fw" ] || { note "cs-floor gave no window: $(cat "$B/floor.err")"; return 1; }
	echo "$tag ${n:-0} $dw $fw" >> "$B/win"
}

# The three pairings: both at nice 0 (the code alone), the daemon as its
# unit ships it beside a floor at 0, and both at the unit's value.
WIN_SETUPS="plain:0:0 shipped:$UNIT_NICE:0 both:$UNIT_NICE:$UNIT_NICE"

bench_host_window() {
	out ""
	out "== 4d. untagged window, host, dry run (us from the kernel's exec event to the end of the placement: coreschedd"
	out "   --dry-run's Status window, cs-floor --dry-run's own, both in daemon/window.c's histogram, upper bounds within"
	out "   12.5%; probes: a matching exe living ${LIFE}s at $WINRATE/s for ${WINSECS}s; storm: an unmatched exe at $CPURATE/s"
	out "   beside them; a fresh daemon and floor each run; medians of $WINREPS runs; ratio: median of the runs' ratios;"
	out "   nice: plain = both 0, shipped = coreschedd at its unit's Nice=$UNIT_NICE and the floor at 0, both = both at $UNIT_NICE)"
	out "$(printf '%-32s %7s %7s %8s %8s %9s %10s' "listener, nice, load" probes n p50 p90 p99 max)"
	: > "$B/win"
	local i s tag load dn fn
	for i in $(seq "$WINREPS"); do
		for s in $WIN_SETUPS; do
			IFS=: read -r tag dn fn <<<"$s"
			for load in idle storm; do
				window_run "$tag" "$load" "$dn" "$fn" || return
			done
		done
	done
	med() { awk -v t="$1" -v c="$2" '$1 == t { print $c }' "$B/win" | median; }
	for s in $WIN_SETUPS; do
		IFS=: read -r tag dn fn <<<"$s"
		for load in idle storm; do
			t=$tag/$load
			out "$(printf '%-32s %7.0f %7.0f %8.0f %8.0f %9.0f %10.0f' "coreschedd, $dn, $load" "$(med $t 2)" "$(med $t 3)" \
				"$(med $t 4)" "$(med $t 5)" "$(med $t 6)" "$(med $t 7)")"
			out "$(printf '%-32s %7.0f %7.0f %8.0f %8.0f %9.0f %10.0f' "floor, $fn, $load" "$(med $t 2)" "$(med $t 8)" \
				"$(med $t 9)" "$(med $t 10)" "$(med $t 11)" "$(med $t 12)")"
		done
	done
	out ""
	out "ratios coreschedd / floor (median of the runs' ratios; range)"
	ratio() { awk -v t="$1" -v a="$2" -v b="$3" '$1 == t && $b > 0 { print $a / $b }' "$B/win"; }
	rr() { printf '%5.2f (%s)' "$(ratio "$1" "$2" "$3" | median)" \
		"$(ratio "$1" "$2" "$3" | sort -g | awk 'NR == 1 { l = $1 } { h = $1 } END { printf "%.2f-%.2f", l, h }')"; }
	for s in $WIN_SETUPS; do
		IFS=: read -r tag dn fn <<<"$s"
		for load in idle storm; do
			t=$tag/$load
			out "$(printf '%-20s p50 %s  p90 %s  p99 %s' "$t" "$(rr $t 4 9)" "$(rr $t 5 10)" "$(rr $t 6 11)")"
		done
	done
}

# ---- 5d. start-up ------------------------------------------------------

# ready_row: "pid ms" from cs-ready's output in $B/ready.out.
ready_row() { sed -n 's/^pid=\([0-9]*\) ready_ms=\([0-9.]*\)$/\1 \2/p' "$B/ready.out"; }

# start_daemon: coreschedd --dry-run from exec to READY=1; appends "d MS
# VmHWM_KiB tracked" to $B/start, then stops it.
start_daemon() {
	local pid ms hwm tracked i=0
	rm -f "$B/start.sock"
	cs-ready coreschedd --dry-run --config-dir "$B/cfg5" --socket "$B/start.sock" > "$B/ready.out" 2>> "$B/dlog"
	read -r pid ms < <(ready_row)
	[ -n "$ms" ] || { note "coreschedd --dry-run gave no READY: $(tail -3 "$B/dlog")"; return 1; }
	DPID=$pid
	hwm=$(awk '/^VmHWM:/ { print $2 }' /proc/"$pid"/status)
	tracked=$(CORESCHED_SOCKET=$B/start.sock coresched status 2>/dev/null | sed -n 's/^tracked processes: //p')
	echo "d $ms ${hwm:--} ${tracked:--}" >> "$B/start"
	kill "$pid"; wait_gone "$pid"; DPID= # cs-ready's child, not ours to wait for
}

# start_walk: cs-walk from exec to READY=1 (the end of its walk); appends
# "w MS - walked".
start_walk() {
	local pid ms
	cs-ready cs-walk > "$B/ready.out" 2> "$B/walk.err"
	read -r pid ms < <(ready_row)
	[ -n "$ms" ] || { note "cs-walk gave no READY: $(cat "$B/walk.err")"; return 1; }
	wait_gone "$pid"
	echo "w $ms - -" >> "$B/start"
}
nprocs() { ls -d /proc/[0-9]* 2> /dev/null | wc -l; }
# spawned_gone N: stop the spawners and wait (up to 60 s) for their
# children, which die with them, until about N processes are left, so
# that whatever runs next does not walk them.
spawned_gone() {
	local i=0
	kill $SPIDS 2>/dev/null; wait $SPIDS 2>/dev/null; SPIDS=
	while [ "$(nprocs)" -gt $(($1 + 100)) ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
}
wait_gone() { local i=0; while [ -d /proc/"$1" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done; }

bench_host_startup() {
	local half=$((STARTPROCS / 2)) i n n0 la0 la1 m
	out ""
	out "== 5d. start-up, host, dry run: time from exec to READY=1 (cs-ready) of coreschedd --dry-run with $STARTPROCS idle"
	out "   processes more (half of them matching a group of 4), against cs-walk, a bare walk of /proc reading the same"
	out "   files (stat, status, cgroup, exe); $STARTREPS interleaved rounds after one warm-up of each; medians (range)"
	mkdir -p "$B/cfg5"
	cp "$top/build/helpers/cs-spawn" "$B/bin/app"
	cp "$top/build/helpers/cs-spawn" "$B/bin/idle"
	# Four groups: one claims half the spawned processes, three claim
	# nothing and are looked up for every process (by exe, comm, cgroup).
	printf '[Daemon]\nReconcileSec=0\n[Group app]\nMatchExe=%s\n[Group build]\nMatchComm=cc1 cc1plus rustc\nPer=process\n[Group vms]\nMatchCgroup=/machine.slice/*\nPer=cgroup\n[Group web]\nMatchExe=/opt/web/bin/*\nPer=user\n' \
		"$B/bin/app" > "$B/cfg5/coreschedd.conf"
	: > "$B/start"
	n0=$(nprocs)
	"$B/bin/app" "$half" > "$B/app.out" & SPIDS="$SPIDS $!"
	"$B/bin/idle" $((STARTPROCS - half)) > "$B/idle.out" & SPIDS="$SPIDS $!"
	i=0
	while ! { grep -q ready "$B/app.out" && grep -q ready "$B/idle.out"; } && [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done
	note "spawned: app $(cat "$B/app.out"), idle $(cat "$B/idle.out")"
	n=$(nprocs)
	la0=$(cut -d' ' -f1-3 /proc/loadavg)
	{ start_daemon && start_walk; } || { spawned_gone "$n0"; return; }
	: > "$B/start"
	for i in $(seq "$STARTREPS"); do
		if [ $((i % 2)) = 1 ]; then start_daemon && start_walk; else start_walk && start_daemon; fi || break
	done
	la1=$(cut -d' ' -f1-3 /proc/loadavg)
	spawned_gone "$n0"
	col() { awk -v k="$1" -v c="$2" '$1 == k { print $c }' "$B/start"; }
	range() { col "$1" "$2" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { if (NR) printf "%s-%s", lo, hi }'; }
	out "$(printf '%-30s %12s %16s %10s %9s' "program" "READY ms" "(range)" "VmHWM KiB" "tracked")"
	out "$(printf '%-30s %12s %16s %10s %9s' "coreschedd --dry-run" "$(col d 2 | median)" "($(range d 2))" \
		"$(col d 3 | median)" "$(col d 4 | median)")"
	out "$(printf '%-30s %12s %16s %10s %9s' "cs-walk" "$(col w 2 | median)" "($(range w 2))" - -)"
	# The rounds' own ratios, pairing each round's daemon and walk.
	paste <(col d 2) <(col w 2) | awk '$2 > 0 { print $1 / $2 }' > "$B/ratios"
	m=$(awk -v d="$(col d 2 | median)" -v w="$(col w 2 | median)" 'BEGIN { if (w > 0) printf "%.2f", d / w }')
	out "ratio coreschedd / cs-walk: $m (of the medians); per round $(sort -g "$B/ratios" | awk '{ printf "%s%.2f", (NR > 1 ? " " : ""), $1 }')"
	out "processes in /proc: $n; load average before $la0, after $la1"
}

out ""
out "# host speed, dry run: $NCPU cpus, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), kernel $(uname -r)"
out "# sizes: cpurate=$CPURATE cpusecs=$CPUSECS cpureps=$CPUREPS life=$LIFE spawners=$SPAWNERS losssecs=$LOSSSECS lossreps=$LOSSREPS winrate=$WINRATE winsecs=$WINSECS winreps=$WINREPS startprocs=$STARTPROCS startreps=$STARTREPS"
want 3c && bench_host_cpu
want 4c && bench_host_loss
want 4d && bench_host_window
want 5d && bench_host_startup
exit 0
