# common/board: the fast engine core.
ply_unit_test(test_board SOURCES unit/test_board.c LIBS ply_board TIMEOUT 300)
# board against arbiter: two independent move generators must agree.
ply_unit_test(test_differential SOURCES unit/test_differential.c LIBS ply_perft ply_arbiter TIMEOUT 600)
