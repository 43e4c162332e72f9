#!/bin/sh
# Two ply-workers started without --zobrist-seed draw distinct seeds (issue 27: all on seed 0,
# "checked by another worker" meant the same keys): `ply status --json` shows two seeds, and a
# perft under --verify all is confirmed "by another worker with another Zobrist seed".
# perft(4) of the start position = 197,281 (chessprogramming wiki, "Perft Results").
# usage: worker_seed.sh DIR (where ply, ply-coordinator and ply-worker are)
set -u
. "$(dirname "$0")/lib.sh"
B=$1
tmp=$(mktemp -d)
pids=
trap 'for p in $pids; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; for f in "$tmp"/*.log; do echo "== $f" >&2; cat "$f" >&2; done; exit 1; }

"$B/ply-coordinator" --bind tcp://127.0.0.1:0 -v 2>"$tmp/coord.log" &
pids="$pids $!"
ep=$(coordinator_endpoint "$tmp/coord.log")
[ -n "$ep" ] || fail "the coordinator did not say where it listens"
for w in a b; do
    "$B/ply-worker" --connect "$ep" --threads 1 --hash 16 --id "$w" -v 2>"$tmp/$w.log" &
    pids="$pids $!"
done
n=0
for _ in $(seq 300); do
    "$B/ply" status --coordinator "$ep" --json >"$tmp/status.json" 2>/dev/null &&
        n=$(grep -c '"zobrist_seed"' "$tmp/status.json")
    [ "$n" -ge 2 ] && break
    sleep 0.1
done
[ "$n" -eq 2 ] || fail "want 2 workers in ply status --json, got $n"
seeds=$(sed -n 's/.*"zobrist_seed": *\([0-9]*\).*/\1/p' "$tmp/status.json" | sort -u | wc -l)
[ "$seeds" -eq 2 ] || fail "two workers without --zobrist-seed share a seed: $(cat "$tmp/status.json")"
# each worker says its seed (-v), and it is the one its HELLO gave
for w in a b; do
    s=$(sed -n 's/.*zobrist seed \([0-9]*\) (random).*/\1/p' "$tmp/$w.log")
    [ -n "$s" ] || fail "worker $w did not log its random seed"
    grep -q "worker $w joined.*zobrist seed $s," "$tmp/coord.log" || fail "worker $w: HELLO's seed is not $s"
done

timeout 120 "$B/ply" perft --coordinator "$ep" -d 4 --verify all >"$tmp/perft.log" 2>&1 ||
    fail "ply perft --verify all failed"
grep -q "^Nodes searched: 197281$" "$tmp/perft.log" || fail "perft(4) is not 197281"
grep -q "by another worker with another Zobrist seed" "$tmp/perft.log" ||
    fail "--verify all not checked by another worker with another seed"
! grep -q "same seed" "$tmp/perft.log" || fail "a check on the same seed"
exit 0
