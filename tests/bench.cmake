# The bench signatures (ply bench's perft and search node totals) against the latest
# "Bench: N" and "Search-bench: N" commit messages (scripts/check-bench.sh).
add_test(NAME bench_signature COMMAND sh ${PROJECT_SOURCE_DIR}/scripts/check-bench.sh $<TARGET_FILE:ply>)
set_tests_properties(bench_signature PROPERTIES TIMEOUT 300 LABELS quick SKIP_RETURN_CODE 77)
