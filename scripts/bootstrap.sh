#!/bin/sh
# Sets up a fresh Debian 12 machine for ply and runs one target of the Makefile:
#   scripts/bootstrap.sh demo   install what building and running need, build, run the main job
#   scripts/bootstrap.sh test   install that and what the tests need, build, run the whole test suite
# Any other target (build, quick, asan, tsan, deb, ...) installs what the tests need too.
# Installs Debian packages with apt-get (as root, or through sudo), never anything else.
set -eu

# Building and running: the compilers (clang builds the release tree: its perft kernel runs
# 15-20% faster than gcc 12's; LLVM's OpenMP goes with it), CMake, the libraries ply links
# (libhttp-parser-dev parses the coordinator's HTTP requests) and cmocka, which the build
# needs because the release tree builds the tests too.
BUILD_PACKAGES="build-essential cmake pkg-config clang libomp-14-dev libzmq3-dev libczmq-dev \
libuv1-dev libprotobuf-c-dev protobuf-c-compiler libsqlite3-dev libjansson-dev libcmocka-dev \
libhttp-parser-dev"

# The tests: stockfish is an independent reference; python3-prometheus-client and
# python3-jsonschema check the coordinator's /metrics and /status; iproute2 gives the
# multi-host test its network namespaces (skipped where they cannot be made); clang's
# sanitizer runtimes build the AddressSanitizer and ThreadSanitizer runs (make asan, make
# tsan; the LLVM OpenMP above brings the Archer tool); groff-base and man-db check the man
# pages, bash-completion the completion script; dpkg-dev (dpkg-shlibdeps) and file build
# the Debian package (make deb) and its test. systemd (systemd-analyze), strace,
# ShellCheck, python3-yaml and python3-kubernetes (the API models) check deploy/ offline;
# slurmctld, slurmd, slurm-client and munge run deploy/slurm on a real one-node Slurm (the
# test starts and stops its own daemons; the packages' own services are not used).
# chromium, chromium-driver and python3-selenium open the coordinator's live page in a
# headless browser in a test (the progress bar moves, screenshots, no outside request).
TEST_PACKAGES="stockfish iproute2 python3 python3-prometheus-client python3-jsonschema \
libclang-rt-14-dev groff-base man-db bash-completion dpkg-dev file \
systemd strace shellcheck python3-yaml python3-kubernetes slurmctld slurmd slurm-client munge \
chromium chromium-driver python3-selenium"

target="${1:-demo}"
case "$target" in
demo) PACKAGES="$BUILD_PACKAGES" ;;
*) PACKAGES="$BUILD_PACKAGES $TEST_PACKAGES" ;;
esac

missing=""
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "bootstrap: installing$missing" >&2
    if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    # shellcheck disable=SC2086
    $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

cd "$(dirname "$0")/.."
exec make "$target"
