# The rule engine, complete (issue 3): SAN, PGN, the end-of-game rules and
# `ply arbiter`. Unit tests of common/arbiter's san, pgn and endgame modules,
# the 100,000-game streaming test, and the end-to-end test of the command.
ply_unit_test(test_arbiter_san
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_arbiter_san.c
  LIBS ply_arbiter
  LABELS quick serial
  TIMEOUT 300)
ply_unit_test(test_arbiter_pgn
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_arbiter_pgn.c
  LIBS ply_arbiter
  LABELS quick serial
  TIMEOUT 300)
ply_unit_test(test_arbiter_endgame
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_arbiter_endgame.c
  LIBS ply_arbiter
  LABELS quick serial
  TIMEOUT 300)
# 100,000 generated games (about 190 MB) written to /tmp and read back with
# the peak RSS checked, every tenth game adjudicated (quick, ~13 s); the
# "full" run adjudicates all of them (slow, ~60 s). Both print the peak RSS.
ply_unit_test(test_arbiter_stream
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_arbiter_stream.c
  LIBS ply_arbiter
  LABELS quick serial
  TIMEOUT 600)
add_test(NAME test_arbiter_stream_full COMMAND test_arbiter_stream full)
set_tests_properties(test_arbiter_stream_full PROPERTIES TIMEOUT 1800 LABELS slow)
# End to end: the built `ply` program on the mixed file of issue 3 and more.
add_executable(test_arbiter_cli integration/test_arbiter_cli.c)
target_link_libraries(test_arbiter_cli PRIVATE ply_flags ply_test_support PkgConfig::CMOCKA PkgConfig::JANSSON)
target_compile_definitions(test_arbiter_cli PRIVATE PLY_TEST_DATA="${PLY_TEST_DATA}"
  PLY_BIN_DIR="$<TARGET_FILE_DIR:ply>")
add_dependencies(test_arbiter_cli ply)
add_test(NAME arbiter_cli COMMAND test_arbiter_cli)
set_tests_properties(arbiter_cli PROPERTIES TIMEOUT 300 LABELS quick SKIP_RETURN_CODE 77)
# Issue 30: a flag fall in each class (art. 6.10) through ply arbiter --flag.
add_executable(test_arbiter_flag_classes integration/test_arbiter_flag_classes.c)
target_link_libraries(test_arbiter_flag_classes PRIVATE ply_flags ply_test_support PkgConfig::CMOCKA PkgConfig::JANSSON)
target_compile_definitions(test_arbiter_flag_classes PRIVATE PLY_BIN_DIR="$<TARGET_FILE_DIR:ply>")
add_dependencies(test_arbiter_flag_classes ply)
add_test(NAME arbiter_flag_classes COMMAND test_arbiter_flag_classes)
set_tests_properties(arbiter_flag_classes PROPERTIES TIMEOUT 300 LABELS quick SKIP_RETURN_CODE 77)
# Unwinnability (issue 14): helpmate lines replayed, static and exhaustive
# "cannot mate" proofs compared with the test's own walk of the reachable set.
ply_unit_test(test_arbiter_unwinnable
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_arbiter_unwinnable.c
  LIBS ply_arbiter
  LABELS quick serial
  TIMEOUT 300)
# Issue 30: the answer never goes from decided to undetermined (or to the other
# answer) as the budget grows, 10^4 to 10^7 nodes on every position above.
ply_unit_test(test_arbiter_unwin_budget
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_arbiter_unwin_budget.c
  LIBS ply_arbiter
  LABELS quick serial
  TIMEOUT 900)
