#!/bin/sh
# Lazy SMP: (a) time to a fixed depth with 1 thread and with 2 threads on a
# fixed set of positions (every 50th of the Strategic Test Suite, 30
# middlegames of 15 themes), through `ply solve --depth D`: the ratio
# t(1 thread) / t(2 threads) per position and its median (the goal in issue
# 10: at least 1.6); (b) a match of 2 threads against 1 thread at the same
# clock (`ply match`, 10+0.1, bench/openings.epd), the score and Elo with its
# 95% interval.
# Usage: bench/smp.sh [--depth D] [--every K] [--games N] [--tc S+I] [--hash MIB]
#          [--engine CMD] [--skip-match] [--skip-depth]
# Defaults: depth 16, every 50th STS position (--every 25: 60), 20 games,
# 64 MiB, ply's engine ($ENGINE); --engine "$SF" measures Stockfish the same
# way, for comparison. Each solve starts
# every position with ucinewgame (an empty table). Env: PLY, ENGINE, SF.
set -eu
. "$(dirname "$0")/common.sh"
DEPTH=16 EVERY=50 GAMES=20 TC=10+0.1 HASH=64 DO_MATCH=1 DO_DEPTH=1 OUT=${BENCH_OUT:-/tmp}/ply-bench-smp
while [ $# -gt 0 ]; do
    case "$1" in
    --depth) DEPTH=$2; shift 2 ;;
    --every) EVERY=$2; shift 2 ;;
    --games) GAMES=$2; shift 2 ;;
    --tc) TC=$2; shift 2 ;;
    --hash) HASH=$2; shift 2 ;;
    --engine) ENGINE=$2; shift 2 ;;
    --skip-match) DO_MATCH=0; shift ;;
    --skip-depth) DO_DEPTH=0; shift ;;
    -h | --help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "$0: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
mkdir -p "$OUT"
machine_header
echo "engine:  $ENGINE"

# "index elapsed_ms" per position from ply solve --json (its layout: one key a line)
elapsed_by_index() {
    awk '/"index":/ {gsub(/[^0-9]/, "", $2); i = $2} /"elapsed_ms":/ {gsub(/,/, "", $2); print i, $2}' "$1"
}
if [ "$DO_DEPTH" = 1 ]; then
    awk -v k="$EVERY" 'NR % k == 1' tests/data/analysis/sts-v3.epd >"$OUT/positions.epd"
    n=$(wc -l <"$OUT/positions.epd")
    echo "time to depth $DEPTH on $n positions ($OUT/positions.epd), $HASH MiB:"
    for t in 1 2; do
        nice "$PLY" solve -e "$ENGINE" --epd "$OUT/positions.epd" --depth "$DEPTH" -t "$t" \
            --hash "$HASH" --timeout 600 --json >"$OUT/depth-$t.json" || [ $? -eq 1 ]
        elapsed_by_index "$OUT/depth-$t.json" >"$OUT/depth-$t.txt"
        printf '  %d thread(s): total %.1f s, median %.3f s per position\n' "$t" \
            "$(awk '{s += $2} END {print s / 1000}' "$OUT/depth-$t.txt")" \
            "$(cut -d' ' -f2 "$OUT/depth-$t.txt" | median | awk '{print $1 / 1000}')"
    done
    awk 'NR == FNR {t1[$1] = $2; next} ($1 in t1) && $2 > 0 {print t1[$1] / $2}' \
        "$OUT/depth-1.txt" "$OUT/depth-2.txt" >"$OUT/ratios.txt"
    printf '  speed-up t1/t2: median %.2f over %d positions (min %.2f, max %.2f)\n' \
        "$(median <"$OUT/ratios.txt")" "$(wc -l <"$OUT/ratios.txt")" \
        "$(sort -g "$OUT/ratios.txt" | head -1)" "$(sort -g "$OUT/ratios.txt" | tail -1)"
fi
if [ "$DO_MATCH" = 1 ]; then
    echo "match 2 threads v 1 thread, $GAMES games at $TC:"
    nice "$PLY" match -e "$ENGINE" --name "2 threads" --option Threads=2 --option "Hash=$HASH" \
        --option "Move Overhead=100" -e "$ENGINE" --name "1 thread" --option Threads=1 \
        --option "Hash=$HASH" --option "Move Overhead=100" --tc "$TC" \
        --margin 50 --games "$GAMES" --book bench/openings.epd --pgn "$OUT/smp.pgn" -q \
        >"$OUT/match.txt"
    grep -E '^(Score of|Elo difference|Terminations)' "$OUT/match.txt" | sed 's/^/  /'
fi
