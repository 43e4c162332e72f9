#!/bin/sh
# make-net.sh: ply's evaluation network from nothing, resumably (tools/nnue/README.md).
# Installs python3-torch and python3-numpy from Debian when missing, builds ply-datagen, generates
# CHUNKS chunks of self-play positions into DATA with JOBS processes (complete chunks are kept:
# stop it at any time and run it again), trains, and writes OUT.
# Environment: DATA (nnue-data/selfplay-5k), CHUNKS (400), JOBS (cores), NODES (5000),
# EPOCHS (20), HIDDEN (256), OUT (build/ply.nnue).
set -eu
cd "$(dirname "$0")/../.."
DATA=${DATA:-nnue-data/selfplay-5k}
CHUNKS=${CHUNKS:-400}
JOBS=${JOBS:-$(nproc)}
NODES=${NODES:-5000}
EPOCHS=${EPOCHS:-20}
HIDDEN=${HIDDEN:-256}
OUT=${OUT:-build/ply.nnue}

if ! /usr/bin/python3 -c 'import torch, numpy' 2>/dev/null; then
    SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq --no-install-recommends python3-torch python3-numpy >/dev/null
fi
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target ply-datagen >/dev/null
bin=build/release/bin/ply-datagen

mkdir -p "$DATA"
per=$(( (CHUNKS + JOBS - 1) / JOBS ))
pids=
i=0
while [ "$i" -lt "$JOBS" ]; do
    "$bin" --out "$DATA" --nodes "$NODES" --first "$i" --step "$JOBS" --chunks "$per" \
        2>>"$DATA/gen-$i.log" &
    pids="$pids $!"
    i=$((i + 1))
done
trap 'kill $pids 2>/dev/null' INT TERM
echo "generating $CHUNKS chunks into $DATA with $JOBS processes (logs: $DATA/gen-*.log)"
for p in $pids; do wait "$p"; done
trap - INT TERM
/usr/bin/python3 tools/nnue/train.py "$DATA" "$OUT" --epochs "$EPOCHS" --hidden "$HIDDEN" \
    --threads "$(nproc)" --mirror
