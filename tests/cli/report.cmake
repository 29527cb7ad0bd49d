# report.cmake - report_demo writes a sample page with every report item for
# tests/cli/browser_report.sh (a real browser loads it).
add_executable(report_demo ${CMAKE_CURRENT_LIST_DIR}/report_demo.c)
target_link_libraries(report_demo PRIVATE latlab_static m)
# Chromium starts several busy processes: run the browser test alone so it
# does not starve the timing-sensitive concurrent tests on a 2-CPU machine.
set_tests_properties(browser_report PROPERTIES RUN_SERIAL TRUE)
