# tools/nnue/: ply-datagen end to end on a few short games (integration/datagen.sh).
add_test(NAME datagen COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/datagen.sh
  ${PROJECT_SOURCE_DIR} ${CMAKE_BINARY_DIR}/bin)
set_tests_properties(datagen PROPERTIES TIMEOUT 300 LABELS quick)
