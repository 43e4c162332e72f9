#!/bin/sh
# deploy/slurm on a real Slurm: a one-node cluster in a temporary directory (its own
# slurm.conf on free ports, munged with a fresh key, slurmctld, slurmd, all as root),
# then sbatch ply.sbatch for perft(4) of the start position (197281, Chess Programming
# Wiki, Perft Results) and for a mate in one (Ra8#), and a 2-task ply-array.sbatch
# gathered by gather.sh; every daemon it started is stopped at the end.
# Usage: slurm_real.sh SOURCE_DIR BIN_DIR. Exit 77 where Slurm cannot start: not root,
# or no slurmctld, slurmd, munged (Debian: slurmctld slurmd slurm-client munge).
set -eu
src=$1 bin=$2
skip() { echo "skipped: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "slurmd runs as root"
for p in slurmctld slurmd munged munge sbatch squeue sinfo ss; do
    command -v "$p" >/dev/null 2>&1 || PATH="$PATH:/usr/sbin:/sbin" command -v "$p" >/dev/null 2>&1 ||
        skip "no $p (Debian packages slurmctld slurmd slurm-client munge)"
done
PATH="$PATH:/usr/sbin:/sbin"

R=$(mktemp -d /tmp/ply-slurm-real.XXXXXX)
chmod 755 "$R"
stop() {
    for f in "$R/slurmd.pid" "$R/slurmctld.pid" "$R/munge/munged.pid"; do
        if [ -s "$f" ]; then kill "$(cat "$f")" 2>/dev/null || true; fi
    done
    sleep 1
    for f in "$R/slurmd.pid" "$R/slurmctld.pid" "$R/munge/munged.pid"; do
        if [ -s "$f" ]; then kill -9 "$(cat "$f")" 2>/dev/null || true; fi
    done
}
trap 'stop; rm -rf "$R"' EXIT
fail() { echo "FAIL: $*"; for f in "$R"/*.log "$R"/runs/*.log; do [ -f "$f" ] && { echo "== $f"; tail -n 20 "$f"; }; done; exit 1; }

# Two free TCP ports for slurmctld and slurmd, below the kernel's ephemeral range (32768
# up), where no outgoing connection takes them first.
free_port() {
    while :; do
        p=$(( $(od -An -N2 -tu2 /dev/urandom) % 12000 + 20000 ))
        ss -ltn "sport = :$p" | grep -q LISTEN || { echo "$p"; return; }
    done
}
ctld_port=$(free_port)
d_port=$(free_port)
[ "$d_port" != "$ctld_port" ] || d_port=$((ctld_port + 1))

mkdir -p "$R/munge" "$R/ctld" "$R/spool" "$R/runs"
chmod 700 "$R/munge"
head -c 1024 /dev/urandom >"$R/munge/munge.key"
chmod 400 "$R/munge/munge.key"
munged --key-file="$R/munge/munge.key" --socket="$R/munge/munge.sock" \
    --pid-file="$R/munge/munged.pid" --log-file="$R/munge/munged.log" \
    --seed-file="$R/munge/seed" --force || skip "munged does not start"
sleep 0.5
host=$(hostname)
cpus=$(nproc)
cat >"$R/slurm.conf" <<CONF
ClusterName=plytest
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$R/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$R/ctld
SlurmdSpoolDir=$R/spool
SlurmctldPidFile=$R/slurmctld.pid
SlurmdPidFile=$R/slurmd.pid
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
SlurmctldLogFile=$R/slurmctld.log
SlurmdLogFile=$R/slurmd.log
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=$host CPUs=$cpus RealMemory=2048 State=UNKNOWN
PartitionName=ply Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$R/slurm.conf"
slurmctld -f "$SLURM_CONF" || skip "slurmctld does not start"
sleep 1
slurmd -f "$SLURM_CONF" || skip "slurmd does not start"
up=""
for _ in $(seq 1 60); do
    if sinfo -h -o '%t' 2>/dev/null | grep -q idle; then up=1; break; fi
    sleep 0.5
done
[ -n "$up" ] || { tail -n 5 "$R/slurmctld.log" "$R/slurmd.log"; skip "the Slurm node did not come up"; }
echo "slurm: one node $host, $cpus CPUs, ports $ctld_port/$d_port"

cd "$R/runs"
export PLY_BIN="$bin"
# wait_job ID: until the job has left the queue (at most 120 s).
wait_job() {
    for _ in $(seq 1 240); do
        [ -z "$(squeue -h -j "$1" 2>/dev/null)" ] && return 0
        sleep 0.5
    done
    scancel "$1"
    fail "job $1 still in the queue after 120 s"
}
j1=$(sbatch --parsable --nodes=1 --cpus-per-task=1 --mem=1G "$src/deploy/slurm/ply.sbatch" perft -d 4) ||
    fail "sbatch ply.sbatch"
j2=$(sbatch --parsable --nodes=1 --cpus-per-task=1 --mem=1G "$src/deploy/slurm/ply.sbatch" \
    analyse --fen '6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1' -d 3) || fail "sbatch ply.sbatch analyse"
printf '%s\n' 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 400 ;D3 8902' \
    '4k3/8/8/8/8/8/8/4K2R w K - 0 1 ;D1 15 ;D2 66 ;D3 1197' >suite.epd
j3=$(sbatch --parsable --array=1-2 --cpus-per-task=1 --mem=600M "$src/deploy/slurm/ply-array.sbatch" \
    suite.epd perft) || fail "sbatch ply-array.sbatch"
wait_job "$j1"
wait_job "$j2"
wait_job "$j3"
grep -q '"nodes": 197281,' "ply-$j1.json" 2>/dev/null || fail "no perft(4) = 197281 in ply-$j1.json"
grep -q 'exited 0' "ply-$j1.log" || fail "ply.sbatch perft did not exit 0"
! grep -q 'workers still running' "ply-$j1.log" || fail "the workers did not leave when told"
grep -q '"san": "Ra8#"' "ply-$j2.json" 2>/dev/null || fail "no Ra8# in ply-$j2.json"
"$src/deploy/slurm/gather.sh" "ply-array-$j3" suite.epd >gather.log || { cat gather.log; fail "gather.sh"; }
grep -q '2 tasks: 2 ok, 0 failed, 0 missing' gather.log || { cat gather.log; fail "gather.sh's count"; }
if pgrep -f "$R/runs" >/dev/null; then pgrep -af "$R/runs"; fail "a ply process is left running"; fi
echo "real slurm: perft(4) 197281 (job $j1), analysis Ra8# (job $j2), array of 2 gathered (job $j3)"
echo "slurm (real): ok"
