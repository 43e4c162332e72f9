#!/bin/sh
# Sets up a fresh Debian 12 machine for ply and runs one target of the Makefile:
#   scripts/bootstrap.sh demo   install what is missing, build, run the main job
#   scripts/bootstrap.sh test   install what is missing, build, run the whole test suite
# Installs Debian packages with apt-get (as root, or through sudo), never anything else.
# stockfish is an independent reference in tests; libhttp-parser-dev parses the
# coordinator's HTTP requests, and python3-prometheus-client and python3-jsonschema
# check its /metrics and /status in a test; iproute2 gives the multi-host test its
# network namespaces (the test is skipped where they cannot be made); clang (the
# compiler of the release build: its perft kernel runs 15-20% faster than gcc 12's), its
# sanitizer runtimes and LLVM's OpenMP (with the Archer tool) build the
# ThreadSanitizer run of the tests (make tsan). groff-base and man-db check the man
# pages, bash-completion the completion script; dpkg-dev (dpkg-shlibdeps) and file
# build the Debian package (make deb) and its test. systemd (systemd-analyze), strace,
# ShellCheck, python3-yaml and python3-kubernetes (the API models) check deploy/ offline;
# slurmctld, slurmd, slurm-client and munge run deploy/slurm on a real one-node Slurm (the
# test starts and stops its own daemons; the packages' own services are not used).
# chromium, chromium-driver and python3-selenium open the coordinator's live page in a
# headless browser in a test (the progress bar moves, screenshots, no outside request).
set -eu

PACKAGES="build-essential cmake pkg-config libzmq3-dev libczmq-dev libuv1-dev \
libprotobuf-c-dev protobuf-c-compiler libsqlite3-dev libjansson-dev libcmocka-dev libhttp-parser-dev \
stockfish iproute2 python3 python3-prometheus-client python3-jsonschema \
clang libclang-rt-14-dev libomp-14-dev groff-base man-db bash-completion dpkg-dev file \
systemd strace shellcheck python3-yaml python3-kubernetes slurmctld slurmd slurm-client munge \
chromium chromium-driver python3-selenium"

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
exec make "${1:-demo}"
