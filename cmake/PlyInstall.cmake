# What `cmake --install` puts where (GNUInstallDirs, so --prefix and the
# CMAKE_INSTALL_*DIR variables move it): the three programs, their man pages
# (gzipped, as Debian ships them), the bash completion, the deploy files, and
# the README and licence. Tests and tools are not installed.
include(GNUInstallDirs)

install(TARGETS ply ply-coordinator ply-worker RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# The pages name where the deploy files and the README end up, and the release.
# The date honours SOURCE_DATE_EPOCH (reproducible packages).
string(TIMESTAMP PLY_MAN_DATE "%Y-%m-%d" UTC)
set(PLY_DOCDIR ${CMAKE_INSTALL_FULL_DOCDIR})
set(PLY_DEPLOYDIR ${CMAKE_INSTALL_FULL_DATADIR}/ply/deploy)
set(PLY_MAN_PAGES ply ply-coordinator ply-worker)
set(ply_man_gz "")
foreach(page IN LISTS PLY_MAN_PAGES)
  configure_file(${PROJECT_SOURCE_DIR}/man/${page}.1.in ${PROJECT_BINARY_DIR}/man/${page}.1 @ONLY)
  add_custom_command(OUTPUT ${PROJECT_BINARY_DIR}/man/${page}.1.gz
    COMMAND gzip -9 -n -c ${page}.1 > ${page}.1.gz
    DEPENDS ${PROJECT_BINARY_DIR}/man/${page}.1
    WORKING_DIRECTORY ${PROJECT_BINARY_DIR}/man VERBATIM)
  list(APPEND ply_man_gz ${PROJECT_BINARY_DIR}/man/${page}.1.gz)
endforeach()
add_custom_target(ply_man ALL DEPENDS ${ply_man_gz})
install(FILES ${ply_man_gz} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

# One script serves the three programs; bash-completion loads it by command name.
foreach(prog IN ITEMS ply ply-coordinator ply-worker)
  install(FILES ${PROJECT_SOURCE_DIR}/completions/ply.bash
    DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME ${prog})
endforeach()

# The whole deploy/ folder, read at install time, so files added there since
# the last configure are installed too; scripts keep their executable bit.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/deploy/ DESTINATION ${CMAKE_INSTALL_DATADIR}/ply/deploy
  USE_SOURCE_PERMISSIONS)

# Debian looks for the licence as doc/<package>/copyright; the LICENSE keeps its name too.
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/LICENSE
  DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR} RENAME copyright)
