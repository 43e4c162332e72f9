# proto/: the wire protocol, one test file per source, on the golden messages of
# tests/support/proto_golden.h. envelope.c: two ctest entries, the quick group (golden
# vectors from protoc, robustness, framing) and the socket group (ROUTER/DEALER round trip
# over inproc, size limit over loopback tcp); envelope_validate.c: every type's rules;
# envelope_search.c: the search kind's messages; envelope_refused.c: the ids read from a
# refused Result. security.c and endpoint.c are tested end
# to end (security.cmake, cli.cmake's connect_errors).
ply_unit_test(test_envelope
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_envelope.c
  LIBS ply_proto
  ARGS quick
  LABELS quick
  TIMEOUT 120)
add_test(NAME test_envelope_net COMMAND test_envelope net)
set_tests_properties(test_envelope_net PROPERTIES TIMEOUT 60 LABELS "quick;net" SKIP_RETURN_CODE 77)
ply_unit_test(test_envelope_validate
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_envelope_validate.c
  LIBS ply_proto
  LABELS quick
  TIMEOUT 120)
ply_unit_test(test_envelope_search
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_envelope_search.c
  LIBS ply_proto
  LABELS quick
  TIMEOUT 120)
ply_unit_test(test_envelope_refused
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_envelope_refused.c
  LIBS ply_proto
  LABELS quick
  TIMEOUT 60)
