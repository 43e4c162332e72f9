# Exact sums above a job (issue 9, item 3): a coordinator summing job counts
# near 2^64 from a fake worker (--inflate) past 2^64, exactly, across restarts
# on its state file; and the ply command printing such a run in text and JSON.
ply_unit_test(test_exact_sums
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_exact_sums.c
  LIBS ply_coordinator ply_client Threads::Threads
  LABELS quick net
  TIMEOUT 300)

add_executable(test_exact_cli integration/test_exact_cli.c)
target_link_libraries(test_exact_cli PRIVATE ply_flags ply_test_support PkgConfig::CMOCKA PkgConfig::JANSSON)
target_compile_definitions(test_exact_cli PRIVATE PLY_BIN_DIR="${CMAKE_RUNTIME_OUTPUT_DIRECTORY}")
add_dependencies(test_exact_cli ply ply-coordinator ply_fake_worker)
add_test(NAME test_exact_cli COMMAND test_exact_cli $<TARGET_FILE:ply_fake_worker>)
set_tests_properties(test_exact_cli PROPERTIES TIMEOUT 300 LABELS "quick;net" SKIP_RETURN_CODE 77)
