# Arbiter unit tests (tests/unit/test_arbiter.c). One executable, two ctest
# entries: the quick group by default, the deeper perft and stats counts
# with the argument "slow".
ply_unit_test(test_arbiter
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_arbiter.c
  LIBS ply_arbiter PkgConfig::JANSSON
  LABELS quick serial
  TIMEOUT 120)
add_test(NAME test_arbiter_slow COMMAND test_arbiter slow)
set_tests_properties(test_arbiter_slow PROPERTIES TIMEOUT 2400 LABELS slow SKIP_RETURN_CODE 77)

# The rule engine's perft speed (tests/bench/bench_arbiter.c): run it by hand
# with no argument; ctest runs it one ply shallower as a count check.
add_executable(bench_arbiter ${CMAKE_CURRENT_SOURCE_DIR}/bench/bench_arbiter.c)
target_link_libraries(bench_arbiter PRIVATE ply_flags ply_arbiter)
add_test(NAME bench_arbiter_smoke COMMAND bench_arbiter 1)
set_tests_properties(bench_arbiter_smoke PROPERTIES TIMEOUT 60 LABELS quick)
