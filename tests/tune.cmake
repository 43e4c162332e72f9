# tools/tune/: ply-tune end to end on small inputs (integration/tune.sh).
add_test(NAME tune COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/tune.sh
  ${PROJECT_SOURCE_DIR} ${CMAKE_BINARY_DIR}/bin)
set_tests_properties(tune PROPERTIES TIMEOUT 120 LABELS quick)
