#!/bin/sh
# Analysis over a cluster against one process on the same cores (issue 28), each
# comparison in one invocation, through `ply solve` (the cluster as one UCI engine:
# `ply uci --workers N`, a coordinator and N local workers of 1 thread each):
#  (a) solved: a suite with known best moves at T ms per position for
#        ply uci, 2 threads              | ply uci --workers 2 --threads 1
#        Stockfish, 2 threads            | ply uci --workers 2 --threads 1 --engine Stockfish
#  (b) time to depth D on every K-th position of the Strategic Test Suite
#      (30 middlegames by default): 1 worker of 1 thread, 2 workers of 1 thread,
#      and 1 process of 2 threads beside them; per position t(1 worker) / t(setup),
#      and the medians. Each worker draws its Zobrist keys at random, and the nodes a
#      position takes to one depth vary up to 2-3x with the table's layout (1 worker,
#      STS.001 to depth 21: 5.0 M to 15.7 M nodes in three runs): --reps R times each
#      position R times (each pass new workers, new keys) and takes the mean of its
#      times.
# Usage: bench/cluster.sh [--epd FILE] [--movetime MS] [--limit N] [--depth D]
#          [--every K] [--reps R] [--hash MIB] [--skip-solve] [--skip-depth] [--skip-sf]
# Defaults: Win at Chess revised (300 positions, tests/data/analysis/wacnew.epd) at
# 1000 ms, depth 14 on every 50th STS position, 64 MiB per engine or worker.
# Env: PLY, SF (common.sh); BENCH_OUT (logs in BENCH_OUT/ply-bench-cluster).
set -eu
. "$(dirname "$0")/common.sh"
EPD=tests/data/analysis/wacnew.epd MOVETIME=1000 SUBSET="" DEPTH=14 EVERY=50 REPS=1 HASH=64
DO_SOLVE=1 DO_DEPTH=1 DO_SF=1 OUT=${BENCH_OUT:-/tmp}/ply-bench-cluster
while [ $# -gt 0 ]; do
    case "$1" in
    --epd) EPD=$2; shift 2 ;;
    --movetime) MOVETIME=$2; shift 2 ;;
    --limit | --from) SUBSET="$SUBSET $1 $2"; shift 2 ;;
    --depth) DEPTH=$2; shift 2 ;;
    --every) EVERY=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --hash) HASH=$2; shift 2 ;;
    --skip-solve) DO_SOLVE=0; shift ;;
    --skip-depth) DO_DEPTH=0; shift ;;
    --skip-sf) DO_SF=0; shift ;;
    -h | --help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "$0: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
mkdir -p "$OUT"
machine_header
CLUSTER1="$PLY uci --workers 1 --threads 1 --hash $HASH"
CLUSTER2="$PLY uci --workers 2 --threads 1 --hash $HASH"
CLUSTER2SF="$PLY uci --workers 2 --threads 1 --hash $HASH --engine uci --uci-engine $SF"

# the options ply solve sets: Threads and Hash of one process; a cluster's are its
# command line's (--threads, --hash), it has no such options
engine_opts() { [ "$1" = - ] || echo "-t $1 --hash $HASH"; }
# solve LABEL THREADS|- ENGINE...: the suite at MOVETIME, its summary line
solve() {
    label=$1 threads=$2
    shift 2
    log="$OUT/solve-$(echo "$label" | tr -c 'a-z0-9\n' -).txt"
    # shellcheck disable=SC2086 # SUBSET and the options are lists of words
    nice "$PLY" solve -e "$*" --epd "$EPD" --movetime "$MOVETIME" $(engine_opts "$threads") \
        $SUBSET >"$log" || [ $? -eq 1 ]
    printf '  %-34s %s\n' "$label:" "$(tail -1 "$log")"
}
if [ "$DO_SOLVE" = 1 ]; then
    echo "(a) $EPD$SUBSET at $MOVETIME ms per position:"
    solve "ply uci, 2 threads" 2 "$PLY" uci
    solve "ply uci --workers 2 --threads 1" - "$CLUSTER2"
    if [ "$DO_SF" = 1 ]; then
        solve "stockfish, 2 threads" 2 "$SF"
        solve "cluster of 2 stockfish, 1 thread" - "$CLUSTER2SF"
    fi
fi

# "index elapsed_ms" per position from ply solve --json (its layout: one key a line)
elapsed_by_index() {
    awk '/"index":/ {gsub(/[^0-9]/, "", $2); i = $2} /"elapsed_ms":/ {gsub(/,/, "", $2); print i, $2}' "$1"
}
# depth LABEL THREADS ENGINE...: time to DEPTH per position (the mean of REPS passes) into
# OUT/depth-LABEL.txt
depth() {
    label=$1 threads=$2
    shift 2
    : >"$OUT/depth-$label.all"
    for r in $(seq "$REPS"); do
        # shellcheck disable=SC2046 # the options are a list of words
        nice "$PLY" solve -e "$*" --epd "$OUT/positions.epd" --depth "$DEPTH" $(engine_opts "$threads") \
            --timeout 600 --json >"$OUT/depth-$label-$r.json" || [ $? -eq 1 ]
        elapsed_by_index "$OUT/depth-$label-$r.json" >>"$OUT/depth-$label.all"
    done
    awk '{s[$1] += $2; n[$1]++} END {for (i in s) print i, s[i] / n[i]}' "$OUT/depth-$label.all" |
        sort -n >"$OUT/depth-$label.txt"
    printf '  %-28s total %7.1f s, median %.3f s per position\n' "$label:" \
        "$(awk '{s += $2} END {print s / 1000}' "$OUT/depth-$label.txt")" \
        "$(cut -d' ' -f2 "$OUT/depth-$label.txt" | median | awk '{print $1 / 1000}')"
}
# ratio A B: the median of t(A) / t(B) over the positions both timed
ratio() {
    awk 'NR == FNR {a[$1] = $2; next} ($1 in a) && $2 > 0 {print a[$1] / $2}' \
        "$OUT/depth-$1.txt" "$OUT/depth-$2.txt" >"$OUT/ratio-$1-$2.txt"
    printf '  t(%s) / t(%s): median %.2f over %d positions (min %.2f, max %.2f)\n' "$1" "$2" \
        "$(median <"$OUT/ratio-$1-$2.txt")" "$(wc -l <"$OUT/ratio-$1-$2.txt")" \
        "$(sort -g "$OUT/ratio-$1-$2.txt" | head -1)" "$(sort -g "$OUT/ratio-$1-$2.txt" | tail -1)"
}
if [ "$DO_DEPTH" = 1 ]; then
    awk -v k="$EVERY" 'NR % k == 1' tests/data/analysis/sts-v3.epd >"$OUT/positions.epd"
    echo "(b) time to depth $DEPTH on $(wc -l <"$OUT/positions.epd") STS positions ($OUT/positions.epd), $REPS pass(es):"
    depth 1worker - "$CLUSTER1"
    depth 2workers - "$CLUSTER2"
    depth 2threads 2 "$PLY" uci
    depth 1thread 1 "$PLY" uci
    ratio 1worker 2workers
    ratio 1thread 2threads
    ratio 1thread 1worker
fi
