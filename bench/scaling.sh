#!/bin/sh
# Distributed against shared-memory scaling, on this machine: the same perft
# run (default: startpos perft(8), no table, about a minute or more) by
#   a) one ply process with 2 OpenMP threads (the embedded default), and
#   b) a ply-coordinator with 2 ply-worker processes of 1 thread each on
#      loopback TCP, and the ply client,
# reporting wall times, their ratio, the coordinator's own CPU time as a share
# of the workers' CPU time, and every process's peak RSS.
# Usage: bench/scaling.sh [DEPTH] [HASH_MIB]   (env: BIN=build/release/bin)
set -eu
cd "$(dirname "$0")/.."
case "${1:-}" in
-h | --help) sed -n '2,9p' "$0"; exit 0 ;;
'' | [0-9]*) ;;
*) echo "$0: unknown argument '$1' (see --help)" >&2; exit 2 ;;
esac
DEPTH=${1:-8}
HASH=${2:-0}
BIN=${BIN:-./build/release/bin}
START="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
now() { date +%s%N; }
cpu_ms() { # utime + stime of a live process, milliseconds
    awk -v hz="$(getconf CLK_TCK)" '{print int(($14 + $15) * 1000 / hz)}' "/proc/$1/stat"
}
rss_kb() { awk '/VmHWM/ {print $2}' "/proc/$1/status"; }

t0=$(now)
/usr/bin/time -f "%M" -o /tmp/ply-scaling-rss "$BIN/ply" perft --fen "$START" -d "$DEPTH" -t 2 --hash "$HASH" >/tmp/ply-scaling-a
t1=$(now)
a_ms=$(( (t1 - t0) / 1000000 ))
a_rss=$(cat /tmp/ply-scaling-rss)
grep "Nodes searched" /tmp/ply-scaling-a

"$BIN/ply-coordinator" --bind "tcp://127.0.0.1:*" 2>/tmp/ply-scaling-coord &
coord=$!
ep=""
for _ in 1 2 3 4 5 6 7 8 9 10; do
    ep=$(sed -n 's/.*listening on \(tcp:[^ ]*\).*/\1/p' /tmp/ply-scaling-coord | head -n 1)
    [ -n "$ep" ] && break
    sleep 0.2
done
[ -n "$ep" ] || { echo "scaling: the coordinator did not start" >&2; cat /tmp/ply-scaling-coord >&2; exit 1; }
"$BIN/ply-worker" --connect "$ep" -t 1 --hash "$HASH" --zobrist-seed 1 -q &
w1=$!
"$BIN/ply-worker" --connect "$ep" -t 1 --hash "$HASH" --zobrist-seed 2 -q &
w2=$!
sleep 1
t0=$(now)
"$BIN/ply" perft --coordinator "$ep" --fen "$START" -d "$DEPTH" --timeout 120 >/tmp/ply-scaling-b
t1=$(now)
b_ms=$(( (t1 - t0) / 1000000 ))
grep "Nodes searched" /tmp/ply-scaling-b
coord_cpu=$(cpu_ms $coord) w_cpu=$(( $(cpu_ms $w1) + $(cpu_ms $w2) ))
coord_rss=$(rss_kb $coord) w1_rss=$(rss_kb $w1) w2_rss=$(rss_kb $w2)
kill $w1 $w2 $coord 2>/dev/null || true
wait 2>/dev/null || true

echo
echo "| run | wall (s) | notes |"
echo "|-----|----------|-------|"
printf '| one ply process, 2 threads | %.2f | peak RSS %d MiB |\n' "$(awk -v a=$a_ms 'BEGIN{print a/1000}')" $((a_rss / 1024))
printf '| coordinator + 2 workers x 1 thread (TCP) | %.2f | coordinator CPU %.2f s = %.3f%% of the workers'"'"' %.1f s; peak RSS coordinator %d MiB, workers %d and %d MiB |\n' \
    "$(awk -v b=$b_ms 'BEGIN{print b/1000}')" "$(awk -v c=$coord_cpu 'BEGIN{print c/1000}')" \
    "$(awk -v c=$coord_cpu -v w=$w_cpu 'BEGIN{print 100*c/w}')" "$(awk -v w=$w_cpu 'BEGIN{print w/1000}')" \
    $((coord_rss / 1024)) $((w1_rss / 1024)) $((w2_rss / 1024))
printf 'distributed / shared-memory wall time: %.3f\n' "$(awk -v a=$a_ms -v b=$b_ms 'BEGIN{print b/a}')"
