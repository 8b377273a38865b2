# One INTERFACE target carries the standard, the warnings and the sanitizer flags; every target links it.
add_library(wb_common INTERFACE)
target_compile_features(wb_common INTERFACE cxx_std_20)
target_compile_options(wb_common INTERFACE -Wall -Wextra)

if(WORKBENCH_SANITIZE)
  target_compile_options(wb_common INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer)
  target_link_options(wb_common INTERFACE -fsanitize=address,undefined)
endif()

# libstdc++ first among each program's libraries. pip's LibTorch is built with a newer GCC and exports some of
# libstdc++'s functions it linked in statically (std::filesystem among them): found before the system's
# libstdc++, they are what our calls bind to, and std::filesystem::remove_all crashed there (a null call inside
# it). Listed first, the system's libstdc++ answers every standard symbol it has; LibTorch keeps the newer ones.
target_link_options(wb_common INTERFACE "LINKER:--push-state,--no-as-needed" "-lstdc++" "LINKER:--pop-state")

if(NOT CMAKE_GENERATOR MATCHES "Ninja")
  message(STATUS "Tip: configure with -G Ninja for faster incremental builds")
endif()

# Build time on 2 cores. Every translation unit that includes LibTorch pays ~10 s of CPU however small it is,
# even with the precompiled header (GCC instantiates the header's pending templates again in each unit: see
# -ftime-report's "phase lang. deferred"), so sources are compiled in merged batches. A file that defines
# something of its own under a name another file of its target uses too (a constant, a helper) must give it a
# distinct name. Per-file compile options (adam_update_kernel.cpp, gloo_backend.cpp) keep a file out of its
# batch.
if(WORKBENCH_UNITY)
  set(CMAKE_UNITY_BUILD ON)
  set(CMAKE_UNITY_BUILD_BATCH_SIZE 8)
endif()

# Debug info is a third of the compile time: a unity batch of test_step compiles in 53 s with -g and 35 s with
# -g1, and its object shrinks from 21 to 5.6 MB (so links are quicker too). Line tables are what a crash's
# backtrace and a profiler need; a debugging session that inspects variables configures WORKBENCH_DEBUG_INFO=full
# (or a Debug build).
if(WORKBENCH_DEBUG_INFO STREQUAL "lines")
  string(REGEX REPLACE "(^| )-g( |$)" "\\1-g1\\2" CMAKE_CXX_FLAGS_RELWITHDEBINFO "${CMAKE_CXX_FLAGS_RELWITHDEBINFO}")
elseif(NOT WORKBENCH_DEBUG_INFO STREQUAL "full")
  message(FATAL_ERROR "WORKBENCH_DEBUG_INFO is '${WORKBENCH_DEBUG_INFO}': say lines (-g1) or full (-g).")
endif()

# GNU ld takes ~12 s of CPU to link an executable against LibTorch with debug info; lld takes ~4.
if(WORKBENCH_LLD)
  include(CheckLinkerFlag)
  check_linker_flag(CXX "-fuse-ld=lld" WB_LINKER_LLD)
  if(WB_LINKER_LLD)
    target_link_options(wb_common INTERFACE -fuse-ld=lld)
  endif()
endif()
