#!/bin/sh
# Tactics: the 300 positions of Win at Chess (tests/data/analysis/wacnew.epd,
# PROVENANCE.md there) for ply and Debian's Stockfish 15.1 in one invocation,
# by default at 1 s per position on 1 thread each (about 10 minutes); both
# solve counts are printed. Options as bench/suite.sh (--movetime MS,
# --nodes N, --threads T, --from K, --limit N, --only ply|sf, ...).
# Stockfish 15.1 solved 261/300 here at --nodes 100000.
exec "$(dirname "$0")/suite.sh" --epd tests/data/analysis/wacnew.epd --out "${BENCH_OUT:-/tmp}/ply-bench-tactics" "$@"
