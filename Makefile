# Convenience targets over CMake (the build itself is CMakeLists.txt).
#   make          build (Release)            make demo   build, then ply perft -d 6
#   make test     build with -Werror, then every ctest test (what CI runs)
#   make quick    only the tests labelled quick
# scripts/bootstrap.sh installs the Debian packages first, then runs one of these.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE ?= cmake

.PHONY: all build build-ci demo test quick clean

all: build

build:
	$(CMAKE) --preset release >/dev/null
	$(CMAKE) --build --preset release -j $(JOBS)

demo: build
	./build/release/bin/ply perft -d 6

build-ci:
	$(CMAKE) --preset ci >/dev/null
	$(CMAKE) --build --preset ci -j $(JOBS)

test: build-ci
	ctest --preset ci -j $(JOBS)

quick: build-ci
	ctest --preset ci -j $(JOBS) -L quick

clean:
	rm -rf build
