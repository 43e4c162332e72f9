#!/bin/sh
# Positional judgement: the Strategic Test Suite (tests/data/analysis/sts-v3.epd,
# 15 themes x 100 positions, up to 10 points each) for ply and Debian's
# Stockfish 15.1 in one invocation, by default at 1 s per position on 1
# thread each (about 50 minutes; --limit N or --movetime MS for less); the
# points of both are printed, with the STS-Rating repository's empirical
# rating fit 44.523 * score% - 242.85 (sts_rating.py; tests/data/analysis/
# PROVENANCE.md). Options as bench/suite.sh.
set -eu
out=${BENCH_OUT:-/tmp}/ply-bench-positional
"$(dirname "$0")/suite.sh" --epd tests/data/analysis/sts-v3.epd --out "$out" "$@"
for who in ply stockfish; do
    [ -f "$out/$who.txt" ] || continue
    tail -1 "$out/$who.txt" | sed -n 's/.*points \([0-9]*\)\/\([0-9]*\).*/\1 \2/p' |
        awk -v who="$who" '$2 > 0 {p = 100 * $1 / $2; printf "%-10s STS %.1f%%, rating fit %.0f\n", who ":", p, 44.523 * p - 242.85}'
done
