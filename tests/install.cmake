# Install and package (tests/install/): the man pages read cleanly and list
# every option of --help, --version names the release, commit, kernel and
# OpenMP, the bash completion offers the options, cmake --install puts every
# file in place, and the Debian package holds them with the right Depends.
set(ply_install_dir ${CMAKE_CURRENT_SOURCE_DIR}/install)
add_test(NAME man_pages COMMAND ${ply_install_dir}/check_man.sh
  ${CMAKE_RUNTIME_OUTPUT_DIRECTORY} ${PROJECT_BINARY_DIR}/man)
add_test(NAME program_version COMMAND ${ply_install_dir}/check_version.sh
  ${CMAKE_RUNTIME_OUTPUT_DIRECTORY} ${PROJECT_SOURCE_DIR} ${PROJECT_VERSION} ${OpenMP_C_VERSION}
  ${PLY_PEXT_KERNEL})
add_test(NAME bash_completion COMMAND ${ply_install_dir}/check_completion.sh
  ${CMAKE_RUNTIME_OUTPUT_DIRECTORY} ${PROJECT_SOURCE_DIR}/completions/ply.bash)
add_test(NAME install_tree COMMAND ${ply_install_dir}/check_install.sh
  ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR})
set_tests_properties(man_pages program_version bash_completion install_tree PROPERTIES
  TIMEOUT 120 LABELS quick SKIP_RETURN_CODE 77)
add_test(NAME deb_package COMMAND ${ply_install_dir}/check_deb.sh
  ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR})
set_tests_properties(deb_package PROPERTIES TIMEOUT 300 LABELS slow SKIP_RETURN_CODE 77)
