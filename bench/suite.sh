#!/bin/sh
# One EPD test suite, ply and Debian's Stockfish 15.1 one after the other in
# the same invocation and with the same limits, through `ply solve`; prints
# both summaries (solved/total, STS points) and keeps the per-position lines.
# tactics.sh (WAC) and positional.sh (STS) are this script with a suite.
# Usage: bench/suite.sh --epd FILE [--movetime MS | --nodes N | --depth D]
#          [--threads T] [--hash MIB] [--from K] [--limit N] [--only ply|sf] [--out DIR]
# Defaults: 1 s per position (--movetime 1000), 1 thread, 64 MiB; per-position
# lines in DIR (default /tmp/ply-bench-suite). Env: PLY, ENGINE, SF (common.sh).
set -eu
. "$(dirname "$0")/common.sh"
EPD="" LIMIT="--movetime 1000" THREADS=1 HASH=64 SUBSET="" ONLY="" OUT=${BENCH_OUT:-/tmp}/ply-bench-suite
while [ $# -gt 0 ]; do
    case "$1" in
    --epd) EPD=$2; shift 2 ;;
    --movetime | --nodes | --depth) LIMIT="$1 $2"; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --hash) HASH=$2; shift 2 ;;
    --from | --limit) SUBSET="$SUBSET $1 $2"; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    -h | --help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "$0: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
[ -n "$EPD" ] || { echo "$0: --epd FILE is required" >&2; exit 2; }
mkdir -p "$OUT"
machine_header
echo "suite:   $EPD $SUBSET; $LIMIT, $THREADS thread(s), $HASH MiB each"
# shellcheck disable=SC2086 # LIMIT and SUBSET are lists of words
run() { # label, engine command line
    log="$OUT/$1.txt"
    nice "$PLY" solve -e "$2" --epd "$EPD" $LIMIT -t "$THREADS" --hash "$HASH" $SUBSET >"$log" || {
        rc=$?
        [ "$rc" -ne 1 ] && { tail -3 "$log" >&2; exit "$rc"; } # 1: some positions failed; said below
    }
    printf '%-10s %s\n' "$1:" "$(tail -1 "$log")"
}
[ "$ONLY" = sf ] || run ply "$ENGINE"
[ "$ONLY" = ply ] || run stockfish "$SF"
echo "per-position lines: $OUT/ply.txt, $OUT/stockfish.txt"
