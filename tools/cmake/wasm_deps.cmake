# WASM dependencies. Debian ships sentencepiece only as a native library, so
# its source comes from `apt-get source` into the build tree
# (tools/fetch-sentencepiece-src.sh) and is built
# static; hnswlib and Catch2 are Debian's headers, copied into the build tree
# because /usr/include must never be on an emcc include path.

set(VESPER_DEPS_DIR ${CMAKE_BINARY_DIR}/_deps)
set(SPM_SRC ${VESPER_DEPS_DIR}/sentencepiece-src)
# Configure never downloads: tools/build.sh fetches the source first.
if(NOT EXISTS ${SPM_SRC}/.vesper-prepared)
  message(FATAL_ERROR "no sentencepiece source in ${SPM_SRC}: run "
    "`bash tools/fetch-sentencepiece-src.sh ${VESPER_DEPS_DIR}` (tools/build.sh does) and configure again")
endif()

set(SPM_ENABLE_SHARED OFF CACHE BOOL "" FORCE)
set(SPM_ENABLE_TCMALLOC OFF CACHE BOOL "" FORCE)
set(SPM_BUILD_TEST OFF CACHE BOOL "" FORCE)
add_subdirectory(${SPM_SRC} ${VESPER_DEPS_DIR}/sentencepiece-build EXCLUDE_FROM_ALL)
# Third-party code: its warnings are not ours to fix.
target_compile_options(sentencepiece-static PRIVATE -w)
add_library(vesper_sentencepiece INTERFACE)
target_link_libraries(vesper_sentencepiece INTERFACE sentencepiece-static)
target_include_directories(vesper_sentencepiece INTERFACE ${SPM_SRC}/src)

find_path(HNSWLIB_HOST_DIR hnswlib/hnswlib.h PATHS /usr/include NO_CMAKE_FIND_ROOT_PATH REQUIRED)
find_path(NLOHMANN_HOST_DIR nlohmann/json.hpp PATHS /usr/include NO_CMAKE_FIND_ROOT_PATH REQUIRED)
file(COPY ${HNSWLIB_HOST_DIR}/hnswlib DESTINATION ${VESPER_DEPS_DIR}/include)
file(COPY ${NLOHMANN_HOST_DIR}/nlohmann DESTINATION ${VESPER_DEPS_DIR}/include)
set(VESPER_DEP_INCLUDES ${VESPER_DEPS_DIR}/include)
if(VESPER_TESTS)
  find_path(CATCH2_HOST_DIR catch2/catch.hpp PATHS /usr/include NO_CMAKE_FIND_ROOT_PATH REQUIRED)
  file(COPY ${CATCH2_HOST_DIR}/catch2/catch.hpp DESTINATION ${VESPER_DEPS_DIR}/include/catch2)
  set(CATCH2_INCLUDE_DIR ${VESPER_DEPS_DIR}/include)
endif()
