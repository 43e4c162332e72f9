#!/bin/sh
# scripts/quiet-build.sh on a throwaway CMake project: a clean build prints its progress
# line, the compiler's warning with its context and "built N targets", not make's lines;
# a broken one prints the compiler's error in full and keeps the build's exit status.
#   tests/integration/quiet_build.sh SOURCE_DIR
set -u
src=$1
script=$src/scripts/quiet-build.sh
tmp=$(mktemp -d /tmp/ply-quiet-build.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "quiet_build: $*" >&2; exit 1; }

cd "$tmp" || exit 1
cat >CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.25)
project(qb C)
add_library(one STATIC one.c)
add_library(two STATIC two.c)
add_executable(prog main.c)
target_link_libraries(prog one two)
CM
cat >CMakePresets.json <<'JS'
{"version": 6, "configurePresets": [{"name": "qb", "binaryDir": "${sourceDir}/build/qb",
 "generator": "Unix Makefiles", "cacheVariables": {"CMAKE_C_FLAGS": "-Wall -Wextra"}}],
 "buildPresets": [{"name": "qb", "configurePreset": "qb"}]}
JS
echo 'int one(void) { return 1; }' >one.c
printf 'int two(int x)\n{\n    int unused_here;\n    return x;\n}\n' >two.c
printf 'int one(void);\nint two(int);\nint main(void) { return one() + two(0) - 1; }\n' >main.c

out=$("$script" qb 2 2>&1)
rc=$?
[ $rc -eq 0 ] || fail "clean build: exit status $rc: $out"
echo "$out" | grep -q "unused variable .unused_here." || fail "the warning is not shown: $out"
echo "$out" | grep -q "int unused_here;" || fail "the warning's context is not shown: $out"
echo "$out" | grep -Eq '^build: qb built 3 targets in [0-9]+ s' || fail "no 'built 3 targets': $out"
echo "$out" | grep -Eq '^\[ *[0-9]+%\]|Built target|Entering directory' && fail "make's lines shown: $out"
[ -s build/qb.log ] && grep -q "Built target prog" build/qb.log || fail "no full log in build/qb.log"

printf 'int two(int x)\n{\n    return x + not_declared;\n}\n' >two.c
out=$("$script" qb 2 2>&1)
rc=$?
[ $rc -ne 0 ] || fail "broken build: exit status 0: $out"
echo "$out" | grep -q "error: .not_declared. undeclared" || fail "the error is not shown: $out"
echo "$out" | grep -q "return x + not_declared;" || fail "the error's context is not shown: $out"
echo "$out" | grep -q "FAILED (exit status $rc)" || fail "the status is not said: $out"
echo "$out" | grep -Eq '^\[ *[0-9]+%\]' && fail "make's progress lines shown on failure: $out"
echo "quiet_build: ok"
