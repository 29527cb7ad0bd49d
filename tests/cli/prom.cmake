# prom.cmake - prom_hlog_gen writes interval logs of known latency
# distributions for the Prometheus tests (tests/cli/prom_fleet.sh), so two
# "hosts" serve deterministic histograms.  The fleet test starts Prometheus
# and a Pushgateway: run it alone so its 1 s scrapes are not starved.
add_executable(prom_hlog_gen ${CMAKE_CURRENT_LIST_DIR}/prom_hlog_gen.c)
target_link_libraries(prom_hlog_gen PRIVATE latlab_static m)
set_tests_properties(prom_fleet PROPERTIES RUN_SERIAL TRUE)
