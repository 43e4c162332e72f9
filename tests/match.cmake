# ply match (games between UCI engines, refereed by the arbiter) against
# Stockfish 15.1 and the misbehaving modes of tests/support/fake_uci.c
# (built in tests/support); the Elo arithmetic and the opening book.
add_executable(test_match ${CMAKE_CURRENT_SOURCE_DIR}/integration/test_match.c)
target_link_libraries(test_match PRIVATE ply_flags ply_test_support PkgConfig::CMOCKA PkgConfig::JANSSON)
target_compile_definitions(test_match PRIVATE PLY_BIN_DIR="${CMAKE_RUNTIME_OUTPUT_DIRECTORY}"
  PLY_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_dependencies(test_match ply ply_fake_uci)
add_test(NAME match COMMAND test_match)
set_tests_properties(match PROPERTIES TIMEOUT 600 LABELS quick SKIP_RETURN_CODE 77)

ply_unit_test(test_elo
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_elo.c
  LIBS ply_match m)
ply_unit_test(test_book
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_book.c
  LIBS ply_match ply_arbiter)
target_compile_definitions(test_book PRIVATE PLY_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
