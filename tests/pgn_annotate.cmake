# The annotated games of ply analyse-pgn (client/pgn_annotate.c): a game with given engine
# lines and the PGN written from it, against values computed by hand (lichess's rules).
ply_unit_test(test_pgn_annotate
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_pgn_annotate.c
  LIBS ply_annotate ply_arbiter m)
