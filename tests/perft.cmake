# worker/engine/tt: the table alone.
ply_unit_test(test_tt SOURCES unit/test_tt.c LIBS ply_perft TIMEOUT 120)
# worker/engine/perft: counts, tables, statistics, OpenMP runs.
# Run once per slider kernel: PLY_SLIDERS picks it (pext only where the CPU has BMI2).
ply_unit_test(test_perft SOURCES unit/test_perft.c LIBS ply_perft PkgConfig::JANSSON TIMEOUT 300)
set_tests_properties(test_perft PROPERTIES ENVIRONMENT PLY_SLIDERS=magic)
add_test(NAME test_perft_pext COMMAND test_perft)
set_tests_properties(test_perft_pext PROPERTIES ENVIRONMENT PLY_SLIDERS=pext TIMEOUT 300 LABELS quick)
