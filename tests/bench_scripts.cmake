# The strength scripts of bench/ (tactics, positional, match, smp) at tiny
# limits, with the fake UCI engine as "ply" and Stockfish 15.1 as the reference.
add_test(NAME bench_scripts COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/bench_scripts.sh
  ${PROJECT_SOURCE_DIR} ${CMAKE_RUNTIME_OUTPUT_DIRECTORY})
set_tests_properties(bench_scripts PROPERTIES TIMEOUT 300 LABELS quick SKIP_RETURN_CODE 77)

# The quiet build of the Makefile (scripts/quiet-build.sh) on a throwaway project.
add_test(NAME quiet_build COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/quiet_build.sh
  ${PROJECT_SOURCE_DIR})
set_tests_properties(quiet_build PROPERTIES TIMEOUT 120 LABELS quick)
