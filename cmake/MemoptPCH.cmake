# Precompiled headers (MEMOPT_PCH, on by default).
#
# Most of a memopt file's compile time went to parsing and instantiating the
# same headers: the train dialect's generated op classes and the MLIR dialects
# the passes use (cmake/pch/MemoptPCH.h). They are compiled once, by the
# object library MemoptPCH, and every memopt library and tool reuses that
# precompiled header. A target whose flags differ from MemoptPCH's (the unit
# tests, with exceptions) is left out: the compiler would refuse the header.
option(MEMOPT_PCH "Precompile the headers most memopt files include" ON)

if(MEMOPT_PCH)
  add_library(MemoptPCH OBJECT ${MEMOPT_SOURCE_DIR}/cmake/pch/MemoptPCH.cpp)
  llvm_update_compile_flags(MemoptPCH)
  target_precompile_headers(MemoptPCH PRIVATE
    ${MEMOPT_SOURCE_DIR}/cmake/pch/MemoptPCH.h)
  add_dependencies(MemoptPCH MemoptTrainOpsIncGen MemoptTrainInterfacesIncGen)
endif()

# memopt_use_pch(target...): compile the targets with MemoptPCH's header.
function(memopt_use_pch)
  if(NOT MEMOPT_PCH)
    return()
  endif()
  foreach(target IN LISTS ARGN)
    target_precompile_headers(${target} REUSE_FROM MemoptPCH)
  endforeach()
endfunction()
