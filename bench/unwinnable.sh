#!/bin/sh
# Times the rule engine's unwinnability check (art. 6.10: "can this side still
# checkmate by some series of legal moves?", ply_arb_unwinnable) for both sides
# of every position of a set, and prints per set: questions asked, how many were
# decided and by which method, how many stayed undetermined, the median and the
# worst time in milliseconds, and the most nodes one question used. The time is
# the check's own (measured inside ply, microseconds), not the process start.
#
#   bench/unwinnable.sh [FILE.pgn|FILE.epd ...]
#
# With no files: the final position of every game in tests/data/pgn/*.pgn, the
# 300 positions of Win at Chess (tests/data/analysis/wacnew.epd, positions from
# real games), and the classes of issue 30 (bench/unwinnable/*.epd: king and
# bishop against king and bishop on the other colour, king and pawn against
# king and knight, against king and bishop, drawn at random; locked pawn walls
# with bishops, dead or near misses). SETS="kb-kb locked" runs only those sets. A .pgn file gives the final position of each of its games
# (after its last legal move), an .epd file each of its positions.
#   PLY=path     the ply command (default build/release/bin/ply)
#   BUDGET=N     --unwinnable-budget N (default: ply's own default)
#   BENCH_OUT    where the per-question lines go (default /tmp: /tmp/ply-bench-unwinnable/)
#   SETS         with no files, the sets to run (default: all six above)
# Needs jq. One process per position (start-up is not in the times). Run by
# tests/integration/bench_scripts.sh on one game, so that it cannot rot unseen.
cd "$(dirname "$0")/.." || exit 1
PLY=${PLY:-./build/release/bin/ply}
[ -x "$PLY" ] || { echo "$0: no ply at $PLY (build first: make, or set PLY)" >&2; exit 1; }
command -v jq >/dev/null || { echo "$0: needs jq (apt-get install jq)" >&2; exit 1; }
out=${BENCH_OUT:-/tmp}/ply-bench-unwinnable
mkdir -p "$out"
budget_opt=""
[ -n "${BUDGET:-}" ] && budget_opt="--unwinnable-budget $BUDGET"

echo "date:    $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "cpu:     $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores"
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) at the start"
echo "ply:     $PLY ($("$PLY" --version)), budget ${BUDGET:-default}"

# The positions of one file, one FEN a line.
positions() {
    case $1 in
    *.pgn | *.PGN) "$PLY" arbiter --json "$1" | jq -r '.results[] | select(.final != null) | .final.fen' ;;
    *) sed -n 's/^\([^ ]* [wb] [^ ]* [^ ;]*\).*/\1 0 1/p' "$1" ;;
    esac
}

# Both questions of every position of the file list $@ into $out/NAME.tsv:
# answer, method, microseconds, nodes, FEN.
run_set() {
    name=$1
    shift
    : >"$out/$name.tsv"
    for f in "$@"; do
        positions "$f" | while IFS= read -r fen; do
            # shellcheck disable=SC2086
            "$PLY" arbiter --fen "$fen" --json $budget_opt |
                jq -r --arg fen "$fen" '.can_mate | to_entries[] |
                    [.value.answer, .value.method, .value.elapsed_us, .value.nodes, $fen] | @tsv'
        done >>"$out/$name.tsv"
    done
    summary "$name" "$out/$name.tsv"
}

summary() {
    n=$(wc -l <"$2")
    und=$(awk -F'\t' '$1 == "undetermined"' "$2" | wc -l)
    med=$(cut -f3 "$2" | sort -g | awk '{a[NR] = $1} END {if (!NR) print "nan"; else if (NR % 2) print a[(NR + 1) / 2] / 1000; else print (a[NR / 2] + a[NR / 2 + 1]) / 2000}')
    worst=$(cut -f3 "$2" | sort -g | tail -1 | awk '{print $1 / 1000}')
    nodes=$(cut -f4 "$2" | sort -g | tail -1)
    methods=$(awk -F'\t' '$1 != "undetermined" {m[$2 " " $1]++} END {for (k in m) printf "%s %d, ", k, m[k]}' "$2" | sed 's/, $//')
    echo
    echo "$1: $n questions ($((n / 2)) positions, both sides), $((n - und)) decided, $und undetermined"
    echo "  by method and answer: $methods"
    echo "  time: median $med ms, worst $worst ms; most nodes in one question: $nodes"
    echo "  per question: $2"
}

if [ $# -gt 0 ]; then
    run_set files "$@"
else
    for set in ${SETS:-pgn-final wac kb-kb kp-kn kp-kb locked}; do
        case $set in
        pgn-final) run_set pgn-final tests/data/pgn/*.pgn ;;
        wac) run_set wac tests/data/analysis/wacnew.epd ;;
        *) run_set "$set" "bench/unwinnable/$set.epd" ;;
        esac
    done
fi
echo
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) at the end"
