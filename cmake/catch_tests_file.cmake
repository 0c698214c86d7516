# Writes TESTS_FILE: add_test() for every test case TEST_EXECUTABLE lists (see CatchTests.cmake).
execute_process(
  COMMAND "${TEST_EXECUTABLE}" --list-test-names-only
  OUTPUT_VARIABLE output
  RESULT_VARIABLE result
  WORKING_DIRECTORY "${WORKING_DIR}")
# Catch2 v2 exits with the number of test cases listed; a failure to start is a text or < 0.
if(NOT result MATCHES "^[0-9]+$")
  message(FATAL_ERROR "${TEST_EXECUTABLE} --list-test-names-only failed: ${result}\n${output}")
endif()
# Names may hold ';': hide it from CMake's list splitting while splitting lines, restore it in
# each bracket argument written (bracket arguments are never split).
string(ASCII 31 unit_separator)
string(REPLACE ";" "${unit_separator}" output "${output}")
string(REPLACE "\n" ";" lines "${output}")
set(script "")
set(count 0)
foreach(line IN LISTS lines)
  if(line STREQUAL "")
    continue()
  endif()
  string(REPLACE "${unit_separator}" ";" name "${line}")
  # Catch's test spec: '\' escapes the next character; ',' separates alternatives; '[' starts a
  # tag; '~' and a leading '"' change the meaning; '*' at either end is a wildcard.
  set(filter "${name}")
  foreach(char "\\" "," "[" "]" "~" "\"" "*")
    string(REPLACE "${char}" "\\${char}" filter "${filter}")
  endforeach()
  if(name MATCHES "]==]")
    message(FATAL_ERROR "test case name holds ']==]', which this discovery cannot write: ${name}")
  endif()
  string(APPEND script "add_test([==[${name}]==] \"${TEST_EXECUTABLE}\" [==[${filter}]==] --warn NoTests)\n")
  string(APPEND script "set_tests_properties([==[${name}]==] PROPERTIES WORKING_DIRECTORY \"${WORKING_DIR}\")\n")
  math(EXPR count "${count} + 1")
endforeach()
if(count EQUAL 0)
  message(FATAL_ERROR "${TEST_EXECUTABLE} lists no test cases")
endif()
file(WRITE "${TESTS_FILE}" "${script}")
