# Network fuzzing of running programs: 12,000 random and mutated frames each to
# a ply-coordinator and to a ply-worker, which must survive and stay right.
add_executable(test_fuzz ${CMAKE_CURRENT_SOURCE_DIR}/integration/test_fuzz.c)
target_link_libraries(test_fuzz PRIVATE ply_flags ply_test_support ply_proto PkgConfig::CMOCKA PkgConfig::JANSSON)
target_compile_definitions(test_fuzz PRIVATE PLY_BIN_DIR="${CMAKE_RUNTIME_OUTPUT_DIRECTORY}"
  PLY_TEST_DATA="${PLY_TEST_DATA}")
add_dependencies(test_fuzz ply ply-worker ply-coordinator)
add_test(NAME fuzz_net COMMAND test_fuzz)
set_tests_properties(fuzz_net PROPERTIES TIMEOUT 180 LABELS net SKIP_RETURN_CODE 77)
