# ply analyse-pgn end to end (tests/integration/test_analyse_pgn.c): the annotated
# collection re-read by ply arbiter, shared positions searched once, broken games
# skipped, --state resumed; on the embedded coordinator and on --workers 2.
add_executable(test_analyse_pgn integration/test_analyse_pgn.c)
target_link_libraries(test_analyse_pgn PRIVATE ply_flags ply_test_support PkgConfig::CMOCKA PkgConfig::JANSSON)
target_compile_definitions(test_analyse_pgn PRIVATE PLY_TEST_DATA="${PLY_TEST_DATA}"
  PLY_BIN_DIR="${CMAKE_RUNTIME_OUTPUT_DIRECTORY}")
add_dependencies(test_analyse_pgn ply ply-worker ply-coordinator)
add_test(NAME analyse_pgn_quick COMMAND test_analyse_pgn quick)
add_test(NAME analyse_pgn_cluster COMMAND test_analyse_pgn cluster)
set_tests_properties(analyse_pgn_quick PROPERTIES TIMEOUT 300 LABELS quick SKIP_RETURN_CODE 77)
set_tests_properties(analyse_pgn_cluster PROPERTIES TIMEOUT 300 LABELS "quick;net"
  SKIP_RETURN_CODE 77)
