# The bench signatures (ply bench's perft and search node totals) against the latest
# "Bench: N" and "Search-bench: N" commit messages (scripts/check-bench.sh).
add_test(NAME bench_signature COMMAND sh ${PROJECT_SOURCE_DIR}/scripts/check-bench.sh $<TARGET_FILE:ply>)
set_tests_properties(bench_signature PROPERTIES TIMEOUT 300 LABELS quick SKIP_RETURN_CODE 77)
# The search part's JSON gives each position's FEN (not "startpos") and its
# text times in milliseconds (a short position printed "0.000 s").
add_test(NAME bench_search_output COMMAND sh -c
  "out=$($0 bench --search --json) && ! printf '%s' \"$out\" | grep -q '\"fen\": *\"startpos\"' && printf '%s' \"$out\" | grep -q 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1' && $0 bench --search | grep -q ' ms '"
  $<TARGET_FILE:ply>)
set_tests_properties(bench_search_output PROPERTIES TIMEOUT 300 LABELS quick)
