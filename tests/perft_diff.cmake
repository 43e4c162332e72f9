# ply perft-diff against Stockfish and against a deliberately buggy UCI engine
# (tests/support/fake_uci.c, built on the fast board), plus engines that
# fail to start, hang, die or print nonsense.
add_executable(test_perft_diff ${CMAKE_CURRENT_SOURCE_DIR}/integration/test_perft_diff.c)
target_link_libraries(test_perft_diff PRIVATE ply_flags ply_test_support PkgConfig::CMOCKA PkgConfig::JANSSON)
target_compile_definitions(test_perft_diff PRIVATE PLY_BIN_DIR="${CMAKE_RUNTIME_OUTPUT_DIRECTORY}")
add_dependencies(test_perft_diff ply ply_fake_uci)
add_test(NAME perft_diff COMMAND test_perft_diff)
set_tests_properties(perft_diff PROPERTIES TIMEOUT 300 LABELS quick SKIP_RETURN_CODE 77)
