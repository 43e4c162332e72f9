# Arbiter unit tests (tests/unit/test_arbiter.c). One executable, two ctest
# entries: the quick group by default, the deeper perft and stats counts
# with the argument "slow".
ply_unit_test(test_arbiter
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_arbiter.c
  LIBS ply_arbiter PkgConfig::JANSSON
  LABELS quick
  TIMEOUT 120)
add_test(NAME test_arbiter_slow COMMAND test_arbiter slow)
set_tests_properties(test_arbiter_slow PROPERTIES TIMEOUT 2400 LABELS slow SKIP_RETURN_CODE 77)
