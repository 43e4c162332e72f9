# worker/: the analysis engine (search, its table, limits, Lazy SMP). Depth
# and node limits only, so that it takes seconds also under the sanitizers.
ply_unit_test(test_search SOURCES unit/test_search.c LIBS ply_search ply_arbiter LABELS quick TIMEOUT 120)
# Tactics: Win At Chess at a fixed node budget on one thread (deterministic;
# the count it asserts and where it was measured are in the source).
ply_unit_test(test_tactics SOURCES unit/test_tactics.c LIBS ply_search ply_arbiter LABELS quick TIMEOUT 300)
