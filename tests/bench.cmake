# The bench signature (ply bench's node total) against the latest "Bench: N" commit message.
add_test(NAME bench_signature COMMAND sh ${PROJECT_SOURCE_DIR}/scripts/check-bench.sh $<TARGET_FILE:ply>)
set_tests_properties(bench_signature PROPERTIES TIMEOUT 300 LABELS quick SKIP_RETURN_CODE 77)
