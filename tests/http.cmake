# Status over HTTP (coordinator/http.h), through ply-coordinator --http with a real worker:
# /status and /metrics after a perft run (the metrics read by Debian's python3-prometheus-client),
# the page, malformed, oversized, slow and many requests, and the token (tests/integration/test_http.py).
foreach(part status abuse token)
  add_test(NAME http_${part}
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/integration/test_http.py
            ${CMAKE_RUNTIME_OUTPUT_DIRECTORY} ${part})
  set_tests_properties(http_${part} PROPERTIES TIMEOUT 180 LABELS "net" SKIP_RETURN_CODE 77)
endforeach()
# The snapshot's rendering alone (tests/unit/test_status_render.c): exact counts past 2^64,
# escaped label values, HELP and TYPE before every family.
ply_unit_test(test_status_render
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_status_render.c
  LIBS ply_coordinator
  LABELS quick
  TIMEOUT 60)
# The live page in headless Chromium (Debian's chromium, chromium-driver, python3-selenium)
# during a perft run: the bar advances, the worker is listed, two screenshots kept in
# tests/artifacts/ of the build tree, no request to another host, the right answer
# (tests/integration/test_dashboard_browser.py).
add_test(NAME http_browser
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/integration/test_dashboard_browser.py
          ${CMAKE_RUNTIME_OUTPUT_DIRECTORY} ${CMAKE_BINARY_DIR}/tests/artifacts)
set_tests_properties(http_browser PROPERTIES TIMEOUT 180 LABELS "net" SKIP_RETURN_CODE 77)
# The page during an analysis (the same script, part "analysis"): a search run's board drawn
# from its FEN, its lines in SAN with scores and depth while it runs (Kiwipete), for its owner
# only, WAC.027's mate in 2 after, the charts' axes (round ticks, units, no duplicate labels,
# "no data yet"); screenshots tests/artifacts/analysis-1.png and -2.png.
add_test(NAME http_browser_analysis
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/integration/test_dashboard_browser.py
          ${CMAKE_RUNTIME_OUTPUT_DIRECTORY} ${CMAKE_BINARY_DIR}/tests/artifacts analysis)
set_tests_properties(http_browser_analysis PROPERTIES TIMEOUT 180 LABELS "net" SKIP_RETURN_CODE 77)
