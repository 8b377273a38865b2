# One INTERFACE target carries the standard, the warnings and the sanitizer flags; every target links it.
add_library(wb_common INTERFACE)
target_compile_features(wb_common INTERFACE cxx_std_17)
target_compile_options(wb_common INTERFACE -Wall -Wextra)

if(WORKBENCH_SANITIZE)
  target_compile_options(wb_common INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer)
  target_link_options(wb_common INTERFACE -fsanitize=address,undefined)
endif()

if(NOT CMAKE_GENERATOR MATCHES "Ninja")
  message(STATUS "Tip: configure with -G Ninja for faster incremental builds")
endif()
