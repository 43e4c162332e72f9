# common/util: exact 128-bit counts (u128) and the 128-bit statistics sums.
ply_unit_test(test_u128 SOURCES unit/test_u128.c LIBS ply_util LABELS quick TIMEOUT 60)
# cli/json_exact: counts in the ply command's JSON output, exact at any size.
ply_unit_test(test_json_exact SOURCES unit/test_json_exact.c ${PROJECT_SOURCE_DIR}/cli/json_exact.c
  LIBS ply_util PkgConfig::JANSSON LABELS quick TIMEOUT 60)
target_include_directories(test_json_exact PRIVATE ${PROJECT_SOURCE_DIR}/cli)
