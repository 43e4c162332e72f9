#!/bin/sh
# What --stats costs: the time of `ply perft --stats` over the time of the same
# `ply perft` without it, in one invocation (plain and stats alternate, ROUNDS
# times; medians of each, and their ratio). DESIGN.md's target: at most 1.3.
# Times are the run's own "Time:" line (the workers' counting, without start-up)
# and the process's user CPU time (what the machine's other load steals from a
# shared vCPU shows in the first, not in the second).
# Rows: startpos perft(6) and Kiwipete perft(5), 1 thread, without a table and
# with 256 MiB; startpos perft(7), 1 thread, 1024 MiB.
# Usage: bench/stats.sh [ROUNDS]   (env: PLY=path/to/ply; BASE=path/to/another/ply,
#        e.g. the build before a change: its rows run in the same alternation;
#        ROWS="raw hash deep", default all). About 2 minutes with 3 rounds.
set -eu
ROUNDS=${1:-3}
cd "$(dirname "$0")/.."
PLY=${PLY:-./build/release/bin/ply}
BASE=${BASE:-}
ROWS=${ROWS:-raw hash deep}
[ -x "$PLY" ] || { echo "stats: no ply at $PLY (build first: make)" >&2; exit 1; }
[ -z "$BASE" ] || [ -x "$BASE" ] || { echo "stats: no ply at BASE=$BASE" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "stats: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }

START="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
KIWI="r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
TMP=$(mktemp)
trap 'rm -f "$TMP" "$TMP.out"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
# "wall user" seconds of one run; checks the node count
run() { # ply want args...
    p=$1 want=$2
    shift 2
    /usr/bin/time -f '%U' -o "$TMP" "$p" perft -q "$@" >"$TMP.out" 2>&1 ||
        { echo "stats: failed: $p perft $*" >&2; cat "$TMP.out" >&2; exit 1; }
    grep -q "Nodes searched: $want" "$TMP.out" || { echo "stats: wrong count: $p perft $*" >&2; exit 1; }
    echo "$(sed -n 's/^Time: \([0-9.]*\) s.*/\1/p' "$TMP.out") $(tail -1 "$TMP")"
    rm -f "$TMP.out"
}

row() { # name label want args...
    case " $ROWS " in *" $1 "*) ;; *) return 0 ;; esac
    label=$2 want=$3
    shift 3
    i=0 a="" b="" c="" d=""
    while [ "$i" -lt "$ROUNDS" ]; do
        a="$a
$(run "$PLY" "$want" "$@")"
        b="$b
$(run "$PLY" "$want" "$@" --stats)"
        if [ -n "$BASE" ]; then
            c="$c
$(run "$BASE" "$want" "$@")"
            d="$d
$(run "$BASE" "$want" "$@" --stats)"
        fi
        i=$((i + 1))
    done
    pw=$(echo "$a" | awk 'NF{print $1}' | median) pu=$(echo "$a" | awk 'NF{print $2}' | median)
    sw=$(echo "$b" | awk 'NF{print $1}' | median) su=$(echo "$b" | awk 'NF{print $2}' | median)
    printf '| %-36s | %6.3f | %6.3f | %5.2f | %5.2f |' "$label" "$pw" "$sw" \
        "$(awk -v a="$pw" -v b="$sw" 'BEGIN{print b/a}')" "$(awk -v a="$pu" -v b="$su" 'BEGIN{print b/a}')"
    if [ -n "$BASE" ]; then
        pw=$(echo "$c" | awk 'NF{print $1}' | median) pu=$(echo "$c" | awk 'NF{print $2}' | median)
        sw=$(echo "$d" | awk 'NF{print $1}' | median) su=$(echo "$d" | awk 'NF{print $2}' | median)
        printf ' %6.3f | %6.3f | %5.2f | %5.2f |' "$pw" "$sw" \
            "$(awk -v a="$pw" -v b="$sw" 'BEGIN{print b/a}')" "$(awk -v a="$pu" -v b="$su" 'BEGIN{print b/a}')"
    fi
    echo
}

echo "# --stats against plain perft, $(date -u '+%Y-%m-%d %H:%M UTC'), $ROUNDS rounds, medians;" \
    "load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores; PLY=$PLY ($("$PLY" --version))${BASE:+; BASE=$BASE}"
printf '| %-36s | %6s | %6s | %5s | %5s |' "run (1 thread)" "plain" "stats" "ratio" "user"
[ -z "$BASE" ] || printf ' %6s | %6s | %5s | %5s |' "base" "stats" "ratio" "user"
echo
row raw "startpos perft(6), no table" 119060324 --fen "$START" -d 6 -t 1 --hash 0
row raw "kiwipete perft(5), no table" 193690690 --fen "$KIWI" -d 5 -t 1 --hash 0
row hash "startpos perft(6), 256 MiB" 119060324 --fen "$START" -d 6 -t 1 --hash 256
row hash "kiwipete perft(5), 256 MiB" 193690690 --fen "$KIWI" -d 5 -t 1 --hash 256
row deep "startpos perft(7), 1024 MiB" 3195901860 --fen "$START" -d 7 -t 1 --hash 1024
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
