# What a client may trust and do about runs: run identity, ownership, honest figures
# (issue 9, items 5, 7, 10); waits through a coordinator restart, a Submit sent again
# with its idempotency key, timeouts that name their cause (issue 27). The ply programs
# as a user runs them, and the client library against a scripted fake coordinator.
add_executable(test_clients integration/test_clients.c)
target_link_libraries(test_clients PRIVATE ply_flags ply_test_support ply_client PkgConfig::CMOCKA
  PkgConfig::JANSSON Threads::Threads)
target_compile_definitions(test_clients PRIVATE PLY_BIN_DIR="${CMAKE_RUNTIME_OUTPUT_DIRECTORY}")
add_dependencies(test_clients ply ply-worker ply-coordinator)
add_test(NAME test_clients COMMAND test_clients)
set_tests_properties(test_clients PROPERTIES TIMEOUT 300 LABELS "quick;net" SKIP_RETURN_CODE 77)
