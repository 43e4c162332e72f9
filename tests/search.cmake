# worker/: the analysis engine (search, its table, limits, Lazy SMP). Depth
# and node limits only, so that it takes seconds also under the sanitizers.
ply_unit_test(test_search SOURCES unit/test_search.c LIBS ply_search ply_arbiter LABELS quick TIMEOUT 120)
# Tactics: Win At Chess at a fixed node budget on one thread (deterministic;
# the count it asserts and where it was measured are in the source).
ply_unit_test(test_tactics SOURCES unit/test_tactics.c LIBS ply_search ply_arbiter LABELS quick TIMEOUT 300)
# What a root window saves (tests/bench/bench_window.c): a root move's nodes with a null
# window against the full window, on middlegame positions; run it by hand (depth 10 by
# default); ctest runs it at depth 4 as a check that every null window gives its bound.
add_executable(bench_window ${CMAKE_CURRENT_SOURCE_DIR}/bench/bench_window.c)
target_link_libraries(bench_window PRIVATE ply_flags ply_search)
add_test(NAME bench_window_smoke COMMAND bench_window 4)
set_tests_properties(bench_window_smoke PROPERTIES TIMEOUT 60 LABELS quick)
# The coordinator's deepening analysis over a simulated cluster (tests/bench/bench_deepen_sim.c,
# issue 28): time to depth, idle time and the coordinator's CPU at 1..64 workers, each a builtin
# backend with a virtual clock; run it by hand (BENCHMARKS.md has the command). A bench links the
# coordinator's deepen.c and the worker's backend together, which no product target does.
# ctest runs it at depth 7 on 2 positions and 1, 2 and 8 workers (8: the eldest brother's split,
# its replies as jobs, from depth 6): each run must reach the depth with a best move the rule
# engine finds legal.
add_executable(bench_deepen_sim ${CMAKE_CURRENT_SOURCE_DIR}/bench/bench_deepen_sim.c)
target_link_libraries(bench_deepen_sim PRIVATE ply_flags ply_coordinator ply_analysis ply_arbiter
  ply_proto m)
target_compile_definitions(bench_deepen_sim PRIVATE PLY_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_test(NAME bench_deepen_sim_smoke COMMAND bench_deepen_sim --depth 7 --workers 1,2,8 --limit 2)
set_tests_properties(bench_deepen_sim_smoke PROPERTIES TIMEOUT 60 LABELS quick)
# The evaluation network (worker/engine/nnue.h): the file's checks, the contract's formula
# computed here from the file's bytes, the incremental accumulator against a refresh in
# random games (Chess960 too), SIMD against portable; random-weight nets (nnue_random.h).
ply_unit_test(test_nnue SOURCES unit/test_nnue.c LIBS ply_eval LABELS quick TIMEOUT 120)
# The search with a network (a random material net): every accumulator it brings up to date
# against a refresh (1 and 2 threads, Chess960 too), the same answer twice, the draws kept.
ply_unit_test(test_nnue_search SOURCES unit/test_nnue_search.c LIBS ply_search LABELS quick TIMEOUT 120)
# What sharing table entries between engines gives, in one process (tests/bench/bench_lazy.c,
# issue 28's lazy cluster); the smoke run only keeps it working.
add_executable(bench_lazy ${CMAKE_CURRENT_SOURCE_DIR}/bench/bench_lazy.c)
target_link_libraries(bench_lazy PRIVATE ply_flags ply_search m)
target_compile_definitions(bench_lazy PRIVATE PLY_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_test(NAME bench_lazy_smoke COMMAND bench_lazy --depth 6 --limit 2 --repeat 1 --hash 4)
set_tests_properties(bench_lazy_smoke PROPERTIES TIMEOUT 60 LABELS quick)
