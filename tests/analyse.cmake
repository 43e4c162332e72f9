# ply analyse: its output on synthetic answers (unit), and the command end to end
# (tests/integration/test_analyse.c).
ply_unit_test(test_analyse_out
  SOURCES unit/test_analyse_out.c
  LIBS ply_display ply_proto ply_json)

add_executable(test_analyse integration/test_analyse.c)
target_link_libraries(test_analyse PRIVATE ply_flags ply_test_support ply_arbiter ply_proto PkgConfig::CMOCKA
  PkgConfig::JANSSON)
target_compile_definitions(test_analyse PRIVATE PLY_TEST_DATA="${PLY_TEST_DATA}"
  PLY_BIN_DIR="${CMAKE_RUNTIME_OUTPUT_DIRECTORY}")
add_dependencies(test_analyse ply ply-worker ply-coordinator)
add_test(NAME analyse_quick COMMAND test_analyse quick)
add_test(NAME analyse_cluster COMMAND test_analyse cluster)
add_test(NAME analyse_deepen COMMAND test_analyse deepen)
set_tests_properties(analyse_quick PROPERTIES TIMEOUT 300 LABELS quick SKIP_RETURN_CODE 77)
set_tests_properties(analyse_cluster PROPERTIES TIMEOUT 600 LABELS "slow;net"
  SKIP_RETURN_CODE 77)
set_tests_properties(analyse_deepen PROPERTIES TIMEOUT 300 LABELS "quick;net"
  SKIP_RETURN_CODE 77)
