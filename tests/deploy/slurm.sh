#!/bin/sh
# deploy/slurm: the batch scripts parse (bash -n, sh -n, shellcheck where installed)
# and run end to end under stand-in srun and scontrol (tests/deploy/slurm-shims: the
# tasks run on this machine with their SLURM_* variables), with the real ply programs:
#   ply.sbatch on 2 "nodes": perft(4) of the start position is 197281 (Chess Programming
#     Wiki, Perft Results), in the JSON answer file; both workers joined with the hash
#     sized from scontrol's RealMemory, and left by themselves (no stray process, and not
#     ended by the script after its 30 s grace); and an analysis whose best move is the mate Ra8#;
#   ply-array.sbatch, 3 tasks of an EPD perft suite (one line with a wrong count, 1198
#     for 1197) and 1 analysis task, then gather.sh: 2 ok, 1 failed, the counts right.
# Usage: slurm.sh SOURCE_DIR BIN_DIR
set -eu
src=$1 bin=$2
slurm=$src/deploy/slurm
fail() { echo "FAIL: $*"; exit 1; }
expect() { # file, extended regex
    grep -Eq "$2" "$1" || { echo "FAIL: $1 lacks /$2/:"; cat "$1"; exit 1; }
}

bash -n "$slurm/ply.sbatch" && bash -n "$slurm/ply-array.sbatch" && sh -n "$slurm/gather.sh" ||
    fail "a script does not parse"
if command -v shellcheck >/dev/null 2>&1; then
    shellcheck "$slurm/ply.sbatch" "$slurm/ply-array.sbatch" "$slurm/gather.sh" \
        "$src/deploy/local-cluster.sh" "$src/tests/deploy/slurm-shims/srun" \
        "$src/tests/deploy/slurm-shims/scontrol" || fail "shellcheck"
    echo "shellcheck: ok"
else
    echo "shellcheck: not installed, not run"
fi

work=$(mktemp -d /tmp/ply-slurm.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"
export PATH="$src/tests/deploy/slurm-shims:$PATH" PLY_BIN="$bin" SLURM_SUBMIT_DIR="$work"
export SLURM_CPUS_PER_TASK=1 FAKE_SLURM_REAL_MEMORY=1024
# A machine whose own name does not resolve (a fresh chroot without /etc/hosts): the
# workers reach the batch host by its address instead, as PLY_COORDINATOR_HOST allows.
if ! getent hosts "$(hostname)" >/dev/null 2>&1; then
    echo "note: $(hostname) does not resolve here: PLY_COORDINATOR_HOST=127.0.0.1"
    export PLY_COORDINATOR_HOST=127.0.0.1
fi

# One allocation of 2 nodes; no --mem, so the hash comes from scontrol: (1024-512)*3/4.
start=$(date +%s)
SLURM_JOB_ID=101 SLURM_NNODES=2 SLURM_JOB_NUM_NODES=2 SLURMD_NODENAME=node0 \
    bash "$slurm/ply.sbatch" perft -d 4 >perft.log 2>&1 || { cat perft.log; fail "ply.sbatch perft"; }
took=$(($(date +%s) - start))
expect ply-101.json '"nodes": 197281,'
expect perft.log '2 worker\(s\) x 1 threads, --hash 384 MiB'
# both workers get the hash; a perft(4) may end before the second has joined (it did
# under ASan), so the coordinator's log is asked for one of them
expect ply-101.d/worker.sh 'ply-worker.* --hash 384 '
expect ply-101.d/coordinator.log 'worker [^ ]*-[01] joined .*384 MiB hash'
expect ply-101.d/coordinator.log 'perft\(4\) = 197281'
! grep -q 'workers still running' perft.log || fail "the workers did not leave when told (ended after 30 s)"
if pgrep -f "ply-101.d/keys" >/dev/null; then pgrep -af "ply-101.d/keys"; fail "a worker is left running"; fi
echo "ply.sbatch perft -d 4: 197281 in ply-101.json, 2 workers, ${took} s"

start=$(date +%s)
SLURM_JOB_ID=102 SLURM_NNODES=1 SLURM_JOB_NUM_NODES=1 SLURM_MEM_PER_NODE=1024 PLY_COORDINATOR_ARGS="--worker-wait-ms 20000 --keep-runs 5" \
    bash "$slurm/ply.sbatch" analyse --fen '6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1' -d 3 \
    >analyse.log 2>&1 || { cat analyse.log; fail "ply.sbatch analyse"; }
took=$(($(date +%s) - start))
expect ply-102.json '"Ra8#"'
! grep -q 'workers still running' analyse.log || fail "the worker did not leave when told (ended after 30 s)"
echo "ply.sbatch analyse: Ra8# in ply-102.json, ${took} s"

# A job array: perft counts from the Chess Programming Wiki (Perft Results, positions
# 1 and the "4k3/.../4K2R" suite line of tests/data/perftsuite.epd).
cat >suite.epd <<'EPD'
rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 400 ;D3 8902 ;D4 197281
4k3/8/8/8/8/8/8/4K2R w K - 0 1 ;D1 15 ;D2 66 ;D3 1197 ;D4 7059
4k3/8/8/8/8/8/8/4K2R w K - 0 1 ;D1 15 ;D2 66 ;D3 1198
EPD
for t in 1 2 3; do
    SLURM_ARRAY_JOB_ID=200 SLURM_ARRAY_TASK_ID=$t SLURM_JOB_ID=$((200 + t)) SLURM_MEM_PER_NODE=600 \
        bash "$slurm/ply-array.sbatch" suite.epd perft >"array-$t.log" 2>&1 || true
done
set +e
"$slurm/gather.sh" ply-array-200 suite.epd >gather.log 2>&1
rc=$?
set -e
[ "$rc" -eq 1 ] || { cat gather.log; fail "gather.sh exited $rc, not 1 (one task failed)"; }
expect gather.log '^gather: 3 tasks: 2 ok, 1 failed, 0 missing'
expect gather.log 'not ok: 3\(exit 1\)'
expect ply-array-200/all.json '"task": 1, "exit": 0, "line": "rnbqkbnr/'
expect ply-array-200/all.json '"expected": 197281,'
expect ply-array-200/1.json '"depth": 4,'
expect ply-array-200/2.json '"nodes": 7059,'
expect ply-array-200/3.json '"expected": 1198,'
expect ply-array-200/3.json '"nodes": 1197,'
echo "ply-array.sbatch perft + gather.sh: 2 ok, 1 failed (the wrong count)"

printf '%s\n' '6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1; bm Ra8#; id "m1";' >mates.epd
SLURM_ARRAY_JOB_ID=300 SLURM_ARRAY_TASK_ID=1 SLURM_JOB_ID=301 \
    bash "$slurm/ply-array.sbatch" mates.epd analyse -d 3 >array-a.log 2>&1 ||
    { cat array-a.log; fail "ply-array.sbatch analyse"; }
"$slurm/gather.sh" ply-array-300 mates.epd >gather-a.log 2>&1 || { cat gather-a.log; fail "gather.sh analyse"; }
expect ply-array-300/all.json '"line": "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1; bm Ra8#; id \\"m1\\";"'
expect ply-array-300/1.json '"solved": 1,'
echo "ply-array.sbatch analyse: Ra8# solved"
echo "slurm scripts: ok"
