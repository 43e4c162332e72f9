# The annotated games of ply analyse-pgn (cli/pgn_annotate.c): a game with given engine
# lines and the PGN written from it, against values computed by hand (lichess's rules).
ply_unit_test(test_pgn_annotate
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_pgn_annotate.c
          ${PROJECT_SOURCE_DIR}/cli/pgn_annotate.c ${PROJECT_SOURCE_DIR}/cli/annotate.c
  LIBS ply_arbiter m)
target_include_directories(test_pgn_annotate PRIVATE ${PROJECT_SOURCE_DIR}/cli)
