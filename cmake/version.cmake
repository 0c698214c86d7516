# Generates bnnbench_version.hpp with the git description of the source tree at every build,
# so results carry the code version they were made with.
set(BNNBENCH_GENERATED_DIR "${CMAKE_BINARY_DIR}/generated")
file(MAKE_DIRECTORY "${BNNBENCH_GENERATED_DIR}")
add_custom_target(bnn_version ALL
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${CMAKE_SOURCE_DIR}
          -DOUTPUT=${BNNBENCH_GENERATED_DIR}/bnnbench_version.hpp
          -DPROJECT_VERSION=${PROJECT_VERSION}
          -P ${CMAKE_SOURCE_DIR}/cmake/write_version.cmake
  BYPRODUCTS ${BNNBENCH_GENERATED_DIR}/bnnbench_version.hpp
  COMMENT "Recording the code version")
add_library(bnn_version_header INTERFACE)
target_include_directories(bnn_version_header INTERFACE "${BNNBENCH_GENERATED_DIR}")
add_dependencies(bnn_version_header bnn_version)
