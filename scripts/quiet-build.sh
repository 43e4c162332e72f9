#!/bin/sh
# Configures and builds one CMake preset quietly, for the Makefile's targets:
#   scripts/quiet-build.sh PRESET [JOBS]
# Shows one progress line (redrawn on a terminal), then any warnings with their context
# and "built N targets in T s". make's own chatter ("[ 42%] Building C object ...",
# "Built target ...", directory changes) goes only to the log, build/PRESET.log. On a
# failure the log is printed without that chatter, so that every compiler error shows in
# full, and the exit status is the build's.
set -u
preset=${1:?usage: scripts/quiet-build.sh PRESET [JOBS]}
jobs=${2:-$(nproc 2>/dev/null || echo 2)}
cmake=${CMAKE:-cmake}
mkdir -p build
log=build/$preset.log
start=$(date +%s)

# make's progress and bookkeeping lines: never a diagnostic
noise='^\[ *[0-9]+%\] |^g?make(\[[0-9]+\])?: (Entering|Leaving|Nothing)|^(Consolidate compiler generated dependencies|Scanning dependencies|Dependee .* is newer)'

# and what cmake says when all is well
config='^-- |^$|^Preset CMake variables:|^  [A-Z_]+='
show() { grep -Ev "$noise" "$log" | grep -Ev "$config"; }

if ! $cmake --preset "$preset" >"$log" 2>&1; then
    echo "build: cmake --preset $preset failed:" >&2
    cat "$log" >&2
    exit 1
fi

tty=0
[ -t 1 ] && tty=1
[ $tty -eq 1 ] || echo "build: $preset ($jobs jobs; full log: $log)"
$cmake --build --preset "$preset" -j "$jobs" >>"$log" 2>&1 &
pid=$!
if [ $tty -eq 1 ]; then
    while kill -0 "$pid" 2>/dev/null; do
        pct=$(grep -Eo '^\[ *[0-9]+%\]' "$log" | tail -n 1 | tr -dc '0-9')
        printf '\rbuild: %s %3s%% (%s jobs; full log: %s)' "$preset" "${pct:-0}" "$jobs" "$log"
        sleep 1
    done
    printf '\r\033[K'
fi
wait "$pid"
rc=$?
secs=$(($(date +%s) - start))
if [ $rc -ne 0 ]; then
    echo "build: $preset FAILED (exit status $rc); the build output without make's progress lines:" >&2
    show >&2
    echo "build: full log: $log" >&2
    exit $rc
fi
show # warnings, if any
targets=$(grep -Ec '^\[ *[0-9]+%\] Built target' "$log")
echo "build: $preset built $targets targets in $secs s (build/$preset/bin/)"
