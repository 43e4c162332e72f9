#!/bin/sh
# The strength ladder: ply against Debian's Stockfish 15.1 limited to a
# calibrated Elo (UCI_LimitStrength, UCI_Elo) through `ply match`, at 10 s +
# 0.1 s per move, openings from bench/openings.epd (each twice, colours
# swapped). For each rung: ply's wins-losses-draws, score, the Elo difference
# with its 95% interval, and the rating that puts ply at (UCI_Elo + difference).
# Usage: bench/match.sh [--elo "2000 2200 2400"] [--games N] [--tc S+I]
#          [--concurrency K] [--margin MS] [--overhead MS] [--threads T] [--hash MIB]
#          [--pgn-dir DIR]
# Defaults: --elo 2200, 20 games per rung (about 15 minutes a rung on one
# core), 1 game at a time, 1 thread and 64 MiB per engine, a 50 ms margin on
# the clock (our wall-clock measure includes pipe and scheduling latency),
# and "Move Overhead" 100 ms for both engines: on a loaded machine Stockfish
# 15.1 with its default 10 ms lost 3 of 10 games on time by 50-65 ms. PGN in
# $BENCH_OUT/ply-bench-match. Env: PLY, ENGINE, SF, BENCH_OUT.
# Stockfish 15.1's UCI_Elo ranges over 1350..2850 (its 'uci' answer).
set -eu
. "$(dirname "$0")/common.sh"
ELOS=2200 GAMES=20 TC=10+0.1 CONC=1 MARGIN=50 OVERHEAD=100 THREADS=1 HASH=64 DIR=${BENCH_OUT:-/tmp}/ply-bench-match
while [ $# -gt 0 ]; do
    case "$1" in
    --elo) ELOS=$2; shift 2 ;;
    --games) GAMES=$2; shift 2 ;;
    --tc) TC=$2; shift 2 ;;
    --concurrency) CONC=$2; shift 2 ;;
    --margin) MARGIN=$2; shift 2 ;;
    --overhead) OVERHEAD=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --hash) HASH=$2; shift 2 ;;
    --pgn-dir) DIR=$2; shift 2 ;;
    -h | --help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "$0: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
mkdir -p "$DIR"
machine_header
echo "match:   $GAMES games a rung at $TC (margin $MARGIN ms, Move Overhead $OVERHEAD ms), concurrency $CONC, $THREADS thread(s), $HASH MiB"
for elo in $ELOS; do
    pgn="$DIR/ply-vs-sf$elo.pgn"
    out="$DIR/ply-vs-sf$elo.txt"
    : >"$pgn"
    nice "$PLY" match -e "$ENGINE" --name ply --option "Threads=$THREADS" --option "Hash=$HASH" \
        --option "Move Overhead=$OVERHEAD" \
        -e "$SF" --name "Stockfish 15.1 UCI_Elo $elo" --option "Threads=$THREADS" \
        --option "Hash=$HASH" --option "Move Overhead=$OVERHEAD" \
        --option UCI_LimitStrength=true --option "UCI_Elo=$elo" \
        --tc "$TC" --margin "$MARGIN" --games "$GAMES" --concurrency "$CONC" \
        --book bench/openings.epd --pgn "$pgn" -q >"$out"
    echo "-- against UCI_Elo $elo: $(grep '^Score of' "$out" | sed 's/.*: //')"
    grep -E '^(Elo difference|Terminations)' "$out"
    sed -n 's/^Elo difference: \([-+][0-9.]*\) (95%: \([-+][0-9.inf]*\) \.\. \([-+][0-9.inf]*\)).*/\1 \2 \3/p' "$out" |
        awk -v e="$elo" '{printf "ply on this ladder: about %.0f (95%%: %s .. %s)\n", e + $1, ($2 ~ /inf/) ? $2 : e + $2, ($3 ~ /inf/) ? $3 : e + $3}'
done
echo "games: $DIR/*.pgn (check them with: $PLY arbiter --laws fide2023 FILE)"
