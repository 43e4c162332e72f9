# Leases and heartbeats, durable state, verification (coordinator/store.c,
# store_read.c, verify.c, settle.c, drill.c, restore.c; worker reconnects):
# unit tests of the state file, the coordinator against fake workers
# (quarantine, hung workers, verify modes), and end-to-end chaos and
# faulty-worker tests with the real programs.

# A worker that corrupts one count in N (--fault-every N), for the
# verification tests only: ply-worker's own sources (worker/main.c and the
# daemon's, as worker/daemon/CMakeLists.txt lists them) compiled with
# PLY_FAULT_INJECTION. Never installed; ply-worker itself has no such code.
get_target_property(ply_daemon_dir ply_worker SOURCE_DIR)
get_target_property(ply_daemon_sources ply_worker SOURCES)
list(TRANSFORM ply_daemon_sources PREPEND "${ply_daemon_dir}/")
add_executable(ply-worker-faulty ${PROJECT_SOURCE_DIR}/worker/main.c ${ply_daemon_sources})
target_compile_definitions(ply-worker-faulty PRIVATE PLY_FAULT_INJECTION)
target_include_directories(ply-worker-faulty PRIVATE ${ply_daemon_dir})
target_link_libraries(ply-worker-faulty PRIVATE ply_analysis ply_perft ply_search ply_proto ply_uci ply_flags)

# The state file: write, read back, refuse foreign, damaged, newer or shared files.
ply_unit_test(test_store
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_store.c
  LIBS ply_coordinator PkgConfig::SQLITE3
  LABELS quick
  TIMEOUT 120)

# The coordinator against fake workers: quarantine, hangs, verify modes, restarts.
ply_unit_test(test_resilience
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_resilience.c
  LIBS ply_coordinator ply_client Threads::Threads
  LABELS quick net
  TIMEOUT 180)

# End to end with the real programs (tests/integration/test_chaos.c): chaos
# during Kiwipete perft(6) (a worker killed, a worker stopped past its
# liveness, the coordinator killed and restarted), the faulty worker under
# --verify all, the detach/status/result commands; "slow" does it all in one
# longer run.
add_executable(test_chaos ${CMAKE_CURRENT_SOURCE_DIR}/integration/test_chaos.c)
target_link_libraries(test_chaos PRIVATE ply_flags ply_test_support ply_client PkgConfig::CMOCKA PkgConfig::JANSSON
  PkgConfig::SQLITE3)
target_compile_definitions(test_chaos PRIVATE PLY_BIN_DIR="${CMAKE_RUNTIME_OUTPUT_DIRECTORY}")
add_dependencies(test_chaos ply ply-worker ply-worker-faulty ply-coordinator)
add_test(NAME chaos COMMAND test_chaos chaos)
add_test(NAME chaos_verify COMMAND test_chaos verify)
add_test(NAME chaos_cli COMMAND test_chaos cli)
add_test(NAME chaos_slow COMMAND test_chaos slow)
set_tests_properties(chaos chaos_verify PROPERTIES TIMEOUT 400 LABELS "net" SKIP_RETURN_CODE 77)
# chaos_cli's resumed perft may take 120 s x PLY_TEST_SLOWDOWN under a sanitizer
set_tests_properties(chaos_cli PROPERTIES TIMEOUT 1200 LABELS "net" SKIP_RETURN_CODE 77)
set_tests_properties(chaos_slow PROPERTIES TIMEOUT 900 LABELS "slow;net" SKIP_RETURN_CODE 77)

# The rule engine's floor of checks (perft/verify.c): two ply-worker-faulty with the same bug
# and different seeds under --verify sample=0.5 fail the run, never print their wrong total
# (tests/integration/trust_floor.sh).
add_test(NAME trust_floor
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/trust_floor.sh $<TARGET_FILE_DIR:ply>)
set_tests_properties(trust_floor PROPERTIES TIMEOUT 300 LABELS "quick;net")

# A submission durable before it is acknowledged (issue 27, case 2): ply-coordinator killed at
# a fault point between a Submit and its stored jobs (PLY_FAULT_POINT, coordinator/fault.h),
# restarted on its state file; the re-sent Submit (same idempotency key) is the one run and
# gets perft(5) = 4,865,609 (tests/integration/test_durable_submit.c).
add_executable(test_durable_submit ${CMAKE_CURRENT_SOURCE_DIR}/integration/test_durable_submit.c)
target_link_libraries(test_durable_submit PRIVATE ply_flags ply_test_support ply_proto ply_util
  PkgConfig::CMOCKA PkgConfig::SQLITE3)
add_dependencies(test_durable_submit ply-worker ply-coordinator)
foreach(point stored received plan)
  add_test(NAME durable_submit_${point} COMMAND test_durable_submit ${point})
  set_tests_properties(durable_submit_${point} PROPERTIES TIMEOUT 300 LABELS "quick;net"
    SKIP_RETURN_CODE 77)
endforeach()

# A worker comes back to every restart of its coordinator (tests/integration/test_reconnect.c):
# ply-coordinator killed 0-50 ms after the worker joined, restarted on its port at once or past
# the worker's liveness, 20 times, without and with a state file; then perft(3) = 8,902.
add_executable(test_reconnect ${CMAKE_CURRENT_SOURCE_DIR}/integration/test_reconnect.c)
target_link_libraries(test_reconnect PRIVATE ply_flags ply_test_support PkgConfig::CMOCKA)
add_dependencies(test_reconnect ply ply-worker ply-coordinator)
foreach(mode plain state)
  add_test(NAME reconnect_${mode} COMMAND test_reconnect ${mode})
  set_tests_properties(reconnect_${mode} PROPERTIES TIMEOUT 300 LABELS "quick;net"
    SKIP_RETURN_CODE 77)
endforeach()

# A state file written by the landed ply at f2a009b (format 4, PLY/1; tests/data/state-f2a009b,
# made by its make.sh with that commit's programs) with unfinished perft and search runs is
# migrated, restored and finished by this build with the right answers.
add_test(NAME state_upgrade
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/state_upgrade.sh $<TARGET_FILE_DIR:ply>
          ${CMAKE_CURRENT_SOURCE_DIR}/data/state-f2a009b)
set_tests_properties(state_upgrade PROPERTIES TIMEOUT 300 LABELS "quick;net" SKIP_RETURN_CODE 77)

# The trust model: identities (CURVE key or connection), verification by distinct identities,
# exclusion of a worker caught wrong, and the liar harness (tests/unit/test_trust.c).
ply_unit_test(test_trust
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_trust.c
  LIBS ply_coordinator ply_client Threads::Threads
  LABELS quick net
  TIMEOUT 300)
