#!/bin/sh
# `--version` of the three programs: one line naming the release, the commit,
# the slider kernel and OpenMP, each checked against an independent source.
# Usage: check_version.sh BIN_DIR SOURCE_DIR VERSION OPENMP_VERSION PEXT_KERNEL
#   VERSION        CMake's project(VERSION)
#   OPENMP_VERSION the OpenMP version CMake's FindOpenMP measured for the compiler
#                  (its own _OPENMP-to-version table, not ply's)
#   PEXT_KERNEL    ON when the PEXT perft kernel is built (PLY_PEXT_KERNEL)
set -eu
bin=$1
src=$2
version=$3
openmp=$4
pext=$5
fail=0
bad() { echo "check_version: $*"; fail=1; }

# The commit, as git says it now (the build reads it the same way at every build).
git_hash=unknown
if command -v git >/dev/null && top=$(git -C "$src" rev-parse --show-toplevel 2>/dev/null) &&
    [ "$(cd "$top" && pwd -P)" = "$(cd "$src" && pwd -P)" ]; then
    git_hash=$(git -C "$src" rev-parse --short=12 HEAD)
fi

# one_line PROGRAM [ENV=VALUE...]: its --version, which must be a single line
one_line() {
    prog=$1
    shift
    out=$(env "$@" "$bin/$prog" --version) || { bad "$prog --version failed"; return; }
    [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || bad "$prog --version printed more than one line: $out"
    printf '%s' "$out"
}

# A build older than the checkout (a commit since the last build) says its own
# commit, rightly: that cannot be checked against HEAD, so the test is skipped.
said_hash=$("$bin/ply" --version | sed -nE 's/.*\(git ([0-9a-f]+|unknown)(-dirty)?, .*/\1/p')
if [ "$git_hash" != unknown ] && [ "$said_hash" != "$git_hash" ] &&
    git -C "$src" merge-base --is-ancestor "$said_hash" HEAD 2>/dev/null; then
    echo "check_version: built at $said_hash, an ancestor of HEAD $git_hash: rebuild, then test"
    exit 77
fi

kernel_of() { sed -nE 's/.*, (pext|magic) sliders, .*/\1/p'; }

for prog in ply ply-worker; do
    line=$(one_line $prog)
    echo "$line"
    case $line in
    "$prog $version (git $git_hash"*", "*" sliders, OpenMP $openmp)") ;;
    *) bad "$prog: '$line' is not '$prog $version (git $git_hash[-dirty], KERNEL sliders, OpenMP $openmp)'" ;;
    esac
    case $line in
    *"(git $git_hash, "* | *"(git $git_hash-dirty, "*) ;;
    *) bad "$prog: the commit is not $git_hash" ;;
    esac
    [ "$(one_line $prog PLY_SLIDERS=magic | kernel_of)" = magic ] || bad "$prog: PLY_SLIDERS=magic does not say magic"
    if [ "$pext" = ON ] && grep -qw bmi2 /proc/cpuinfo 2>/dev/null; then
        [ "$(one_line $prog PLY_SLIDERS=pext | kernel_of)" = pext ] || bad "$prog: PLY_SLIDERS=pext does not say pext"
    fi
done

# The default kernel is the one ply bench counts with (its "kernel" in --json).
bench=$("$bin/ply" bench --perft --json | sed -nE 's/^ *"kernel": "([a-z]+)".*/\1/p')
said=$(one_line ply | kernel_of)
[ -n "$bench" ] && [ "$bench" = "$said" ] || bad "ply --version says $said sliders, ply bench counts with '$bench'"

line=$(one_line ply-coordinator)
echo "$line"
[ "$line" = "ply-coordinator $version (git $git_hash, no slider kernel, no OpenMP: the workers count)" ] ||
    [ "$line" = "ply-coordinator $version (git $git_hash-dirty, no slider kernel, no OpenMP: the workers count)" ] ||
    bad "ply-coordinator: '$line'"
exit $fail
