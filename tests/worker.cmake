# The worker's table and cancellation end to end (tests/integration/test_worker_table.c):
# a coordinator killed and restarted mid-job, then the rerun on the worker's table exact;
# a client's cancel and an expired lease stop the worker's computation; Chess960 positions
# that differ only in their castling rook, and the whole Chess960 suite, on one table.
add_executable(test_worker_table ${CMAKE_CURRENT_SOURCE_DIR}/integration/test_worker_table.c)
target_link_libraries(test_worker_table PRIVATE ply_flags ply_test_support ply_client ply_proto PkgConfig::CMOCKA
  PkgConfig::JANSSON)
target_compile_definitions(test_worker_table PRIVATE PLY_BIN_DIR="${CMAKE_RUNTIME_OUTPUT_DIRECTORY}"
  PLY_TEST_DATA="${PLY_TEST_DATA}")
add_dependencies(test_worker_table ply ply-worker ply-coordinator)
add_test(NAME worker_table_restart COMMAND test_worker_table restart)
add_test(NAME worker_cancel COMMAND test_worker_table cancel)
add_test(NAME worker_table_chess960 COMMAND test_worker_table chess960)
set_tests_properties(worker_table_restart worker_cancel worker_table_chess960 PROPERTIES TIMEOUT 300 LABELS "net"
  SKIP_RETURN_CODE 77)
# worker/engine/eval: evaluation properties; worker/engine/see: exchanges worked out by hand.
ply_unit_test(test_eval SOURCES unit/test_eval.c LIBS ply_eval TIMEOUT 120)
ply_unit_test(test_see SOURCES unit/test_see.c LIBS ply_eval TIMEOUT 120)
# Search jobs on the real worker with a raw ROUTER as the coordinator
# (tests/integration/test_search_jobs.c, tests/support/fake_coord.h), once per analysis
# backend: ply's engine (HELLO's kinds, a WAC mate in 2 replayed by the arbiter, MultiPV
# with searchmoves, illegal moves named, a chunk of a game, a Cancel mid-search, a root
# window's bounds), and an external UCI engine (ply-worker --engine): Debian's Stockfish (the
# same mate, searchmoves, a Cancel, a root window ignored; skipped without
# /usr/games/stockfish), and the fake engine (no MultiPV, dying mid-search, garbage, a bad
# --engine, a root window ignored); ply's engine with a network (--eval-file): the same
# searches, and its checksum in HELLO's engine_id.
add_executable(test_search_jobs ${CMAKE_CURRENT_SOURCE_DIR}/integration/test_search_jobs.c)
target_link_libraries(test_search_jobs PRIVATE ply_flags ply_test_support ply_proto ply_arbiter
  PkgConfig::CMOCKA PkgConfig::JANSSON)
target_compile_definitions(test_search_jobs PRIVATE PLY_BIN_DIR="${CMAKE_RUNTIME_OUTPUT_DIRECTORY}"
  PLY_TEST_DATA="${PLY_TEST_DATA}")
add_dependencies(test_search_jobs ply ply-worker ply-coordinator ply_fake_uci)
add_test(NAME worker_search_jobs COMMAND test_search_jobs builtin)
add_test(NAME worker_search_jobs_nnue COMMAND test_search_jobs builtin-nnue)
add_test(NAME worker_search_jobs_stockfish COMMAND test_search_jobs stockfish)
add_test(NAME worker_search_jobs_fake_uci COMMAND test_search_jobs fake)
add_test(NAME worker_search_jobs_fake_garbage COMMAND test_search_jobs fake-garbage)
add_test(NAME worker_search_jobs_fake_window COMMAND test_search_jobs fake-window)
set_tests_properties(worker_search_jobs worker_search_jobs_nnue worker_search_jobs_stockfish
  worker_search_jobs_fake_uci
  worker_search_jobs_fake_garbage worker_search_jobs_fake_window PROPERTIES TIMEOUT 300
  LABELS "net" SKIP_RETURN_CODE 77)
# Search runs end to end (tests/integration/test_search_runs.c): a real coordinator and
# ply-worker processes through the client library: every root move's line replayed, a mate
# in 2 on top, refusals naming what was wrong, a lying worker's lines refused and re-run, an
# engine no worker has, a coordinator SIGKILLed mid-run and resumed from its state file.
add_executable(test_search_runs ${CMAKE_CURRENT_SOURCE_DIR}/integration/test_search_runs.c)
target_link_libraries(test_search_runs PRIVATE ply_flags ply_test_support ply_client ply_proto ply_arbiter
  PkgConfig::CMOCKA PkgConfig::JANSSON)
target_compile_definitions(test_search_runs PRIVATE PLY_BIN_DIR="${CMAKE_RUNTIME_OUTPUT_DIRECTORY}")
add_dependencies(test_search_runs ply-worker ply-worker-faulty ply-coordinator)
foreach(t startpos mate errors liar engine restart perft-liar uci game game-liar verify)
  add_test(NAME search_runs_${t} COMMAND test_search_runs ${t})
endforeach()
set_tests_properties(search_runs_startpos search_runs_mate search_runs_errors search_runs_liar
  search_runs_engine search_runs_restart search_runs_perft-liar search_runs_uci
  search_runs_game search_runs_game-liar search_runs_verify PROPERTIES TIMEOUT 120 LABELS "net"
  SKIP_RETURN_CODE 77)
# Workers started without --zobrist-seed draw distinct random seeds (issue 27): two of them
# on one coordinator, their seeds in `ply status --json`, and --verify all checked on other keys.
add_test(NAME worker_random_seed
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/worker_seed.sh $<TARGET_FILE_DIR:ply>)
set_tests_properties(worker_random_seed PROPERTIES TIMEOUT 180 LABELS "quick;net")
# Deepening analyses end to end (tests/integration/test_deepen.c, issue 28): iterations reported
# as they complete, the best exact and the others proven worse, whole-analysis limits, an infinite
# analysis canceled into its answer, a worker lost mid-analysis.
add_executable(test_deepen ${CMAKE_CURRENT_SOURCE_DIR}/integration/test_deepen.c)
target_link_libraries(test_deepen PRIVATE ply_flags ply_test_support ply_client ply_proto ply_arbiter
  PkgConfig::CMOCKA)
target_compile_definitions(test_deepen PRIVATE PLY_BIN_DIR="${CMAKE_RUNTIME_OUTPUT_DIRECTORY}")
add_dependencies(test_deepen ply-worker ply-coordinator)
foreach(t startpos mate limits infinite lost)
  add_test(NAME deepen_${t} COMMAND test_deepen ${t})
  set_tests_properties(deepen_${t} PROPERTIES TIMEOUT 180 LABELS "net")
endforeach()
