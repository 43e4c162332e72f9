#!/bin/sh
# Side-by-side speed of ply and Stockfish's `go perft` on this machine, in one
# invocation: each measurement alternates ply and the reference, ROUNDS times,
# and reports the median time of each and the ratio (reference time / ply time:
# above 1 means ply is faster). Rows:
#   raw-1t    perft, 1 thread, no table          vs Stockfish go perft (1 thread)
#   raw-2t    perft, 2 threads, no table         vs Stockfish go perft (its perft is single-threaded)
#   hash-1t   startpos perft(8), 1 thread, table vs Stockfish go perft 8 with Hash set to the
#             same size (Stockfish's perft does not use its table: the row shows what ply's buys)
#   dist      2 local ply-worker processes x 1 thread vs one ply process with 2 threads
# Usage: bench/compare.sh [ROUNDS]   (env: PLY=path/to/ply, SF=path/to/stockfish, HASH=MiB,
#        HASH_ROUNDS=rounds of the perft(8) row, default 1; ROWS="raw-1t raw-2t hash-1t dist",
#        the rows to run, default all; BASE=path/to/another/ply, e.g. the build before a
#        change: its time and ratio are measured in the same alternation, as two more
#        columns). About 9 minutes with 3 rounds.
set -eu
ROUNDS=${1:-3}
cd "$(dirname "$0")/.."
PLY=${PLY:-./build/release/bin/ply}
SF=${SF:-$(command -v stockfish || echo /usr/games/stockfish)}
HASH=${HASH:-1024}
HASH_ROUNDS=${HASH_ROUNDS:-1} # Stockfish's perft(8) alone takes about five minutes
ROWS=${ROWS:-raw-1t raw-2t hash-1t dist}
BASE=${BASE:-}
[ -z "$BASE" ] || [ -x "$BASE" ] || { echo "compare: no ply at BASE=$BASE" >&2; exit 1; }
[ -x "$PLY" ] || { echo "compare: no ply at $PLY (build first: make)" >&2; exit 1; }
[ -x "$SF" ] || { echo "compare: no Stockfish at $SF (apt-get install stockfish)" >&2; exit 1; }

START="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
KIWI="r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"

now() { date +%s%N; }
# seconds, with 3 decimals, of running "$@"; checks the node count in the output
timed() {
    want=$1; shift
    t0=$(now)
    out=$("$@" 2>&1) || { echo "compare: failed: $*" >&2; echo "$out" >&2; exit 1; }
    t1=$(now)
    echo "$out" | grep -q "Nodes searched: $want" || { echo "compare: wrong count from: $*" >&2; echo "$out" >&2; exit 1; }
    echo $(( (t1 - t0) / 1000000 ))
}
sf_perft() { # fen depth hash
    printf 'setoption name Hash value %s\nposition fen %s\ngo perft %s\nquit\n' "$3" "$1" "$2" | "$SF"
}
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print int((a[NR/2]+a[NR/2+1])/2)}'; }

row() { # name want ply-function reference-function label [rounds [warm-up-function]]
    case " $ROWS " in *" $1 "*) ;; *) return 0 ;; esac
    name=$1 want=$2 a=$3 b=$4 ta="" tb="" tc="" i=0 n=${6:-$ROUNDS} w=${7:-true}
    while [ "$i" -lt "$n" ]; do
        $w
        ta="$ta $(timed "$want" "$a")"
        $w
        tb="$tb $(timed "$want" "$b")"
        [ -z "$BASE" ] || { $w; tc="$tc $(PLY=$BASE; timed "$want" "$a")"; }
        i=$((i + 1))
    done
    ma=$(echo "$ta" | median) mb=$(echo "$tb" | median)
    printf '| %-8s | %-42s | %9.3f | %9.3f | %6.2f |' "$name" "$5" \
        "$(awk -v a="$ma" 'BEGIN{print a/1000}')" "$(awk -v b="$mb" 'BEGIN{print b/1000}')" \
        "$(awk -v a="$ma" -v b="$mb" 'BEGIN{print b/a}')"
    if [ -n "$BASE" ]; then
        mc=$(echo "$tc" | median)
        printf ' %9.3f | %6.2f |' "$(awk -v c="$mc" 'BEGIN{print c/1000}')" "$(awk -v c="$mc" -v b="$mb" 'BEGIN{print b/c}')"
    fi
    echo
}

ply_start7_1t() { "$PLY" perft --fen "$START" -d 7 -t 1 --hash 0; }
sf_start7() { sf_perft "$START" 7 16; }
ply_kiwi6_1t() { "$PLY" perft --fen "$KIWI" -d 6 -t 1 --hash 0; }
sf_kiwi6() { sf_perft "$KIWI" 6 16; }
ply_start7_2t() { "$PLY" perft --fen "$START" -d 7 -t 2 --hash 0; }
ply_start8_hash() { "$PLY" perft --fen "$START" -d 8 -t 1 --hash "$HASH"; }
sf_start8() { sf_perft "$START" 8 "$HASH"; }
# Before each timed run with a table: Stockfish clears a table of the same size, so
# that every program finds that much memory already backed. On a virtual machine
# whose host takes back memory the guest has freed, the first program to touch
# $HASH MiB again otherwise pays for it: 5-6 s of a 12 s ply run here (2026-12-03).
warm_table() { sf_perft "$START" 1 "$HASH" >/dev/null 2>&1; }
ply_start7_workers() { "$PLY" perft --fen "$START" -d 7 --workers 2 -t 1 --hash 0; }

echo "# ply vs reference, $(date -u +%Y-%m-%d), $ROUNDS rounds, medians"
echo "# machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores;" \
    "$("$PLY" --version) at $(git rev-parse --short HEAD 2>/dev/null || echo '?');" \
    "$("$SF" </dev/null | head -1 | cut -d' ' -f1-2)"
if [ -n "$BASE" ]; then
    echo "# base: $("$BASE" --version)"
    echo
    echo "| row      | workload                                   |   ply (s) |   ref (s) |  ratio |  base (s) |  ratio |"
    echo "|----------|--------------------------------------------|-----------|-----------|--------|-----------|--------|"
else
    echo
    echo "| row      | workload                                   |   ply (s) |   ref (s) |  ratio |"
    echo "|----------|--------------------------------------------|-----------|-----------|--------|"
fi
row raw-1t 3195901860 ply_start7_1t sf_start7 "startpos perft(7), 1 thread, no table"
row raw-1t 8031647685 ply_kiwi6_1t sf_kiwi6 "kiwipete perft(6), 1 thread, no table"
row raw-2t 3195901860 ply_start7_2t sf_start7 "startpos perft(7), ply 2 threads"
row hash-1t 84998978956 ply_start8_hash sf_start8 "startpos perft(8), 1 thread, $HASH MiB" "$HASH_ROUNDS" warm_table
row dist 3195901860 ply_start7_workers ply_start7_2t "perft(7): 2 workers x 1 thread vs 2 threads"
