#!/bin/sh
# `cmake --install` puts every file where GNUInstallDirs says, and the
# installed ply runs from there (its --workers finds the installed ply-worker).
# Usage: check_install.sh BUILD_DIR SOURCE_DIR
set -eu
build=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "check_install: $*"; fail=1; }

prefix=$tmp/usr
cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" || { cat "$tmp/install.log"; exit 1; }

for f in bin/ply bin/ply-coordinator bin/ply-worker; do
    [ -x "$prefix/$f" ] || bad "$f is missing or not executable"
done
for f in share/man/man1/ply.1.gz share/man/man1/ply-coordinator.1.gz share/man/man1/ply-worker.1.gz \
    share/bash-completion/completions/ply share/bash-completion/completions/ply-coordinator \
    share/bash-completion/completions/ply-worker \
    share/doc/ply/README.md share/doc/ply/LICENSE share/doc/ply/copyright; do
    [ -f "$prefix/$f" ] || bad "$f is missing"
done
# every file of deploy/, with its executable bit
(cd "$src/deploy" && find . -type f) | while read -r f; do
    [ -f "$prefix/share/ply/deploy/$f" ] || { bad "deploy/$f is not installed"; continue; }
    if [ -x "$src/deploy/$f" ] && [ ! -x "$prefix/share/ply/deploy/$f" ]; then
        bad "deploy/$f lost its executable bit"
    fi
done
# nothing else: no tests, no tools, no static libraries
extra=$(cd "$prefix" && find . -type f | grep -vE '^\./(bin/ply(-coordinator|-worker)?|share/man/man1/ply(-coordinator|-worker)?\.1\.gz|share/bash-completion/completions/ply(-coordinator|-worker)?|share/doc/ply/(README\.md|LICENSE|copyright)|share/ply/deploy/.*)$' || true)
[ -z "$extra" ] || bad "installed but not expected: $extra"

# man finds the pages in the tree and renders them
if command -v man >/dev/null; then
    for page in ply ply-coordinator ply-worker; do
        where=$(man -M "$prefix/share/man" -w "$page" 2>&1) || bad "man -w $page: $where"
        [ "$where" = "$prefix/share/man/man1/$page.1.gz" ] || bad "man -w $page gave $where"
        man -M "$prefix/share/man" -Tutf8 "$page" 2>/dev/null | sed 's/.\x08//g' | grep -q '^NAME$' || bad "man $page renders no NAME"
    done
fi

# The installed programs run, and ply finds the installed ply-worker next to itself.
# perft(3) and perft(4) of the start position: 8,902 and 197,281 (chessprogramming wiki, Perft Results).
n=$(PLY_WORKER_EXE= "$prefix/bin/ply" perft -d 3 --threads 1 --hash 0 | sed -n 's/^Nodes searched: //p')
[ "$n" = 8902 ] || bad "installed ply perft -d 3 said '$n', not 8902"
n=$(env -u PLY_WORKER_EXE "$prefix/bin/ply" perft -d 4 --workers 1 --threads 1 --hash 0 --timeout 20 |
    sed -n 's/^Nodes searched: //p')
[ "$n" = 197281 ] || bad "installed ply perft -d 4 --workers 1 said '$n', not 197281"
"$prefix/bin/ply-worker" --version >/dev/null || bad "installed ply-worker --version failed"
"$prefix/bin/ply-coordinator" --version >/dev/null || bad "installed ply-coordinator --version failed"

[ "$fail" = 0 ] && echo "check_install: $(cd "$prefix" && find . -type f | wc -l) files installed where expected; the installed ply counts perft(3) and, with an installed worker, perft(4)"
exit $fail
