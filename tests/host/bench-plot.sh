# tests/bench/plot: fed small synthetic sample files, it draws both
# pictures as PNG files; with no data it names the missing file.
cd "$(dirname "$0")/../.." || exit 1
T=host/bench-plot
. tests/host/lib.bash
if ! command -v gnuplot >/dev/null 2>&1; then
	echo "SKIP: $T: gnuplot is missing (package gnuplot-nox)"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# png_size FILE: "WIDTH HEIGHT" from the IHDR of a PNG file, nothing if
# FILE is not one.
png_size() {
	[ "$(od -An -tx1 -N8 "$1" 2>/dev/null | tr -d ' \n')" = 89504e470d0a1a0a ] || return
	od -An -tu1 -j16 -N8 "$1" | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4, $5 * 16777216 + $6 * 65536 + $7 * 256 + $8 }'
}

d=$tmp/data
mkdir -p "$d"
awk 'BEGIN { for (i = 1; i <= 30; i++) print 700 + i * 37, 0 }' > "$d/w-cs-idle"
awk 'BEGIN { for (i = 1; i <= 30; i++) print 900 + i * 211, 0 }' > "$d/w-cs-storm"
awk 'BEGIN { for (i = 1; i <= 30; i++) print 650 + i * 20, 0 }' > "$d/w-floor-idle"
{ awk 'BEGIN { for (i = 1; i <= 28; i++) print 2000 + i * 900 }'; echo timeout; echo timeout; } > "$d/w-cgred-idle"
printf 'run: commit 0000000, synthetic, 2000-01-01 00:00 UTC\nstorm-cs: 19\n' > "$d/run.txt"
{
	echo "# run: commit 0000000, synthetic"
	echo "# sizes: spawners=2 losssecs=3 lossreps=2 rcvbuf=262144"
	echo "# spawners rate spawned coreschedd_execs coreschedd_losses floor_execs floor_matched floor_lost"
	echo "1 1800 5400 5410 0 5420 5400 0"
	echo "1 1750 5250 5260 0 5270 5250 0"
	echo "2 2300 6900 6700 1 6910 6900 0"
	echo "2 2250 6750 6760 0 6500 6500 2"
} > "$d/loss.txt"

out=$(tests/bench/plot "$d" "$tmp/out" 2>&1); rc=$?
size=$(png_size "$tmp/out/window-cdf.png")
result window-cdf 0 'window-cdf\.png \(4 lines\)' "$rc" "$out" \
	"$([ "$size" = "960 600" ] || echo "window-cdf.png is not a 960x600 PNG (size: '$size')")"
size=$(png_size "$tmp/out/loss.png")
result loss 0 'loss\.png \(4 runs\)' "$rc" "$out" \
	"$([ "$size" = "960 600" ] || echo "loss.png is not a 960x600 PNG (size: '$size')")"

# No loss at all (the usual result on a quiet host): the y axis still has
# a range, the points sit on 0.
z=$tmp/zero
mkdir -p "$z"
printf '# run: synthetic\n1 1800 5400 5410 0 5420 5400 0\n2 2300 6900 6910 0 6920 6900 0\n' > "$z/loss.txt"
out=$(tests/bench/plot "$z" "$tmp/zout" 2>&1); rc=$?
size=$(png_size "$tmp/zout/loss.png")
result loss-none-lost 1 'loss\.png \(2 runs\)' "$rc" "$out" \
	"$([ "$size" = "960 600" ] || echo "loss.png is not a 960x600 PNG (size: '$size')")"

# No data: each missing file is named, nothing is drawn, exit status 1.
e=$tmp/empty
mkdir -p "$e"
out=$(tests/bench/plot "$e" "$tmp/eout" 2>&1); rc=$?
result no-window-data 1 "window-cdf\.png not drawn: $e/w-cs-idle is missing" "$rc" "$out" \
	"$([ -e "$tmp/eout/window-cdf.png" ] && echo "window-cdf.png was drawn from nothing")"
result no-loss-data 1 "loss\.png not drawn: $e/loss\.txt is missing" "$rc" "$out" \
	"$([ -e "$tmp/eout/loss.png" ] && echo "loss.png was drawn from nothing")"

out=$(tests/bench/plot "$tmp/nonexistent" "$tmp/nout" 2>&1); rc=$?
result no-directory 2 "$tmp/nonexistent: no such directory" "$rc" "$out"
