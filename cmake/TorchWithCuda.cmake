# Before find_package(Torch): what a CUDA build of LibTorch (pip torch's, or an official archive) needs from
# this machine, checked first so that a missing or mismatched piece is one message naming it, not the wall of
# errors Caffe2's cuda.cmake gives. Debian's 1.13 (no CUDA) passes through untouched.
#
#   WORKBENCH_REQUIRE_CUDA  ON: the LibTorch found must be a CUDA build (scripts/build.sh sets it for
#                           WORKBENCH_LIBTORCH=pip: the build a GPU user makes).

option(WORKBENCH_REQUIRE_CUDA "Refuse a LibTorch without CUDA" OFF)
set(WORKBENCH_CUDA_ROOT "/usr/local/cuda" CACHE PATH "Where to look for the CUDA toolkit's nvcc when it is not on PATH")

# The LibTorch root: where TorchConfig.cmake will be found (<root>/share/cmake/Torch).
set(_wb_torch_root "")
foreach(_prefix ${CMAKE_PREFIX_PATH} $ENV{CMAKE_PREFIX_PATH})
  foreach(_candidate "${_prefix}/Torch" "${_prefix}/share/cmake/Torch" "${_prefix}/lib/cmake/Torch")
    if(EXISTS "${_candidate}/TorchConfig.cmake" AND NOT _wb_torch_root)
      get_filename_component(_wb_torch_root "${_candidate}/../../.." ABSOLUTE)
      if(NOT EXISTS "${_wb_torch_root}/lib" AND EXISTS "${_candidate}/../../../../lib")
        get_filename_component(_wb_torch_root "${_candidate}/../../../.." ABSOLUTE)
      endif()
    endif()
  endforeach()
endforeach()

if(_wb_torch_root)
  file(GLOB _wb_torch_cuda_lib "${_wb_torch_root}/lib/libtorch_cuda.so*")
  # The CUDA version the LibTorch was built for: pip's torch/version.py ("cuda: Optional[str] = '13.0'"), or
  # an official archive's build-version ("2.11.0+cu130").
  set(_wb_torch_cuda_version "")
  if(EXISTS "${_wb_torch_root}/version.py")
    file(STRINGS "${_wb_torch_root}/version.py" _line REGEX "^cuda")
    string(REGEX MATCH "'([0-9]+\\.[0-9]+)'" _match "${_line}")
    set(_wb_torch_cuda_version "${CMAKE_MATCH_1}")
  elseif(EXISTS "${_wb_torch_root}/build-version")
    file(READ "${_wb_torch_root}/build-version" _line)
    if(_line MATCHES "\\+cu([0-9]+)([0-9])")
      set(_wb_torch_cuda_version "${CMAKE_MATCH_1}.${CMAKE_MATCH_2}")
    endif()
  endif()

  if(NOT _wb_torch_cuda_lib)
    if(WORKBENCH_REQUIRE_CUDA)
      message(FATAL_ERROR "The LibTorch at ${_wb_torch_root} has no CUDA (no lib/libtorch_cuda.so): it is a "
                          "CPU build. Install the CUDA wheel (`pip install torch` from PyPI's default index, not "
                          "the +cpu one: scripts/setup.sh with WORKBENCH_LIBTORCH=pip does), or configure "
                          "without -DWORKBENCH_REQUIRE_CUDA=ON for a CPU-only build.")
    endif()
  else()
    # Caffe2's cuda.cmake runs enable_language(CUDA): nvcc must be found before it.
    if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX})
      find_program(_wb_nvcc nvcc HINTS ${WORKBENCH_CUDA_ROOT}/bin ENV CUDA_HOME PATHS ENV PATH PATH_SUFFIXES bin
                   NO_DEFAULT_PATH)
      if(NOT _wb_nvcc)
        message(FATAL_ERROR "The LibTorch at ${_wb_torch_root} is a CUDA ${_wb_torch_cuda_version} build, and "
                            "configuring it needs the CUDA toolkit's nvcc, which is not on PATH nor in "
                            "${WORKBENCH_CUDA_ROOT}/bin. Install the CUDA ${_wb_torch_cuda_version} toolkit, or point "
                            "CUDACXX (or -DCMAKE_CUDA_COMPILER) at its nvcc.")
      endif()
      set(CMAKE_CUDA_COMPILER "${_wb_nvcc}" CACHE FILEPATH "nvcc for the CUDA LibTorch")
      unset(_wb_nvcc CACHE)
    endif()
    set(_wb_nvcc_path "${CMAKE_CUDA_COMPILER}")
    if(NOT _wb_nvcc_path)
      set(_wb_nvcc_path "$ENV{CUDACXX}")
    endif()
    execute_process(COMMAND "${_wb_nvcc_path}" --version OUTPUT_VARIABLE _wb_nvcc_out ERROR_QUIET
                    RESULT_VARIABLE _wb_nvcc_rc)
    string(REGEX MATCH "release ([0-9]+)\\.([0-9]+)" _match "${_wb_nvcc_out}")
    if(NOT _wb_nvcc_rc EQUAL 0 OR NOT _match)
      message(FATAL_ERROR "${_wb_nvcc_path} does not run as nvcc (`nvcc --version` failed): the CUDA LibTorch at "
                          "${_wb_torch_root} needs a working CUDA ${_wb_torch_cuda_version} toolkit.")
    endif()
    set(_wb_nvcc_major "${CMAKE_MATCH_1}")
    set(_wb_nvcc_version "${CMAKE_MATCH_1}.${CMAKE_MATCH_2}")
    if(_wb_torch_cuda_version)
      string(REGEX MATCH "^[0-9]+" _torch_major "${_wb_torch_cuda_version}")
      if(NOT _wb_nvcc_major STREQUAL _torch_major)
        message(FATAL_ERROR "The LibTorch at ${_wb_torch_root} is built for CUDA ${_wb_torch_cuda_version}, but "
                            "nvcc (${_wb_nvcc_path}) is CUDA ${_wb_nvcc_version}: the major versions must match. "
                            "Install the CUDA ${_wb_torch_cuda_version} toolkit (or point CUDACXX at it), or a "
                            "torch wheel built for CUDA ${_wb_nvcc_version}.")
      elseif(NOT _wb_nvcc_version VERSION_EQUAL _wb_torch_cuda_version)
        message(WARNING "LibTorch is built for CUDA ${_wb_torch_cuda_version}, nvcc is ${_wb_nvcc_version}: "
                        "the same major version, so it builds; its libraries come from the wheel.")
      endif()
    endif()
    # nvcc with CMake 3.25 has no C++20 dialect flag; nothing here is CUDA source, only Caffe2's probes are.
    set(CMAKE_CUDA_STANDARD 17)
    # A given architecture list spares Caffe2's configure-time GPU probe (there is no GPU on a build machine).
    if(NOT TORCH_CUDA_ARCH_LIST AND NOT DEFINED ENV{TORCH_CUDA_ARCH_LIST})
      set(TORCH_CUDA_ARCH_LIST "9.0" CACHE STRING "CUDA architectures for Caffe2's nvcc flags (H100/H200: 9.0)")
    endif()
    message(STATUS "LibTorch ${_wb_torch_root}: CUDA ${_wb_torch_cuda_version} build; nvcc ${_wb_nvcc_version} "
                   "(${_wb_nvcc_path})")
  endif()
endif()
