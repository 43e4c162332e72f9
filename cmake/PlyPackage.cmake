# The Debian package (`make deb`, or `cpack -G DEB` in a build tree): what
# cmake/PlyInstall.cmake installs, under /usr, with its Depends computed by
# dpkg-shlibdeps (dpkg-dev) from the libraries the programs link (CPack finds
# the ELF files with `file`). Configure with -DCMAKE_INSTALL_PREFIX=/usr so
# that the paths written in the man pages are the packaged ones.
set(PLY_DEB_MAINTAINER "the ply authors <ply@invalid>" CACHE STRING
  "Maintainer field of the Debian package (Name <address>)")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME ply)
set(CPACK_PACKAGE_VENDOR "the ply authors")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "chess computation cluster: exact perft and analysis")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # ply_VERSION_ARCH.deb
set(CPACK_DEBIAN_PACKAGE_MAINTAINER ${PLY_DEB_MAINTAINER})
set(CPACK_DEBIAN_PACKAGE_SECTION games)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "stockfish, bash-completion")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# The extended description (CPack writes the summary as its first line, then
# these lines indented, an empty line as " .").
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "ply counts and analyses chess game trees on one machine or a cluster. A
coordinator (ply-coordinator) splits a perft tree into jobs and sends them
over ZeroMQ to workers (ply-worker), which count them with an OpenMP bitboard
move generator; every result is cross-checked by an independent
implementation of the FIDE Laws of Chess, and counts are exact 128-bit sums.

The ply command runs perft, analysis of positions, EPD suites and PGN games,
benchmarks, a UCI engine, and talks to a cluster; with no cluster named it
runs an embedded coordinator and worker.")
include(CPack)
