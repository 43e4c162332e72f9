# common/util: exact 128-bit counts (u128) and the 128-bit statistics sums.
ply_unit_test(test_u128 SOURCES unit/test_u128.c LIBS ply_util LABELS quick TIMEOUT 60)
# common/util/json_exact: counts in ply's JSON output, exact at any size.
ply_unit_test(test_json_exact SOURCES unit/test_json_exact.c LIBS ply_json LABELS quick TIMEOUT 60)
