# PGN export (issue 30), end to end (tests/integration/test_pgn_export.c): every file of
# tests/data/pgn exported by `ply arbiter --export` in each notation, read back game by game
# and compared with its input; the line rules checked apart by integration/pgn_lines.awk.
add_executable(test_pgn_export integration/test_pgn_export.c)
target_link_libraries(test_pgn_export PRIVATE ply_flags ply_test_support ply_arbiter
  PkgConfig::CMOCKA PkgConfig::JANSSON)
target_compile_definitions(test_pgn_export PRIVATE PLY_TEST_DATA="${PLY_TEST_DATA}"
  PLY_TEST_SRC="${CMAKE_CURRENT_SOURCE_DIR}/integration" PLY_BIN_DIR="$<TARGET_FILE_DIR:ply>")
add_dependencies(test_pgn_export ply)
add_test(NAME pgn_export COMMAND test_pgn_export)
set_tests_properties(pgn_export PROPERTIES TIMEOUT 300 LABELS quick SKIP_RETURN_CODE 77)
