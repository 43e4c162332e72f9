#!/bin/sh
# Checks `ply bench`'s two signatures against the commit messages (the
# Stockfish convention: a commit that changes a signature says so):
#   "Nodes searched: N" (perft part)  against the latest "Bench: N" line,
#   "Search nodes: N"   (search part) against the latest "Search-bench: N" line.
# A part whose line no commit has yet is skipped (said on stdout). Exit 0 when
# every part checked is equal, 1 when one differs (with the figure to put in
# the commit message), 77 (skipped) when there is no git history or no
# commit with either line.
# Usage: scripts/check-bench.sh PATH/TO/ply
set -eu
ply=${1:?path to ply}
cd "$(dirname "$0")/.."
command -v git >/dev/null 2>&1 && git rev-parse --git-dir >/dev/null 2>&1 || { echo "check-bench: no git history; skipped"; exit 77; }

# The N of the newest commit message with a line "$1 N" (empty when none).
latest() {
    git log -1 --format=%B --grep="^$1 [0-9]" | sed -n "s/^$1 \([0-9][0-9]*\).*/\1/p" | tail -n 1
}
want_perft=$(latest 'Bench:')
want_search=$(latest 'Search-bench:')
[ -n "$want_perft$want_search" ] || { echo "check-bench: no commit message with 'Bench: N' or 'Search-bench: N'; skipped"; exit 77; }

part=
[ -z "$want_search" ] && part=--perft
[ -z "$want_perft" ] && part=--search
out=$("$ply" bench $part) || { echo "check-bench: ply bench $part failed:" >&2; echo "$out" >&2; exit 1; }
status=0
check() { # label, commit line, wanted, got
    if [ -z "$3" ]; then
        echo "check-bench: no commit message with '$2 N' yet; the $1 part is not checked"
    elif [ "$3" = "$4" ]; then
        echo "check-bench: $1 signature $4 matches the latest '$2' commit"
    else
        echo "check-bench: $1 signature is $4, the latest '$2' commit says $3: if the change is" >&2
        echo "  meant, say '$2 $4' in its commit message" >&2
        status=1
    fi
}
got_perft=$(printf '%s\n' "$out" | sed -n 's/^Nodes searched: \([0-9]*\)$/\1/p')
got_search=$(printf '%s\n' "$out" | sed -n 's/^Search nodes: \([0-9]*\)$/\1/p')
check perft 'Bench:' "$want_perft" "$got_perft"
check search 'Search-bench:' "$want_search" "$got_search"
exit $status
