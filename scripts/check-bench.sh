#!/bin/sh
# Checks `ply bench`'s signature (its node total) against the latest commit
# message that says "Bench: N" (the Stockfish convention: a commit that changes
# the signature says so). Exit 0 when equal, 1 when different, 77 (skipped)
# when there is no git history or no such commit.
# Usage: scripts/check-bench.sh PATH/TO/ply
set -eu
ply=${1:?path to ply}
cd "$(dirname "$0")/.."
command -v git >/dev/null 2>&1 && git rev-parse --git-dir >/dev/null 2>&1 || { echo "check-bench: no git history; skipped"; exit 77; }
want=$(git log -1 --format=%B --grep='^Bench: [0-9]' | sed -n 's/^Bench: \([0-9][0-9]*\).*/\1/p' | tail -n 1)
[ -n "$want" ] || { echo "check-bench: no commit message with 'Bench: N'; skipped"; exit 77; }
got=$("$ply" bench | sed -n 's/^Nodes searched: \([0-9]*\)$/\1/p')
if [ "$got" = "$want" ]; then
    echo "check-bench: signature $got matches the latest 'Bench:' commit"
    exit 0
fi
echo "check-bench: ply bench gives $got, the latest 'Bench:' commit says $want" >&2
exit 1
