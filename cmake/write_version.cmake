# Writes the code version: the commit, plus "-dirty" when the code (not results or docs)
# differs from it.
execute_process(COMMAND git -C "${SOURCE_DIR}" describe --always --abbrev=12
                OUTPUT_VARIABLE describe OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR describe STREQUAL "")
  set(describe "unknown")
else()
  execute_process(COMMAND git -C "${SOURCE_DIR}" status --porcelain --untracked-files=no --
                          methods datasets experiments cmake CMakeLists.txt
                  OUTPUT_VARIABLE changes OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT changes STREQUAL "")
    set(describe "${describe}-dirty")
  endif()
endif()
set(content "#pragma once\n#define BNNBENCH_VERSION \"${PROJECT_VERSION}\"\n#define BNNBENCH_GIT_DESCRIBE \"${describe}\"\n")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
else()
  set(old "")
endif()
if(NOT old STREQUAL content)
  file(WRITE "${OUTPUT}" "${content}")
endif()
