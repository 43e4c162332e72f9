#!/bin/sh
# The strength scripts of bench/ run end to end at tiny limits, with
# tests/support/fake_uci.c standing in for ply's engine and Debian's
# Stockfish 15.1 as the reference (exit 77 without it): each prints its
# machine header and its figures, so the scripts cannot rot unseen.
# Usage: bench_scripts.sh SOURCE_DIR BIN_DIR
set -eu
src=$1 bin=$2
SF=${SF:-/usr/games/stockfish}
[ -x "$SF" ] || { echo "skipped: no $SF"; exit 77; }
export PLY="$bin/ply" ENGINE="$bin/ply_fake_uci" SF
out=$(mktemp -d /tmp/ply-bench-scripts.XXXXXX)
trap 'rm -rf "$out"' EXIT
export BENCH_OUT="$out"
expect() { # file, extended regex
    grep -Eq "$2" "$1" || { echo "FAIL: $1 lacks /$2/:"; cat "$1"; exit 1; }
}
"$src/bench/tactics.sh" --nodes 2000 --limit 3 >"$out/t" 2>&1 || { cat "$out/t"; exit 1; }
expect "$out/t" '^cpu: '
expect "$out/t" '^pext: '
expect "$out/t" '^date: '
expect "$out/t" '^ply: +solved [0-3]/3'
expect "$out/t" '^stockfish: solved [0-3]/3'
"$src/bench/positional.sh" --movetime 20 --limit 3 >"$out/p" 2>&1 || { cat "$out/p"; exit 1; }
expect "$out/p" '^stockfish: solved [0-3]/3 .*points [0-9]+/30'
expect "$out/p" '^stockfish: STS [0-9.]+%, rating fit'
"$src/bench/match.sh" --games 2 --tc 1+0.01 --elo 1500 --pgn-dir "$out/m" >"$out/m.txt" 2>&1 ||
    { cat "$out/m.txt"; exit 1; }
expect "$out/m.txt" '^-- against UCI_Elo 1500: [0-2] - [0-2] - [0-2] \(wins - losses - draws\), [0-9.]+%, 2 games$'
expect "$out/m.txt" '^Elo difference: '
"$PLY" arbiter --laws fide2023 "$out/m/ply-vs-sf1500.pgn" >"$out/a" || { cat "$out/a"; exit 1; }
expect "$out/a" '2 games, 2 consistent'
"$src/bench/smp.sh" --depth 4 --games 2 --tc 1+0.01 >"$out/s" 2>&1 || { cat "$out/s"; exit 1; }
expect "$out/s" 'speed-up t1/t2: median [0-9.]+ over 30 positions'
expect "$out/s" 'Score of 2 threads vs 1 thread: '
# The unwinnability timer on the Opera game (checkmate: White has mated,
# Black has no legal move): both questions decided. It needs jq.
if command -v jq >/dev/null; then
    "$src/bench/unwinnable.sh" "$src/tests/data/pgn/opera.pgn" >"$out/u" 2>&1 || { cat "$out/u"; exit 1; }
    expect "$out/u" '^files: 2 questions \(1 positions, both sides\), 2 decided, 0 undetermined$'
    expect "$out/u" 'time: median [0-9.]+ ms, worst [0-9.]+ ms'
fi
echo "bench scripts: ok"
