#!/bin/bash
# A against B: two builds or two settings of ply's engine in one long match,
# resumable. The openings of bench/openings-random.epd (300 balanced positions)
# are cut into batches of --batch openings; each batch is one `ply match` (each
# opening twice, colours swapped) whose JSON and PGN stay in the output
# directory; a batch already there is not played again, so a match stopped at
# any moment goes on where it was when run again with the same arguments. At
# the end (and after every batch) the batches are summed: A's wins, draws and
# losses, score and Elo difference with its 95% interval (the trinomial normal
# approximation of client/elo.c, as `ply match` reports it).
# Usage: bench/ab.sh --a "CMD [N=V ...]" --b "CMD [N=V ...]" [--games N] [--tc S+I | --nodes N]
#          [--batch K] [--concurrency C] [--out DIR]
#   --a, --b   an engine: its command line, then any UCI options as NAME=VALUE words
#              (no spaces inside a name or value), e.g. --a "build/ci/bin/ply uci Use_NNUE=true"
#              (an underscore in a NAME stands for a space)
#   --games N  games in all (default 400; rounded up to whole batches; at most 600)
#   --tc S+I   clock (default 10+0.1); --nodes N per move instead
#   --batch K  openings per batch (default 10: 20 games)
# Defaults: 1 thread, 64 MiB and Move Overhead 100 ms for both, margin 50 ms
# (as match.sh), concurrency 1. Output: $BENCH_OUT/ply-bench-ab (or --out).
set -eu
. "$(dirname "$0")/common.sh"
A= B= GAMES=400 TC=10+0.1 NODES= BATCH=10 CONC=1 DIR=${BENCH_OUT:-/tmp}/ply-bench-ab
while [ $# -gt 0 ]; do
    case "$1" in
    --a) A=$2; shift 2 ;;
    --b) B=$2; shift 2 ;;
    --games) GAMES=$2; shift 2 ;;
    --tc) TC=$2; shift 2 ;;
    --nodes) NODES=$2; shift 2 ;;
    --batch) BATCH=$2; shift 2 ;;
    --concurrency) CONC=$2; shift 2 ;;
    --out) DIR=$2; shift 2 ;;
    -h | --help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "$0: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
[ -n "$A" ] && [ -n "$B" ] || { echo "$0: --a and --b are required (see --help)" >&2; exit 2; }
BOOK=bench/openings-random.epd
total=$(grep -vc '^#' "$BOOK")
batches=$(( (GAMES / 2 + BATCH - 1) / BATCH ))
[ $((batches * BATCH)) -le "$total" ] || { echo "$0: $GAMES games need more than the $total openings" >&2; exit 2; }
mkdir -p "$DIR"

# engine_args NAME "CMD N=V ..." -> appends -e CMD --name NAME --option N=V ... to args
args=()
engine_args() {
    local cmd= w
    local -a opts=()
    for w in $2; do
        case "$w" in
        *=*) opts+=(--option "$(echo "${w%%=*}" | tr _ ' ')=${w#*=}") ;;
        *) cmd="${cmd:+$cmd }$w" ;;
        esac
    done
    args+=(-e "$cmd" --name "$1" "${opts[@]}" --option Threads=1 --option Hash=64
           --option "Move Overhead=100")
}
engine_args A "$A"
engine_args B "$B"
if [ -n "$NODES" ]; then args+=(--nodes "$NODES"); else args+=(--tc "$TC" --margin 50); fi

sum() {
    cat "$DIR"/batch-*.json 2>/dev/null | awk '
        /"wins":/ {w += $2 + 0} /"draws":/ {d += $2 + 0} /"losses":/ {l += $2 + 0}
        END {
            n = w + d + l
            if (!n) { print "no games yet"; exit }
            s = (w + d / 2) / n
            v = (w * (1 - s) ^ 2 + d * (0.5 - s) ^ 2 + l * s ^ 2) / n
            se = sqrt(v / n)
            printf "A: +%d =%d -%d of %d, score %.1f%%, Elo difference %s (95%%: %s .. %s)\n",
                w, d, l, n, 100 * s, elo(s), elo(s - 1.959964 * se), elo(s + 1.959964 * se)
        }
        function elo(x) { if (x <= 0) return "-inf"; if (x >= 1) return "+inf";
                          return sprintf("%+.1f", -400 * log(1 / x - 1) / log(10)) }'
}

machine_header
echo "a:       $A"
echo "b:       $B"
echo "match:   $((batches * BATCH * 2)) games in $batches batches of $((BATCH * 2)), $([ -n "$NODES" ] && echo "$NODES nodes a move" || echo "$TC"), concurrency $CONC, 1 thread, 64 MiB"
i=0
while [ "$i" -lt "$batches" ]; do
    out="$DIR/batch-$(printf %03d "$i")"
    if [ ! -s "$out.json" ]; then
        grep -v '^#' "$BOOK" | sed -n "$((i * BATCH + 1)),$((i * BATCH + BATCH))p" >"$out.epd"
        : >"$out.pgn"
        nice "$PLY" match "${args[@]}" --games $((BATCH * 2)) --concurrency "$CONC" \
            --book "$out.epd" --pgn "$out.pgn" --json -q >"$out.json.tmp"
        mv "$out.json.tmp" "$out.json"
        echo "batch $i: $(sum)"
    fi
    i=$((i + 1))
done
sum
echo "games: $DIR/batch-*.pgn"
