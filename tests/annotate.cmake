# The move judgements of ply analyse-pgn (client/annotate.c): lichess's winning-chances,
# mate and accuracy rules against values computed by hand.
ply_unit_test(test_annotate
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_annotate.c
  LIBS ply_annotate m)
