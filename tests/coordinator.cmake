# coordinator/: the split planner (quick, arbiter only) and the service with
# its client library against fake workers over inproc and loopback tcp (the fake
# worker and the in-process coordinator are fixtures of tests/support).
ply_unit_test(test_split
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_split.c
  LIBS ply_coordinator
  LABELS quick
  TIMEOUT 120)

ply_unit_test(test_coordinator
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_coordinator.c
  LIBS ply_coordinator ply_client PkgConfig::JANSSON Threads::Threads
  LABELS quick net
  TIMEOUT 180)
# The coordinator with processes (tests/integration/test_coordinator_spawn.c): local workers
# started with uv_spawn, and the ply-coordinator daemon with local fake workers.
ply_unit_test(test_coordinator_spawn
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/integration/test_coordinator_spawn.c
  LIBS ply_coordinator ply_client Threads::Threads
  ARGS $<TARGET_FILE:ply_fake_worker> $<TARGET_FILE:ply-coordinator>
  LABELS quick net
  TIMEOUT 180)
add_dependencies(test_coordinator_spawn ply_fake_worker ply-coordinator)

# the daemon's command line: --help, usage errors (2), a bind failure (1)
add_test(NAME ply_coordinator_help COMMAND ply-coordinator --help)
add_test(NAME ply_coordinator_usage
  COMMAND sh -c "\"$0\" --bogus 2>/dev/null; test $? -eq 2 && \"$0\" 2>/dev/null; test $? -eq 2"
          $<TARGET_FILE:ply-coordinator>)
add_test(NAME ply_coordinator_bind_failure
  COMMAND sh -c "out=$(\"$0\" --bind tcp://1.2.3.4:5 --insecure 2>&1); test $? -eq 1 && echo \"$out\" | grep -q 'cannot bind tcp://1.2.3.4:5'"
          $<TARGET_FILE:ply-coordinator>)
# bad --bind, --http and token values (2 or 1, with the reason), the real port for :0
add_test(NAME ply_coordinator_cli
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/coordinator_cli.sh $<TARGET_FILE:ply-coordinator>)
set_tests_properties(ply_coordinator_help ply_coordinator_usage ply_coordinator_bind_failure
  ply_coordinator_cli PROPERTIES TIMEOUT 30 LABELS quick)
# Issue 27, case 1: a --verify sample run with jobs inside the rule engine's budget, on a
# coordinator and two workers: another client's perft(3) is answered at once, the run has no
# idle tail behind the rule engine (tests/integration/rule_engine_stall.sh).
add_test(NAME rule_engine_stall
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/rule_engine_stall.sh $<TARGET_FILE_DIR:ply>)
set_tests_properties(rule_engine_stall PROPERTIES TIMEOUT 300 LABELS "quick;net")
# The search kind in process (tests/unit/test_search_kind.c): a scripted search worker, the
# sorted answer, progress, and a restore from the state file, under the sanitizers' eyes.
ply_unit_test(test_search_kind
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_search_kind.c
  LIBS ply_coordinator ply_client Threads::Threads
  LABELS quick net
  TIMEOUT 120)
# Search runs under --verify and refused search results (tests/unit/test_search_verify.c):
# a liar among scripted workers caught and excluded, a sample, no second worker, a worker
# whose malformed results fail their attempts at once.
ply_unit_test(test_search_verify
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_search_verify.c
  LIBS ply_coordinator ply_client Threads::Threads
  LABELS quick net
  TIMEOUT 120)

# the automatic split on simulated clusters of 16 and 64 worker threads (issue 13)
ply_unit_test(test_split_fit
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_split_fit.c
  LIBS ply_coordinator ply_client Threads::Threads
  LABELS net
  TIMEOUT 240)
# The proof that the job-kind seam is real (tests/unit/test_kind_toy.c): a third kind, the sum
# of a range, registered from the test alone, through dispatch, credit, leases, a killed
# worker, a restart on the state file and --verify all with a liar.
ply_unit_test(test_kind_toy
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_kind_toy.c
  LIBS ply_coordinator ply_client Threads::Threads
  LABELS quick net
  TIMEOUT 120)

# the rule engine's own pool: urgent items first, every done once, stop cancels
ply_unit_test(test_rule_pool
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_rule_pool.c
  LIBS ply_coordinator
  LABELS quick
  TIMEOUT 60)
# The deepening analysis's facts and picks without a cluster (tests/unit/test_deepen.c): its
# iterations, a fail high searched again, multipv, the split of the eldest a ply deeper.
ply_unit_test(test_deepen_facts
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_deepen.c
  LIBS ply_coordinator
  LABELS quick)
