# Convenience targets over CMake (the build itself is CMakeLists.txt).
#   make          build (Release, clang)     make demo   build, then ply perft -d 6
#   make test     build with -Werror, run every ctest test, then the sanitizer runs (what CI runs)
#   make quick    only the tests labelled quick
#   make asan     the quick and net tests built with AddressSanitizer + UndefinedBehaviorSanitizer
#   make tsan     the quick and net tests built with ThreadSanitizer (clang, LLVM OpenMP + Archer),
#                 less those labelled serial (code that runs on one thread: nothing for TSan to see)
#   make deb      the Debian package build/deb/ply_VERSION_ARCH.deb (cpack; install: apt install ./FILE)
#   make install  cmake --install of the release build (PREFIX=/usr/local by default)
#   make net      the evaluation network from nothing, resumably (tools/nnue/README.md): hours
# scripts/bootstrap.sh installs the Debian packages first, then runs one of these.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE ?= cmake

.PHONY: all build build-ci demo test test-release asan tsan quick deb install clean net

all: build

# Quiet builds: one progress line, any warnings, "built N targets"; the whole output is
# in build/PRESET.log, and printed (without make's progress lines) when the build fails.
# VERBOSE=1 shows everything as it comes.
QUIET_BUILD = CMAKE="$(CMAKE)" ./scripts/quiet-build.sh
ifdef VERBOSE
QUIET_BUILD = verbose_build() { $(CMAKE) --preset $$1 && $(CMAKE) --build --preset $$1 -j $$2; }; verbose_build
endif

build:
	@$(QUIET_BUILD) release $(JOBS)

demo: build
	@echo '$$ ply perft -d 6'
	@./build/release/bin/ply perft -d 6

build-ci:
	@$(QUIET_BUILD) ci $(JOBS)

test: test-release asan tsan

test-release: build-ci
	ctest --preset ci -j $(JOBS)

# Sanitizer runs: the same sources, the quick and net tests (the presets filter
# by label and scale the time limits). Any report fails the test that showed it.
asan:
	@$(QUIET_BUILD) asan-ubsan $(JOBS)
	ctest --preset asan-ubsan -j $(JOBS)

tsan:
	@$(QUIET_BUILD) tsan $(JOBS)
	ctest --preset tsan -j $(JOBS)

quick: build-ci
	ctest --preset ci -j $(JOBS) -L quick

net:
	./tools/nnue/make-net.sh

# The Debian package, from its own Release tree with /usr as the prefix (so the
# paths the man pages name are the installed ones) and without the tests.
# Depends comes from dpkg-shlibdeps (dpkg-dev); CPack needs `file` to find the programs.
deb:
	$(CMAKE) -S . -B build/deb -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=clang -DPLY_TESTS=OFF -DCMAKE_INSTALL_PREFIX=/usr >/dev/null
	$(CMAKE) --build build/deb -j $(JOBS)
	cd build/deb && cpack -G DEB >/dev/null
	@ls build/deb/*.deb

PREFIX ?= /usr/local
install: build
	$(CMAKE) --install build/release --prefix $(PREFIX)

clean:
	rm -rf build
