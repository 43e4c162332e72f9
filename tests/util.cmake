# common/util: exact 128-bit counts (u128), the statistics (their 128-bit sums and their
# rules) and the clock arithmetic (time), one test file each.
ply_unit_test(test_u128 SOURCES unit/test_u128.c LIBS ply_util LABELS quick TIMEOUT 60)
ply_unit_test(test_stats SOURCES unit/test_stats.c LIBS ply_util LABELS quick TIMEOUT 60)
ply_unit_test(test_time SOURCES unit/test_time.c LIBS ply_util LABELS quick TIMEOUT 60)
# common/util/json_exact: counts in ply's JSON output, exact at any size.
ply_unit_test(test_json_exact SOURCES unit/test_json_exact.c LIBS ply_json LABELS quick TIMEOUT 60)
