# Transport security end to end: ply keygen, the loopback-only bind policy,
# CURVE with allow directories (unknown keys refused, roles kept apart).
add_executable(test_security ${CMAKE_CURRENT_SOURCE_DIR}/integration/test_security.c)
target_link_libraries(test_security PRIVATE ply_flags ply_test_support ply_proto PkgConfig::CMOCKA PkgConfig::JANSSON)
target_compile_definitions(test_security PRIVATE PLY_BIN_DIR="${CMAKE_RUNTIME_OUTPUT_DIRECTORY}")
add_dependencies(test_security ply ply-worker ply-coordinator)
add_test(NAME security COMMAND test_security)
set_tests_properties(security PROPERTIES TIMEOUT 180 LABELS "quick;net" SKIP_RETURN_CODE 77)
