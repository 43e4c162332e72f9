#!/bin/sh
# Starts a coordinator and N workers on this machine, on loopback, and waits.
# Usage: deploy/local-cluster.sh [N workers] [port] [threads per worker]
# Then, from another terminal: ply perft --coordinator tcp://127.0.0.1:PORT -d 7
# Ctrl-C stops everything.
set -eu
n=${1:-2}
port=${2:-5555}
threads=${3:-1}
bin=${PLY_BIN:-$(dirname "$0")/../build/release/bin}
[ -x "$bin/ply-coordinator" ] || { echo "local-cluster: no ply-coordinator in $bin (build first, or set PLY_BIN)" >&2; exit 1; }
"$bin/ply-coordinator" --bind "tcp://127.0.0.1:$port" &
pids=$!
i=0
while [ "$i" -lt "$n" ]; do
    # distinct Zobrist seeds, so that --verify all checks each job on other keys
    "$bin/ply-worker" --connect "tcp://127.0.0.1:$port" --threads "$threads" --zobrist-seed "$i" &
    pids="$pids $!"
    i=$((i + 1))
done
trap 'kill $pids 2>/dev/null; wait' INT TERM EXIT
echo "local-cluster: coordinator on tcp://127.0.0.1:$port with $n workers; Ctrl-C to stop" >&2
wait
