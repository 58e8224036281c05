# hnswlib's C++ headers (header-only library) come from a registry package, never from this repo.
# Lookup order:
#   1. -DHNSWLIB_INCLUDE_DIR=... (or the env var of the same name): a folder that holds hnswlib/hnswlib.h
#   2. a system install (Debian's libhnswlib-dev puts it in /usr/include) if it is 0.7 or newer
#      (0.6.x has no filter functor in searchKnn, which the tenant filter needs)
#   3. PyPI's hnswlib==0.8.0 source distribution, fetched with pip (a build requirement) into the
#      build folder and unpacked
#      (the sdist carries hnswlib/*.h); cached across rebuilds by the fixed build-dir.
set(DIRECTOR_FAST_HNSWLIB_VERSION "0.8.0" CACHE STRING "hnswlib version fetched from PyPI when none is found")

if(NOT HNSWLIB_INCLUDE_DIR AND DEFINED ENV{HNSWLIB_INCLUDE_DIR})
  set(HNSWLIB_INCLUDE_DIR "$ENV{HNSWLIB_INCLUDE_DIR}")
endif()

function(_df_hnswlib_has_filter dir outvar)
  set(${outvar} FALSE PARENT_SCOPE)
  if(EXISTS "${dir}/hnswlib/hnswlib.h")
    file(READ "${dir}/hnswlib/hnswlib.h" _h)
    if(_h MATCHES "BaseFilterFunctor")
      set(${outvar} TRUE PARENT_SCOPE)
    endif()
  endif()
endfunction()

if(NOT HNSWLIB_INCLUDE_DIR)
  find_path(_df_sys_hnsw hnswlib/hnswlib.h)
  if(_df_sys_hnsw)
    _df_hnswlib_has_filter("${_df_sys_hnsw}" _ok)
    if(_ok)
      set(HNSWLIB_INCLUDE_DIR "${_df_sys_hnsw}")
    else()
      message(STATUS "hnswlib in ${_df_sys_hnsw} is too old (no filter functor); fetching ${DIRECTOR_FAST_HNSWLIB_VERSION} from PyPI")
    endif()
  endif()
endif()

if(NOT HNSWLIB_INCLUDE_DIR)
  set(_df_deps "${CMAKE_BINARY_DIR}/_deps/hnswlib")
  set(_df_unpacked "${_df_deps}/hnswlib-${DIRECTOR_FAST_HNSWLIB_VERSION}")
  if(NOT EXISTS "${_df_unpacked}/hnswlib/hnswlib.h")
    find_package(Python 3.10 REQUIRED COMPONENTS Interpreter)
    file(MAKE_DIRECTORY "${_df_deps}")
    execute_process(
      COMMAND "${Python_EXECUTABLE}" -m pip download --no-deps "--no-binary=hnswlib"
              -d "${_df_deps}" "hnswlib==${DIRECTOR_FAST_HNSWLIB_VERSION}"
      RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
    file(GLOB _tar "${_df_deps}/hnswlib-${DIRECTOR_FAST_HNSWLIB_VERSION}.tar.gz")
    if(NOT _tar)
      message(FATAL_ERROR "Could not fetch hnswlib==${DIRECTOR_FAST_HNSWLIB_VERSION} from PyPI (pip said: ${_err}). "
                          "Pass -DHNSWLIB_INCLUDE_DIR=<folder holding hnswlib/hnswlib.h> or set HNSWLIB_INCLUDE_DIR.")
    endif()
    file(ARCHIVE_EXTRACT INPUT "${_tar}" DESTINATION "${_df_deps}" PATTERNS "hnswlib-${DIRECTOR_FAST_HNSWLIB_VERSION}/hnswlib/*")
  endif()
  set(HNSWLIB_INCLUDE_DIR "${_df_unpacked}")
endif()

_df_hnswlib_has_filter("${HNSWLIB_INCLUDE_DIR}" _ok)
if(NOT _ok)
  message(FATAL_ERROR "No usable hnswlib (>= 0.7) headers in ${HNSWLIB_INCLUDE_DIR}")
endif()
message(STATUS "hnswlib headers: ${HNSWLIB_INCLUDE_DIR}")
add_library(hnswlib_headers INTERFACE)
# SYSTEM: its warnings are not ours.
target_include_directories(hnswlib_headers SYSTEM INTERFACE "${HNSWLIB_INCLUDE_DIR}")
add_library(hnswlib::hnswlib ALIAS hnswlib_headers)
