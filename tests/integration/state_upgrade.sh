#!/bin/sh
# A state file written by the landed ply at commit f2a009b (state format 4, protocol PLY/1),
# with unfinished perft and search runs and some of their results stored, beside finished
# runs, is restored and finished by this build: tests/data/state-f2a009b (its make.sh and
# ../PROVENANCE.md say how it was made). The file migrates to this format on open; every
# unfinished run ends with the right answer (perft counts from the chessprogramming wiki's
# Perft Results: start position perft(5) = 4,865,609; Kiwipete perft(4) = 4,085,603 with
# 757,163 captures, 1,929 en passant, 128,013 castles, 15,172 promotions, 43 checkmates),
# a search run with one line per root move; the finished runs' stored answers (written in
# PLY/1's shape) are read back as this build's client checks them.
# usage: state_upgrade.sh BIN DATA   (BIN: ply, ply-coordinator, ply-worker; DATA: the folder)
# shellcheck disable=SC2086,SC2015 # $C and $more are lists of words; a || b after && is meant
set -u
. "$(dirname "$0")/lib.sh"
BIN=$1 DATA=$2
TOKEN='state-upgrade-test-owner-token'
START='rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1'
KIWI='r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1'
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
# js FILE EXPR: EXPR (Python, on the JSON object d of FILE) printed
js() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
tmp=$(mktemp -d)
coord='' worker=''
trap '[ -n "$worker" ] && kill $worker 2>/dev/null; [ -n "$coord" ] && kill $coord 2>/dev/null;
      wait 2>/dev/null; rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }
cp "$DATA/state.db" "$DATA/state.db-wal" "$tmp/"

"$BIN/ply-coordinator" -v --bind tcp://127.0.0.1:0 --state "$tmp/state.db" --worker-wait-ms 0 \
    2>"$tmp/coord.log" &
coord=$!
ep=$(coordinator_endpoint "$tmp/coord.log" "$coord")
if [ -z "$ep" ]; then
    cat "$tmp/coord.log" >&2
    echo "FAIL: the coordinator did not start on the old state file" >&2
    exit 1
fi
grep -q "migrated from format 4 to 5" "$tmp/coord.log" || bad "no migration from format 4 logged"
grep -q "resuming 3 unfinished run(s)" "$tmp/coord.log" || bad "not 3 runs resumed"
"$BIN/ply-worker" --connect "$ep" --threads 1 --hash 16 -q &
worker=$!
C="--coordinator $ep --owner-token $TOKEN"

# every run of the file (runs.txt: id kind state results/jobs depth stats fen), to its end
n=0
while read -r id kind state stored depth stats fen; do
    n=$((n + 1))
    more=
    [ "$stats" = 1 ] && more=--stats
    if ! timeout 300 "$BIN/ply" result "$id" --wait --json --timeout 120 $more $C \
        >"$tmp/r.json" 2>"$tmp/r.err"; then
        bad "run $id ($state, $stored results, kind $kind, depth $depth): ply result failed: $(cat "$tmp/r.err")"
        continue
    fi
    if [ "$kind" = 1 ]; then
        want=
        case "$depth $fen" in
        "3 $START") want=8902 ;;
        "5 $START") want=4865609 ;;
        "4 $KIWI") want=4085603 ;;
        esac
        got=$(js "$tmp/r.json" 'd["nodes"]')
        [ -n "$want" ] && [ "$got" = "$want" ] ||
            bad "run $id: perft($depth) of $fen = $got, want ${want:-a known position}"
        if [ "$stats" = 1 ]; then
            s=$(js "$tmp/r.json" '" ".join(str(d["stats"][k]) for k in
                ("captures", "enpassants", "castles", "promotions", "total_mates"))')
            [ "$s" = "757163 1929 128013 15172 43" ] ||
                bad "run $id: statistics $s, want 757163 1929 128013 15172 43"
        fi
    else
        # one line per root move, each searched to the depth asked
        lines=$(js "$tmp/r.json" "len([l for l in d['lines'] if l['depth'] >= $depth])")
        moves=$(js "$tmp/r.json" 'len({l["move"] for l in d["lines"]})')
        st=$(js "$tmp/r.json" 'd["status"]')
        [ "$lines" = 20 ] && [ "$moves" = 20 ] && [ "$st" = ok ] ||
            bad "run $id: analyse -d $depth: $lines lines of depth $depth, $moves moves, $st"
    fi
done <"$DATA/runs.txt"
[ "$n" = 5 ] || bad "$n runs in runs.txt, want 5"
"$BIN/ply" status --json $C >"$tmp/status.json" || bad "ply status failed"
done=$(js "$tmp/status.json" 'len([r for r in d["runs"] if r["state"] == "done"])')
[ "$done" = 5 ] || bad "$done runs done, want 5: $(js "$tmp/status.json" '[r["state"] for r in d["runs"]]')"
[ "$fail" = 0 ] || { echo "coordinator log:" >&2; tail -40 "$tmp/coord.log" >&2; }
exit "$fail"
