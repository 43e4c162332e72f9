# Multi-host: coordinator and workers in separate network namespaces joined by
# veth pairs, links taken down mid-run. Needs root; skipped (77) otherwise.
add_executable(test_netns ${CMAKE_CURRENT_SOURCE_DIR}/integration/test_netns.c)
target_link_libraries(test_netns PRIVATE ply_flags ply_test_support PkgConfig::CMOCKA PkgConfig::JANSSON)
target_compile_definitions(test_netns PRIVATE PLY_BIN_DIR="${CMAKE_RUNTIME_OUTPUT_DIRECTORY}")
add_dependencies(test_netns ply ply-worker ply-coordinator)
add_test(NAME netns_multihost COMMAND test_netns)
set_tests_properties(netns_multihost PROPERTIES TIMEOUT 300 LABELS "net;slow" SKIP_RETURN_CODE 77)
