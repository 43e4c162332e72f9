# The move judgements of ply analyse-pgn (cli/annotate.c): lichess's winning-chances,
# mate and accuracy rules against values computed by hand.
ply_unit_test(test_annotate
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_annotate.c ${PROJECT_SOURCE_DIR}/cli/annotate.c
  LIBS m)
target_include_directories(test_annotate PRIVATE ${PROJECT_SOURCE_DIR}/cli)
