# ply analyse: its output on synthetic answers (unit), and the command end to end
# (tests/integration/test_analyse.c).
ply_unit_test(test_analyse_out
  SOURCES unit/test_analyse_out.c ${PROJECT_SOURCE_DIR}/cli/analyse_out.c
          ${PROJECT_SOURCE_DIR}/cli/json_exact.c
  LIBS ply_proto ply_util PkgConfig::JANSSON)
target_include_directories(test_analyse_out PRIVATE ${PROJECT_SOURCE_DIR}/cli)
