# Sanitizer and fuzzer builds of memopt's own code (docs/reliability.md).
#
#   MEMOPT_SANITIZE="address;undefined"  instruments memopt's libraries,
#       tools, runtime and unit tests with these sanitizers (any of address,
#       undefined, leak). UBSan findings are fatal (-fno-sanitize-recover), so
#       they fail the test that triggers them. Debian's libMLIR.so and
#       libLLVM.so are not instrumented: ASan still checks every access made
#       by memopt's code and UBSan every memopt expression.
#   MEMOPT_SANITIZE_OPTIMIZATION  -O1 (default) or -O0, which compiles in
#       half the time (CI uses it; only memopt's code is affected, libMLIR is
#       Debian's optimized build).
#   MEMOPT_BUILD_FUZZERS=ON  (clang, with address) also builds the libFuzzer
#       targets of fuzz/ and compiles memopt's code with coverage
#       instrumentation (-fsanitize=fuzzer-no-link) so they are guided by it.
#
# Use a build directory of its own, with clang:
#   CC=clang-22 CXX=clang++-22 cmake -G Ninja -S . -B build-san \
#     -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
#     -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
#     -DMEMOPT_SANITIZE="address;undefined" -DMEMOPT_BUILD_FUZZERS=ON

set(MEMOPT_SANITIZE "" CACHE STRING
    "Sanitizers for memopt's own code: a list of address, undefined, leak")
set(MEMOPT_SANITIZE_OPTIMIZATION "-O1" CACHE STRING
    "Optimization of the sanitized code: -O1 runs faster, -O0 compiles in half the time (CI)")
set(MEMOPT_BUILD_FUZZERS OFF CACHE BOOL
    "Build the libFuzzer targets of fuzz/ (clang, MEMOPT_SANITIZE with address)")

set(MEMOPT_SANITIZE_FLAGS "")
if(MEMOPT_SANITIZE)
  foreach(sanitizer IN LISTS MEMOPT_SANITIZE)
    if(NOT sanitizer MATCHES "^(address|undefined|leak)$")
      message(FATAL_ERROR "MEMOPT_SANITIZE: unsupported sanitizer '${sanitizer}' "
                          "(supported: address, undefined, leak)")
    endif()
  endforeach()
  list(JOIN MEMOPT_SANITIZE "," sanitizers)
  list(APPEND MEMOPT_SANITIZE_FLAGS "-fsanitize=${sanitizers}"
       # Every finding fails the process (and so the test), UBSan's too.
       -fno-sanitize-recover=all
       -fno-omit-frame-pointer
       # Symbolized stack traces for little compile time.
       -gline-tables-only ${MEMOPT_SANITIZE_OPTIMIZATION})
  add_compile_options(${MEMOPT_SANITIZE_FLAGS})
  add_link_options("-fsanitize=${sanitizers}")
  # memopt's shared libraries (the runtime) leave the sanitizer runtime's
  # symbols to the executable that loads them (HandleLLVMOptions drops
  # -z defs in LLVM's own sanitizer builds for the same reason).
  string(REPLACE "-Wl,-z,defs" "" CMAKE_SHARED_LINKER_FLAGS
         "${CMAKE_SHARED_LINKER_FLAGS}")
  message(STATUS "memopt: sanitizers ${sanitizers}")
endif()

# The shared ASan runtime: lit preloads it into mlir-runner, which is not
# instrumented but loads memopt's instrumented runtime library.
set(MEMOPT_ASAN_RUNTIME "")
if("address" IN_LIST MEMOPT_SANITIZE AND CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  execute_process(
    COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libclang_rt.asan-${CMAKE_SYSTEM_PROCESSOR}.so
    OUTPUT_VARIABLE MEMOPT_ASAN_RUNTIME OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT EXISTS "${MEMOPT_ASAN_RUNTIME}")
    message(FATAL_ERROR "no shared ASan runtime (${MEMOPT_ASAN_RUNTIME}); "
                        "install libclang-rt-22-dev")
  endif()
endif()

if(MEMOPT_BUILD_FUZZERS)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "MEMOPT_BUILD_FUZZERS needs clang (libFuzzer), not "
                        "${CMAKE_CXX_COMPILER_ID}; configure with CXX=clang++-22")
  endif()
  if(NOT "address" IN_LIST MEMOPT_SANITIZE)
    message(FATAL_ERROR "MEMOPT_BUILD_FUZZERS needs MEMOPT_SANITIZE with "
                        "address (e.g. \"address;undefined\")")
  endif()
  # Coverage for libFuzzer in every memopt object; the fuzz targets add
  # libFuzzer itself (-fsanitize=fuzzer).
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
