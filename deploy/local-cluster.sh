#!/bin/sh
# Starts a coordinator and N workers on this machine, on loopback, and waits.
# Usage: deploy/local-cluster.sh [N workers] [port] [threads per worker]
# The programs: $PLY_BIN if set, else the build tree's build/release/bin next to this
# script, else the installed ones (PREFIX/bin for PREFIX/share/ply/deploy/local-cluster.sh),
# else those on PATH; it says which.
# Then, from another terminal: ply perft --coordinator tcp://127.0.0.1:PORT -d 7
# Ctrl-C stops everything.
set -eu
n=${1:-2}
port=${2:-5555}
threads=${3:-1}
here=$(dirname "$0")
has() { [ -x "$1/ply-coordinator" ] && [ -x "$1/ply-worker" ] && [ -x "$1/ply" ]; }
if [ -n "${PLY_BIN:-}" ]; then
    bin=$PLY_BIN
    has "$bin" || { echo "local-cluster: no ply, ply-coordinator and ply-worker in PLY_BIN=$bin" >&2; exit 1; }
elif has "$here/../build/release/bin"; then
    bin=$here/../build/release/bin
elif has "$here/../../../bin"; then
    bin=$here/../../../bin
    echo "local-cluster: using the installed programs in $bin" >&2
elif command -v ply-coordinator >/dev/null 2>&1 && has "$(dirname "$(command -v ply-coordinator)")"; then
    bin=$(dirname "$(command -v ply-coordinator)")
    echo "local-cluster: using the programs on PATH, in $bin" >&2
else
    echo "local-cluster: no ply, ply-coordinator and ply-worker in $here/../build/release/bin," \
        "next to this script or on PATH (build first, or set PLY_BIN)" >&2
    exit 1
fi
"$bin/ply-coordinator" --bind "tcp://127.0.0.1:$port" &
pids=$!
trap 'kill $pids 2>/dev/null; wait' INT TERM EXIT
# workers started before the coordinator listens each say "connection refused ... trying
# again": wait (up to 10 s) until its port answers
tries=0
until "$bin/ply" status --coordinator "tcp://127.0.0.1:$port" >/dev/null 2>&1; do
    kill -0 "$pids" 2>/dev/null || { echo "local-cluster: the coordinator did not start" >&2; exit 1; }
    tries=$((tries + 1))
    [ "$tries" -lt 100 ] || { echo "local-cluster: the coordinator is not listening on port $port after 10 s" >&2; exit 1; }
    sleep 0.1
done
i=0
while [ "$i" -lt "$n" ]; do
    # distinct Zobrist seeds, so that --verify all checks each job on other keys
    "$bin/ply-worker" --connect "tcp://127.0.0.1:$port" --threads "$threads" --zobrist-seed "$i" &
    pids="$pids $!"
    i=$((i + 1))
done
echo "local-cluster: coordinator on tcp://127.0.0.1:$port with $n workers; Ctrl-C to stop" >&2
wait
