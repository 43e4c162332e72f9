# End-to-end tests: the ply, ply-coordinator and ply-worker programs run as a user runs them.
add_executable(test_cli integration/test_cli.c)
target_link_libraries(test_cli PRIVATE ply_flags ply_test_support PkgConfig::CMOCKA PkgConfig::JANSSON)
target_compile_definitions(test_cli PRIVATE PLY_TEST_DATA="${PLY_TEST_DATA}"
  PLY_BIN_DIR="${CMAKE_RUNTIME_OUTPUT_DIRECTORY}")
add_dependencies(test_cli ply ply-worker ply-coordinator ply_fake_uci)
add_test(NAME cli_quick COMMAND test_cli quick)
add_test(NAME cli_cluster COMMAND test_cli cluster)
add_test(NAME cli_suites COMMAND test_cli suites)
set_tests_properties(cli_quick PROPERTIES TIMEOUT 300 LABELS quick SKIP_RETURN_CODE 77)
set_tests_properties(cli_cluster PROPERTIES TIMEOUT 300 LABELS "quick;net" SKIP_RETURN_CODE 77)
set_tests_properties(cli_suites PROPERTIES TIMEOUT 1200 LABELS slow SKIP_RETURN_CODE 77)

# UCI conversations with the real `ply uci` and `ply-worker --uci` (tests/integration/test_uci.c).
add_executable(test_uci integration/test_uci.c)
target_link_libraries(test_uci PRIVATE ply_flags ply_test_support ply_arbiter PkgConfig::CMOCKA PkgConfig::JANSSON)
target_compile_definitions(test_uci PRIVATE PLY_BIN_DIR="${CMAKE_RUNTIME_OUTPUT_DIRECTORY}")
add_dependencies(test_uci ply ply-worker)
add_test(NAME uci_conversation COMMAND test_uci)
set_tests_properties(uci_conversation PROPERTIES TIMEOUT 600 LABELS quick SKIP_RETURN_CODE 77)

# The cluster as one UCI engine: `ply uci --workers 2` and `--coordinator E`
# (tests/integration/test_uci_cluster.c).
add_executable(test_uci_cluster integration/test_uci_cluster.c)
target_link_libraries(test_uci_cluster PRIVATE ply_flags ply_test_support ply_arbiter PkgConfig::CMOCKA PkgConfig::JANSSON)
target_compile_definitions(test_uci_cluster PRIVATE PLY_BIN_DIR="${CMAKE_RUNTIME_OUTPUT_DIRECTORY}")
add_dependencies(test_uci_cluster ply ply-worker ply-coordinator)
add_test(NAME uci_cluster COMMAND test_uci_cluster)
set_tests_properties(uci_cluster PROPERTIES TIMEOUT 900 LABELS "slow;net" SKIP_RETURN_CODE 77)

# The progress display of the long commands (client/progress.c): ETA arithmetic and text.
ply_unit_test(test_progress
  SOURCES unit/test_progress.c
  LIBS ply_display ply_util m)

# Progress lines in a log (stderr not a terminal) and none with --quiet, end to end.
add_executable(test_progress_cli integration/test_progress_cli.c)
target_link_libraries(test_progress_cli PRIVATE ply_flags ply_test_support PkgConfig::CMOCKA PkgConfig::JANSSON)
target_compile_definitions(test_progress_cli PRIVATE
  PLY_BIN_DIR="${CMAKE_RUNTIME_OUTPUT_DIRECTORY}")
add_dependencies(test_progress_cli ply)
add_test(NAME progress_cli COMMAND test_progress_cli)
set_tests_properties(progress_cli PROPERTIES TIMEOUT 600 LABELS net SKIP_RETURN_CODE 77)

# Connection problems told apart at once: bad endpoint, unknown host, refused, wrong CURVE
# server key (tests/integration/test_connect.c).
add_executable(test_connect integration/test_connect.c)
target_link_libraries(test_connect PRIVATE ply_flags ply_test_support PkgConfig::CMOCKA PkgConfig::JANSSON)
target_compile_definitions(test_connect PRIVATE PLY_BIN_DIR="${CMAKE_RUNTIME_OUTPUT_DIRECTORY}")
add_dependencies(test_connect ply ply-worker ply-coordinator)
add_test(NAME connect_errors COMMAND test_connect)
set_tests_properties(connect_errors PROPERTIES TIMEOUT 300 LABELS net SKIP_RETURN_CODE 77)
