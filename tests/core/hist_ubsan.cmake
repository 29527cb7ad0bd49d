# hist_ubsan.cmake - test_hist_overflow again under UBSan, whatever the
# build's LAT_SANITIZE: lat_hist_record_n is inline (compiled into the test
# itself) and the library's core/hist.c is compiled in here too, so a signed
# overflow in recording or merging stops the test (no recovery).
if(NOT LAT_SANITIZE)
  add_executable(test_hist_overflow_ubsan ${CMAKE_CURRENT_LIST_DIR}/test_hist_overflow.c
    ${PROJECT_SOURCE_DIR}/core/hist.c)
  target_include_directories(test_hist_overflow_ubsan PRIVATE ${PROJECT_SOURCE_DIR}/core)
  target_compile_options(test_hist_overflow_ubsan PRIVATE -fsanitize=undefined
    -fno-sanitize-recover=all)
  target_link_options(test_hist_overflow_ubsan PRIVATE -fsanitize=undefined)
  target_link_libraries(test_hist_overflow_ubsan PRIVATE lat_testsupport)
  add_test(NAME test_hist_overflow_ubsan COMMAND test_hist_overflow_ubsan)
  set_tests_properties(test_hist_overflow_ubsan PROPERTIES LABELS unit TIMEOUT 300
    ENVIRONMENT "UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1")
endif()
