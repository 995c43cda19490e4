# `cmake --install`: memopt's libraries, headers (with the TableGen output)
# and a CMake package, so that another compiler can embed the passes:
#
#   find_package(MemOpt CONFIG REQUIRED)   # also finds MLIR 22
#   target_link_libraries(my-compiler PRIVATE MemOpt::Pipeline MemOpt::InitAll)
#
# The libraries are static; like memopt's own tools they link libMLIR.so and
# libLLVM.so (the imported MLIR and LLVM targets), so the consumer links the
# same shared MLIR. examples/embed is such a consumer, and
# test/Examples/embed.test builds it against an install in a temporary prefix.

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(MEMOPT_INSTALL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/memopt)

# Target -> exported name (MemOpt::<name>).
set(MEMOPT_EXPORTED_TARGETS
  MemoptTrainDialect Dialect
  MemoptSupport Support
  MemoptAllocator Allocator
  MemoptAnalysis Analysis
  MemoptTransforms Transforms
  MemoptTrainToLinalg TrainToLinalg
  MemoptLinalgToGPU LinalgToGPU
  MemoptReport Report
  MemoptInitAll InitAll
  MemoptPipeline Pipeline
  MemoptDeviceProfile DeviceProfile
  MemoptAutoplan Autoplan
  MemoptModels Models
  MemoptImport Import
  MemoptExecution Execution
  memopt_runtime Runtime
  memopt_mpi_runtime MpiRuntime
  )

set(memopt_install_targets)
list(LENGTH MEMOPT_EXPORTED_TARGETS memopt_count)
math(EXPR memopt_last "${memopt_count} - 1")
foreach(i RANGE 0 ${memopt_last} 2)
  math(EXPR j "${i} + 1")
  list(GET MEMOPT_EXPORTED_TARGETS ${i} target)
  list(GET MEMOPT_EXPORTED_TARGETS ${j} name)
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
  # memopt's own build sets include directories per directory; an installed
  # target carries the installed headers.
  target_include_directories(${target} INTERFACE
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  list(APPEND memopt_install_targets ${target})
endforeach()

install(TARGETS ${memopt_install_targets}
  EXPORT MemOptTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# Headers: the sources' and the generated declarations (*.h.inc).
install(DIRECTORY ${MEMOPT_SOURCE_DIR}/include/memopt
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
install(DIRECTORY ${MEMOPT_BINARY_DIR}/include/memopt
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.inc"
  PATTERN "CMakeFiles" EXCLUDE)

# The tools too: an install is a complete memopt.
install(TARGETS mem-opt mem-gen mem-run mem-plan mem-report mem-import
  mem-autoplan
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# mem-autoplan's device profiles (built into the library too), as templates
# for users' own profiles.
install(DIRECTORY ${MEMOPT_SOURCE_DIR}/data/devices
  DESTINATION ${CMAKE_INSTALL_DATADIR}/memopt)
# The PyTorch front end (`python3 -m memopt_torch`), where Debian's python3
# looks for packages of a prefix (/usr/local/lib/python3/dist-packages).
install(DIRECTORY ${MEMOPT_SOURCE_DIR}/python/memopt_torch
  DESTINATION lib/python3/dist-packages
  PATTERN "__pycache__" EXCLUDE)

install(EXPORT MemOptTargets
  NAMESPACE MemOpt::
  DESTINATION ${MEMOPT_INSTALL_CMAKE_DIR})

configure_package_config_file(
  ${MEMOPT_SOURCE_DIR}/cmake/MemOptConfig.cmake.in
  ${MEMOPT_BINARY_DIR}/cmake/MemOptConfig.cmake
  INSTALL_DESTINATION ${MEMOPT_INSTALL_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(
  ${MEMOPT_BINARY_DIR}/cmake/MemOptConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${MEMOPT_BINARY_DIR}/cmake/MemOptConfig.cmake
  ${MEMOPT_BINARY_DIR}/cmake/MemOptConfigVersion.cmake
  DESTINATION ${MEMOPT_INSTALL_CMAKE_DIR})
