# Reports, compare, plot, nightly and dump tests (issue 4); included by tests/CMakeLists.txt.
# Tests that need the Python environment (scripts/report-env.sh), gnuplot or chromium are
# skipped (exit 77) with the reason when it is missing.

foreach(t compare dump)
  add_executable(test_${t} ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_${t}.c)
  target_link_libraries(test_${t} PRIVATE xpb)
endforeach()
add_test(NAME unit_compare COMMAND test_compare WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})

set(XPB_REPORT_ENV XPB_REPORT_SCRIPT=${PROJECT_SOURCE_DIR}/reports/report.py)
set(R ${CMAKE_CURRENT_BINARY_DIR}/reporting)

# .npy dump: written and checked in C, then loaded with numpy (skipped without the venv)
add_test(NAME unit_dump COMMAND sh -c "rm -rf '${R}/dump' && exec '$<TARGET_FILE:test_dump>' '${R}/dump'")
set_tests_properties(unit_dump PROPERTIES FIXTURES_SETUP npy_dump)
add_test(NAME report_npy_numpy COMMAND sh -c "py=${PROJECT_SOURCE_DIR}/.venv/bin/python; \
[ -x \"$py\" ] || py=python3; exec \"$py\" ${CMAKE_CURRENT_LIST_DIR}/report_npy_check.py ${R}/dump")
set_tests_properties(report_npy_numpy PROPERTIES FIXTURES_REQUIRED npy_dump SKIP_RETURN_CODE 77)

add_test(NAME report_compare COMMAND ${CMAKE_CURRENT_LIST_DIR}/report_compare.sh ${XPB_BIN} ${R}/compare)
add_test(NAME report_plot COMMAND ${CMAKE_CURRENT_LIST_DIR}/report_plot.sh ${XPB_BIN} ${R}/plot)
add_test(NAME report_html COMMAND ${CMAKE_CURRENT_LIST_DIR}/report_html.sh ${XPB_BIN} ${R}/html)
add_test(NAME report_chromium COMMAND ${CMAKE_CURRENT_LIST_DIR}/report_chromium.sh ${R}/html/report
         ${CMAKE_BINARY_DIR}/artifacts/report-screenshot.png)
add_test(NAME report_nightly COMMAND ${CMAKE_CURRENT_LIST_DIR}/report_nightly.sh ${XPB_BIN} ${R}/nightly)
add_test(NAME report_dump_run COMMAND ${CMAKE_CURRENT_LIST_DIR}/report_dump_run.sh ${XPB_BIN} ${R}/dump_run)
set_tests_properties(report_compare report_plot report_html report_chromium report_nightly report_dump_run
                     PROPERTIES SKIP_RETURN_CODE 77 ENVIRONMENT "${XPB_REPORT_ENV}")
set_tests_properties(report_html PROPERTIES TIMEOUT 600)
# the browser opens the report that report_html wrote
set_tests_properties(report_chromium PROPERTIES DEPENDS report_html)
