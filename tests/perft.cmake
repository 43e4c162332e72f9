# worker/perft and worker/tt: counts, tables, statistics, OpenMP runs.
ply_unit_test(test_perft SOURCES unit/test_perft.c LIBS ply_perft PkgConfig::JANSSON TIMEOUT 300)
