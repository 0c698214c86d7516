# One CTest test per Catch2 test case of a test binary, named exactly as the case, whatever
# characters the name holds. Catch2's own catch_discover_tests splits a name at ';' (a CMake
# list separator) into entries that match no case, and Catch, asked for a case that does not
# exist, runs nothing and exits 0: CTest called such tests passed. Here the names are read
# without list splitting (catch_tests_file.cmake), every character Catch's test-spec parser
# treats specially is escaped, and each test runs with `--warn NoTests`, so an entry that
# matches no case fails. scripts/tests-ran.py checks after a run that every case ran.
#
#   bnn_catch_tests(TARGET)   after add_executable(TARGET ...)
set(_bnn_catch_tests_script "${CMAKE_CURRENT_LIST_DIR}/catch_tests_file.cmake")

function(bnn_catch_tests target)
  set(tests_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_tests.cmake")
  set(include_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_include.cmake")
  add_custom_command(
    TARGET ${target} POST_BUILD
    BYPRODUCTS "${tests_file}"
    COMMAND "${CMAKE_COMMAND}" -D "TEST_EXECUTABLE=$<TARGET_FILE:${target}>" -D "TESTS_FILE=${tests_file}"
            -D "WORKING_DIR=${CMAKE_CURRENT_BINARY_DIR}" -P "${_bnn_catch_tests_script}"
    VERBATIM)
  # Before the first build there is no list yet: one test that says so fails instead.
  file(WRITE "${include_file}"
       "if(EXISTS \"${tests_file}\")\n"
       "  include(\"${tests_file}\")\n"
       "else()\n"
       "  add_test(${target}_NOT_BUILT \"${CMAKE_COMMAND}\" -E echo \"${target} is not built: its tests are unknown\")\n"
       "  set_tests_properties(${target}_NOT_BUILT PROPERTIES WILL_FAIL TRUE)\n"
       "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include_file}")
endfunction()
