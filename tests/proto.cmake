# proto/: the wire protocol. One executable, two ctest entries: the quick
# group (golden vectors from protoc, robustness, validation) and the socket
# group (ROUTER/DEALER round trip over inproc, size limit over loopback tcp).
ply_unit_test(test_proto
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_proto.c
  LIBS ply_proto
  ARGS quick
  LABELS quick
  TIMEOUT 120)
add_test(NAME test_proto_net COMMAND test_proto net)
set_tests_properties(test_proto_net PROPERTIES TIMEOUT 60 LABELS "quick;net" SKIP_RETURN_CODE 77)
