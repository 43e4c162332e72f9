#!/bin/sh
# The rule engine never stalls the cluster (issue 27, case 1): a coordinator and two workers
# of one thread on loopback; a perft run with --verify sample=0.5 whose jobs are inside the
# rule engine's budget; while it runs, another client's perft(3) is answered within 1 s and the
# verified run has no idle tail behind the rule engine.
#
# Before the rule engine had its own pool, its recounts queued on libuv's pool ahead of the
# planning of new runs: measured on a 2-core AMD EPYC, the perft(3) got no answer within its
# 30 s --timeout and the verified run took 78 s, 95% of it an idle tail; after, 1.2 s and
# 4.7 s with a tail of 0%. The bounds below are far from both (a loaded machine is slower).
#
# Expected values, from the chessprogramming wiki's "Perft Results": the start position's
# perft(3) = 8,902; position 3 (8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - -) perft(8) =
# 3,009,794,393.
# usage: rule_engine_stall.sh DIR (holding ply, ply-coordinator and ply-worker)
set -u
. "$(dirname "$0")/lib.sh"
B=$1
# the perft(3) answered within 5 s (issue 27 measured 1.2 s; before: no answer in 30 s), times
# PLY_TEST_SLOWDOWN under a sanitizer preset (CMakePresets.json). 1 s failed under ASan on a
# loaded 2-core machine (3,117 ms against 3,000): the bound tells a stall from a slow machine,
# the speed itself is not this test's to judge.
SMALL_MAX_MS=$((5000 * ${PLY_TEST_SLOWDOWN:-1}))
TAIL_MAX_PCT=10                          # the verified run's idle tail, % of its time (before: 95)
tmp=$(mktemp -d)
pids=
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null; done
    for p in $pids; do wait "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
fail=0
now() { date +%s%N; }

"$B/ply-coordinator" -v --bind tcp://127.0.0.1:0 2>"$tmp/coord" &
pids="$pids $!"
ep=$(coordinator_endpoint "$tmp/coord")
[ -n "$ep" ] || { echo "FAIL: the coordinator did not say where it listens" >&2; cat "$tmp/coord" >&2; exit 1; }
# two identities with other Zobrist seeds: a check by a worker is a check by another one
"$B/ply-worker" --connect "$ep" --threads 1 --hash 64 --id stall-1 --zobrist-seed 1 2>"$tmp/w1" &
pids="$pids $!"
"$B/ply-worker" --connect "$ep" --threads 1 --hash 64 --id stall-2 --zobrist-seed 2 2>"$tmp/w2" &
pids="$pids $!"
for _ in $(seq 100); do
    [ "$(grep -c ' joined as ' "$tmp/coord")" -ge 2 ] && break
    sleep 0.1
done

"$B/ply" perft --coordinator "$ep" --timeout 300 --json --verify sample=0.5 -d 8 \
    --fen '8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1' >"$tmp/big.json" 2>"$tmp/big.err" &
big=$!
pids="$pids $big"
for _ in $(seq 300); do # planned: its jobs, and with them its checks, go out
    grep -q 'jobs, estimate .* verify sample' "$tmp/coord" && break
    sleep 0.1
done
sleep 0.5 # its jobs and checks are out (it lasts 1-5 s: the issue's 3 s would often miss it)
running=1
kill -0 "$big" 2>/dev/null || running=0
t0=$(now)
"$B/ply" perft --coordinator "$ep" --timeout 60 -d 3 >"$tmp/small" 2>&1
rc=$?
t1=$(now)
small_ms=$(((t1 - t0) / 1000000))
echo "perft(3) beside the verified run: exit $rc, answered in $small_ms ms"
if [ "$rc" -ne 0 ] || ! grep -q '^Nodes searched: 8902$' "$tmp/small"; then
    echo "FAIL: perft(3) beside the verified run (8,902 expected):" >&2
    cat "$tmp/small" >&2
    fail=1
fi
# Runs share the workers round-robin (dispatch.c): the perft(3)'s job goes out at the next
# hand-out, behind at most what each worker already holds of the verified run (the job it
# counts and the one it prefetched)
if [ "$running" -eq 0 ]; then
    echo "note: the verified run was over before the perft(3) was submitted: its bound is not tested"
elif [ "$small_ms" -gt "$SMALL_MAX_MS" ]; then
    echo "FAIL: perft(3) took $small_ms ms beside the verified run (at most $SMALL_MAX_MS ms)" >&2
    fail=1
fi

wait "$big"
rc=$?
pids=$(echo "$pids" | sed "s/ $big//")
if [ "$rc" -ne 0 ]; then
    echo "FAIL: the verified run exited $rc:" >&2
    cat "$tmp/big.err" "$tmp/big.json" >&2
    exit 1
fi
python3 - "$tmp/big.json" "$TAIL_MAX_PCT" <<'EOF' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))
tail_max = float(sys.argv[2])
v = r["verified"]
tail = 100.0 * r["tail_ms"] / max(r["time_ms"], 1)
print("verified run: %d nodes in %d ms, idle tail %d ms (%.1f%%); %d of %d jobs checked: "
      "%d by the rule engine, %d by another worker and seed"
      % (r["nodes"], r["time_ms"], r["tail_ms"], tail, v["jobs_selected"], v["jobs"],
         v["checked_by_rule_engine"], v["checked_by_other_worker_and_seed"]))
bad = []
if r["nodes"] != 3009794393:
    bad.append("total %d, not 3,009,794,393" % r["nodes"])
if tail >= tail_max:
    bad.append("idle tail %.1f%% of the run, not under %g%%" % (tail, tail_max))
confirmed = (v["checked_by_rule_engine"] + v["checked_by_other_worker_and_seed"] +
             v["checked_by_other_worker_same_seed"] + v["checked_on_same_worker"])
if confirmed != v["jobs_selected"] or v["mismatches"]:
    bad.append("%d of %d selected jobs confirmed, %d mismatches"
               % (confirmed, v["jobs_selected"], v["mismatches"]))
for b in bad:
    print("FAIL: " + b, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
exit $fail
