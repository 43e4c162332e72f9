# ply solve (EPD test suites over UCI) against Stockfish 15.1 and against the
# misbehaving modes of tests/support/fake_uci.c (built in tests/support).
add_executable(test_solve ${CMAKE_CURRENT_SOURCE_DIR}/integration/test_solve.c)
target_link_libraries(test_solve PRIVATE ply_flags ply_test_support PkgConfig::CMOCKA PkgConfig::JANSSON)
target_compile_definitions(test_solve PRIVATE PLY_BIN_DIR="${CMAKE_RUNTIME_OUTPUT_DIRECTORY}"
  PLY_TEST_DATA="${PLY_TEST_DATA}")
add_dependencies(test_solve ply ply_fake_uci)
add_test(NAME solve COMMAND test_solve)
set_tests_properties(solve PROPERTIES TIMEOUT 300 LABELS quick SKIP_RETURN_CODE 77)
