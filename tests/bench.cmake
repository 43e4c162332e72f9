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
# --eval both with a net file (a random material net, tests/support/nnue_random.h): the
# default's signature line once, the other evaluation's lines under their name, the ratio;
# a net file that is not there, and --eval with --perft, are refused (exit 2).
add_test(NAME bench_eval_both COMMAND sh -c
  "net=$(mktemp) && $1 --material $net 128 && out=$($0 bench --search --eval both --eval-file $net) && rm -f $net && [ $(printf '%s\\n' \"$out\" | grep -c '^Search nodes: [0-9]') = 1 ] && printf '%s\\n' \"$out\" | grep -Eq '^(NNUE|Classical) search nodes: [0-9]' && printf '%s\\n' \"$out\" | grep -q '^NNUE / classical nodes per second: ' && { bad=$($0 bench --search --eval-file /nonexistent/x.nnue 2>&1); [ $? = 2 ]; } && printf '%s' \"$bad\" | grep -q '/nonexistent/x.nnue' && { $0 bench --perft --eval nnue 2>/dev/null; [ $? = 2 ]; }"
  $<TARGET_FILE:ply> $<TARGET_FILE:ply_nnue_random>)
set_tests_properties(bench_eval_both PROPERTIES TIMEOUT 300 LABELS quick)
