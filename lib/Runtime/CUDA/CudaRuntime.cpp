//===- CudaRuntime.cpp - host runtime of memopt-lower-to-gpu --------------===//
//
// The functions code lowered by memopt-lower-to-gpu calls:
//
//   * the `mgpu*` entry points MLIR 22's GPU-to-LLVM translation emits
//     (module load in global constructors, kernel launch, streams; the ABI of
//     upstream's CudaRuntimeWrappers, implemented here on the driver API);
//   * `_mlir_memref_to_llvm_{alloc,aligned_alloc,free}`, served from CUDA
//     managed memory so that host code and kernels share every buffer, with
//     freed blocks kept for reuse (the planned arena is allocated once, not
//     once per step), counting live and peak bytes like the CPU runtime;
//   * `memopt_cuda_global*`: managed copies of the host globals (parameters,
//     optimizer states, inputs) that kernels and cuBLAS read;
//   * `memopt_cublas_gemm`: cublasGemmStridedBatchedEx for the contractions
//     memopt-linalg-to-cublas rewrites;
//   * `memopt_cuda_*` queries (cuMemGetInfo, live/peak bytes, a report).
//
// The NCCL collectives are in CudaCollectives.cpp.
//
// The driver (libcuda.so.1) and cuBLAS are opened with dlopen on first use:
// the library builds and links with the toolkit's headers only, and a
// machine without a driver or a device gets a clear message and exit status
// 1 instead of a loader error. Every launch and every cuBLAS call is
// synchronous (one stream, synchronized after each), which keeps the host's
// reads of managed memory correct.
//
//===----------------------------------------------------------------------===//

#include "RuntimeInternal.h"

#include "memopt/Runtime/Collectives.h"
#include "memopt/Runtime/Cublas.h"

#include <cublas_api.h>
#include <cuda.h>
#include <library_types.h>

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <map>
#include <mutex>
#include <unordered_map>

#ifndef MEMOPT_CUDA_LIB_DIR
#define MEMOPT_CUDA_LIB_DIR "/usr/local/cuda/lib64"
#endif

#define MEMOPT_STR(x) #x
#define MEMOPT_XSTR(x) MEMOPT_STR(x)

void memopt::cuda::fatal(const char *format, ...) {
  std::fflush(stdout);
  std::fputs("memopt-cuda-runtime: ", stderr);
  va_list args;
  va_start(args, format);
  std::vfprintf(stderr, format, args);
  va_end(args);
  std::fputc('\n', stderr);
  std::exit(1);
}

namespace {

using memopt::cuda::fatal;

/// The driver API functions used, resolved from libcuda.so.1.
struct Driver {
#define MEMOPT_DRIVER_FUNCTIONS(X)                                             \
  X(cuInit)                                                                    \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetName)                                                           \
  X(cuDeviceTotalMem)                                                          \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuCtxSetCurrent)                                                           \
  X(cuCtxSynchronize)                                                          \
  X(cuModuleLoadData)                                                          \
  X(cuModuleGetFunction)                                                       \
  X(cuLaunchKernel)                                                            \
  X(cuStreamCreate)                                                            \
  X(cuStreamSynchronize)                                                       \
  X(cuStreamWaitEvent)                                                         \
  X(cuEventCreate)                                                             \
  X(cuEventDestroy)                                                            \
  X(cuEventRecord)                                                             \
  X(cuEventSynchronize)                                                        \
  X(cuMemAllocManaged)                                                         \
  X(cuMemFree)                                                                 \
  X(cuMemcpy)                                                                  \
  X(cuMemsetD16)                                                               \
  X(cuMemsetD32)                                                               \
  X(cuMemGetInfo)
#define MEMOPT_DECLARE(name) decltype(&::name) name = nullptr;
  MEMOPT_DRIVER_FUNCTIONS(MEMOPT_DECLARE)
#undef MEMOPT_DECLARE

  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  char name[256] = {0};
};

const char *errorName(const Driver &d, CUresult result) {
  const char *name = nullptr;
  if (d.cuGetErrorName && d.cuGetErrorName(result, &name) == CUDA_SUCCESS &&
      name)
    return name;
  // A stub driver (the toolkit's stubs/libcuda.so) names no error.
  static char code[32];
  std::snprintf(code, sizeof(code), "CUDA error %d", static_cast<int>(result));
  return code;
}

void check(const Driver &d, CUresult result, const char *what) {
  if (result == CUDA_SUCCESS)
    return;
  const char *message = nullptr;
  if (d.cuGetErrorString)
    d.cuGetErrorString(result, &message);
  fatal("%s failed: %s (%s)", what, errorName(d, result),
        message ? message : "no description");
}

Driver *loadDriver() {
  auto *d = new Driver();
  const char *path = std::getenv("MEMOPT_CUDA_DRIVER");
  if (!path)
    path = "libcuda.so.1";
  void *library = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
  if (!library)
    fatal("no CUDA driver (%s not found: %s); this program needs an NVIDIA "
          "GPU and its driver",
          path, dlerror());
#define MEMOPT_RESOLVE(name)                                                   \
  d->name =                                                                    \
      reinterpret_cast<decltype(d->name)>(dlsym(library, MEMOPT_XSTR(name)));  \
  if (!d->name)                                                                \
    fatal("the CUDA driver %s lacks %s (driver too old for CUDA %d)", path,    \
          MEMOPT_XSTR(name), CUDA_VERSION);
  MEMOPT_DRIVER_FUNCTIONS(MEMOPT_RESOLVE)
#undef MEMOPT_RESOLVE

  CUresult init = d->cuInit(0);
  if (init == CUDA_ERROR_NO_DEVICE)
    fatal("no CUDA device (cuInit: CUDA_ERROR_NO_DEVICE)");
  check(*d, init, "cuInit");
  int count = 0;
  check(*d, d->cuDeviceGetCount(&count), "cuDeviceGetCount");
  if (count == 0)
    fatal("no CUDA device");
  // One device per process: MEMOPT_CUDA_DEVICE, or in a run of several
  // processes the local rank (modulo the devices), else the first.
  int ordinal = 0;
  if (const char *env = std::getenv("MEMOPT_CUDA_DEVICE")) {
    ordinal = std::atoi(env);
  } else {
    memopt::runtime::ProcessPlace place;
    std::string error;
    if (!memopt::runtime::readProcessPlace(std::getenv, place, error))
      fatal("%s", error.c_str());
    if (place.worldSize > 1)
      ordinal = static_cast<int>(place.localRank % count);
  }
  if (ordinal < 0 || ordinal >= count)
    fatal("MEMOPT_CUDA_DEVICE=%d but there are %d CUDA devices", ordinal,
          count);
  check(*d, d->cuDeviceGet(&d->device, ordinal), "cuDeviceGet");
  check(*d, d->cuDeviceGetName(d->name, sizeof(d->name) - 1, d->device),
        "cuDeviceGetName");
  check(*d, d->cuDevicePrimaryCtxRetain(&d->context, d->device),
        "cuDevicePrimaryCtxRetain");
  check(*d, d->cuCtxSetCurrent(d->context), "cuCtxSetCurrent");
  check(*d, d->cuStreamCreate(&d->stream, CU_STREAM_DEFAULT), "cuStreamCreate");
  return d;
}

/// The driver, loaded and the device's primary context made current on the
/// calling thread on first use.
Driver &driver() {
  static Driver *instance = loadDriver();
  thread_local bool current = false;
  if (!current) {
    check(*instance, instance->cuCtxSetCurrent(instance->context),
          "cuCtxSetCurrent");
    current = true;
  }
  return *instance;
}

//===----------------------------------------------------------------------===//
// Managed memory: allocations and globals
//===----------------------------------------------------------------------===//

/// Live allocations, a cache of freed blocks by size, and the totals.
struct Memory {
  std::mutex mutex;
  std::unordered_map<void *, uint64_t> sizes;
  std::multimap<uint64_t, void *> cache;
  uint64_t live = 0, peak = 0, largest = 0, count = 0, reserved = 0;
  /// Host global -> (managed copy, bytes).
  std::unordered_map<const void *, std::pair<void *, uint64_t>> globals;
  uint64_t globalBytes = 0;
  bool useCache = std::getenv("MEMOPT_CUDA_NO_CACHE") == nullptr;
};

Memory &memory() {
  static Memory *instance = new Memory(); // Outlives static destructors.
  return *instance;
}

void *allocateManaged(uint64_t bytes) {
  Driver &d = driver();
  CUdeviceptr pointer = 0;
  // cuMemAllocManaged rejects 0 bytes; a 0-byte buffer still needs an
  // address.
  check(d,
        d.cuMemAllocManaged(&pointer, bytes ? bytes : 1, CU_MEM_ATTACH_GLOBAL),
        "cuMemAllocManaged");
  return reinterpret_cast<void *>(pointer);
}

void *allocate(uint64_t bytes) {
  Memory &m = memory();
  std::lock_guard<std::mutex> lock(m.mutex);
  void *pointer = nullptr;
  auto cached = m.cache.find(bytes);
  if (cached != m.cache.end()) {
    pointer = cached->second;
    m.cache.erase(cached);
  } else {
    pointer = allocateManaged(bytes);
    m.reserved += bytes;
  }
  m.sizes[pointer] = bytes;
  m.live += bytes;
  ++m.count;
  if (m.live > m.peak)
    m.peak = m.live;
  if (bytes > m.largest)
    m.largest = bytes;
  return pointer;
}

void release(void *pointer) {
  if (!pointer)
    return;
  Memory &m = memory();
  std::lock_guard<std::mutex> lock(m.mutex);
  auto it = m.sizes.find(pointer);
  if (it == m.sizes.end())
    fatal("free of %p, which the runtime did not allocate", pointer);
  uint64_t bytes = it->second;
  m.live -= bytes;
  m.sizes.erase(it);
  if (m.useCache) {
    m.cache.emplace(bytes, pointer);
    return;
  }
  Driver &d = driver();
  check(d, d.cuStreamSynchronize(d.stream), "cuStreamSynchronize");
  check(d, d.cuMemFree(reinterpret_cast<CUdeviceptr>(pointer)), "cuMemFree");
  m.reserved -= bytes;
}

void synchronize() { memopt::cuda::synchronize(); }

/// With MEMOPT_PRINT_PEAK set, print the measured peak at exit.
struct PrintAtExit {
  PrintAtExit() {
    if (std::getenv("MEMOPT_PRINT_PEAK"))
      std::atexit([] {
        std::printf("measured_peak_bytes: %llu\n",
                    static_cast<unsigned long long>(memory().peak));
      });
  }
} printAtExit;

//===----------------------------------------------------------------------===//
// cuBLAS
//===----------------------------------------------------------------------===//

struct Cublas {
  decltype(&::cublasCreate_v2) create = nullptr;
  decltype(&::cublasSetStream_v2) setStream = nullptr;
  decltype(&::cublasGemmStridedBatchedEx_64) gemm = nullptr;
  decltype(&::cublasGetStatusString) statusString = nullptr;
  cublasHandle_t handle = nullptr;
};

Cublas &cublas() {
  static Cublas *instance = [] {
    Driver &d = driver();
    auto *c = new Cublas();
    void *library = dlopen("libcublas.so.13", RTLD_NOW | RTLD_GLOBAL);
    if (!library)
      library = dlopen(MEMOPT_CUDA_LIB_DIR "/libcublas.so.13",
                       RTLD_NOW | RTLD_GLOBAL);
    if (!library)
      library = dlopen("libcublas.so", RTLD_NOW | RTLD_GLOBAL);
    if (!library)
      fatal("cannot load cuBLAS (libcublas.so.13, also tried %s): %s",
            MEMOPT_CUDA_LIB_DIR, dlerror());
    c->create = reinterpret_cast<decltype(c->create)>(
        dlsym(library, "cublasCreate_v2"));
    c->setStream = reinterpret_cast<decltype(c->setStream)>(
        dlsym(library, "cublasSetStream_v2"));
    c->gemm = reinterpret_cast<decltype(c->gemm)>(
        dlsym(library, "cublasGemmStridedBatchedEx_64"));
    c->statusString = reinterpret_cast<decltype(c->statusString)>(
        dlsym(library, "cublasGetStatusString"));
    if (!c->create || !c->setStream || !c->gemm || !c->statusString)
      fatal("cuBLAS lacks cublasGemmStridedBatchedEx_64 and friends (cuBLAS "
            "12 or newer needed)");
    cublasStatus_t status = c->create(&c->handle);
    if (status != CUBLAS_STATUS_SUCCESS)
      fatal("cublasCreate failed: %s", c->statusString(status));
    status = c->setStream(c->handle, d.stream);
    if (status != CUBLAS_STATUS_SUCCESS)
      fatal("cublasSetStream failed: %s", c->statusString(status));
    return c;
  }();
  return *instance;
}

/// Element type codes of memopt-linalg-to-cublas.
cudaDataType dataType(int32_t code, uint64_t &bytes) {
  switch (code) {
  case 0:
    bytes = 4;
    return CUDA_R_32F;
  case 1:
    bytes = 8;
    return CUDA_R_64F;
  case 2:
    bytes = 2;
    return CUDA_R_16F;
  case 3:
    bytes = 2;
    return CUDA_R_16BF;
  default:
    fatal("memopt_cublas_gemm: unknown element type code %d", code);
  }
}

} // namespace

CUstream memopt::cuda::stream() { return driver().stream; }

void memopt::cuda::synchronize() {
  Driver &d = driver();
  check(d, d.cuStreamSynchronize(d.stream), "cuStreamSynchronize");
}

//===----------------------------------------------------------------------===//
// MLIR's GPU runtime entry points (CudaRuntimeWrappers ABI, MLIR 22)
//===----------------------------------------------------------------------===//

extern "C" {

void *mgpuModuleLoad(void *data, size_t /*size*/) {
  Driver &d = driver();
  CUmodule module = nullptr;
  check(d, d.cuModuleLoadData(&module, data), "cuModuleLoadData");
  return module;
}

void *mgpuModuleLoadJIT(void *data, int /*optLevel*/) {
  return mgpuModuleLoad(data, 0);
}

void mgpuModuleUnload(void * /*module*/) {
  // Modules live until the process exits: unloading them from global
  // destructors would race with the driver's own teardown.
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  Driver &d = driver();
  CUfunction function = nullptr;
  check(d,
        d.cuModuleGetFunction(&function, static_cast<CUmodule>(module), name),
        "cuModuleGetFunction");
  return function;
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t sharedMemoryBytes, void *stream,
                      void **params, void **extra, size_t /*paramsCount*/) {
  Driver &d = driver();
  check(d,
        d.cuLaunchKernel(static_cast<CUfunction>(function), gridX, gridY, gridZ,
                         blockX, blockY, blockZ, sharedMemoryBytes,
                         static_cast<CUstream>(stream), params, extra),
        "cuLaunchKernel");
}

/// Every launch uses the runtime's one stream (cuBLAS's too), so that
/// kernels and library calls run in program order.
void *mgpuStreamCreate() { return driver().stream; }

void mgpuStreamDestroy(void * /*stream*/) {}

void mgpuStreamSynchronize(void *stream) {
  Driver &d = driver();
  check(d, d.cuStreamSynchronize(static_cast<CUstream>(stream)),
        "cuStreamSynchronize");
}

void mgpuStreamWaitEvent(void *stream, void *event) {
  Driver &d = driver();
  check(d,
        d.cuStreamWaitEvent(static_cast<CUstream>(stream),
                            static_cast<CUevent>(event), 0),
        "cuStreamWaitEvent");
}

void *mgpuEventCreate() {
  Driver &d = driver();
  CUevent event = nullptr;
  check(d, d.cuEventCreate(&event, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
  return event;
}

void mgpuEventDestroy(void *event) {
  Driver &d = driver();
  check(d, d.cuEventDestroy(static_cast<CUevent>(event)), "cuEventDestroy");
}

void mgpuEventSynchronize(void *event) {
  Driver &d = driver();
  check(d, d.cuEventSynchronize(static_cast<CUevent>(event)),
        "cuEventSynchronize");
}

void mgpuEventRecord(void *event, void *stream) {
  Driver &d = driver();
  check(d,
        d.cuEventRecord(static_cast<CUevent>(event),
                        static_cast<CUstream>(stream)),
        "cuEventRecord");
}

/// gpu.alloc: managed memory as well (host_shared or not), counted.
void *mgpuMemAlloc(uint64_t bytes, void * /*stream*/, bool /*isHostShared*/) {
  return allocate(bytes);
}

void mgpuMemFree(void *pointer, void * /*stream*/) {
  synchronize();
  release(pointer);
}

void mgpuMemcpy(void *dst, void *src, size_t bytes, void * /*stream*/) {
  Driver &d = driver();
  check(d,
        d.cuMemcpy(reinterpret_cast<CUdeviceptr>(dst),
                   reinterpret_cast<CUdeviceptr>(src), bytes),
        "cuMemcpy");
}

void mgpuMemset32(void *dst, unsigned value, size_t count, void * /*stream*/) {
  Driver &d = driver();
  check(d, d.cuMemsetD32(reinterpret_cast<CUdeviceptr>(dst), value, count),
        "cuMemsetD32");
}

void mgpuMemset16(void *dst, unsigned short value, size_t count,
                  void * /*stream*/) {
  Driver &d = driver();
  check(d, d.cuMemsetD16(reinterpret_cast<CUdeviceptr>(dst), value, count),
        "cuMemsetD16");
}

void mgpuSetDefaultDevice(int32_t ordinal) {
  (void)ordinal; // The device is chosen once, by MEMOPT_CUDA_DEVICE.
  (void)driver();
}

//===----------------------------------------------------------------------===//
// Allocation functions of the lowered host code
//===----------------------------------------------------------------------===//

void *_mlir_memref_to_llvm_alloc(uint64_t bytes) { return allocate(bytes); }

/// Managed allocations are aligned to at least 256 bytes (more than any
/// alignment the lowering asks for); the counted size is the requested one.
void *_mlir_memref_to_llvm_aligned_alloc(uint64_t alignment, uint64_t bytes) {
  if (alignment > 256)
    fatal("alignment %llu exceeds the 256 bytes managed memory guarantees",
          static_cast<unsigned long long>(alignment));
  return allocate(bytes);
}

void _mlir_memref_to_llvm_free(void *pointer) {
  // A kernel may still read the buffer: lowered launches are synchronous,
  // but cuBLAS calls are synchronized here too.
  synchronize();
  release(pointer);
}

//===----------------------------------------------------------------------===//
// Globals
//===----------------------------------------------------------------------===//

/// The managed copy of the host global at `host` (of `bytes` bytes), made
/// and filled from the host copy on first use.
void *memopt_cuda_global(const void *host, uint64_t bytes) {
  Memory &m = memory();
  std::lock_guard<std::mutex> lock(m.mutex);
  auto it = m.globals.find(host);
  if (it != m.globals.end())
    return it->second.first;
  void *device = allocateManaged(bytes);
  std::memcpy(device, host, bytes);
  m.globals.emplace(host, std::make_pair(device, bytes));
  m.globalBytes += bytes;
  return device;
}

/// Copies the managed copy of `host` back into it (no-op without a copy).
void memopt_cuda_global_to_host(void *host) {
  synchronize();
  Memory &m = memory();
  std::lock_guard<std::mutex> lock(m.mutex);
  auto it = m.globals.find(host);
  if (it != m.globals.end())
    std::memcpy(host, it->second.first, it->second.second);
}

/// Copies `host` into its managed copy (no-op without a copy), for a driver
/// that changes an input between steps.
void memopt_cuda_global_to_device(const void *host) {
  synchronize();
  Memory &m = memory();
  std::lock_guard<std::mutex> lock(m.mutex);
  auto it = m.globals.find(host);
  if (it != m.globals.end())
    std::memcpy(it->second.first, host, it->second.second);
}

//===----------------------------------------------------------------------===//
// cuBLAS
//===----------------------------------------------------------------------===//

/// C = op(X) op(Y) + C, column-major, `rows x cols`, over `outer` x `inner`
/// batches (memopt-linalg-to-cublas describes the operands). Pointers are
/// buffer addresses plus element offsets.
void memopt_cublas_gemm(int32_t typeX, int32_t typeY, int32_t typeC,
                        int32_t compute, int32_t transX, int32_t transY,
                        int64_t rows, int64_t cols, int64_t depth,
                        int64_t xBase, int64_t xOffset, int64_t ldx,
                        int64_t yBase, int64_t yOffset, int64_t ldy,
                        int64_t cBase, int64_t cOffset, int64_t ldc,
                        int64_t outer, int64_t xOuter, int64_t yOuter,
                        int64_t cOuter, int64_t inner, int64_t xInner,
                        int64_t yInner, int64_t cInner) {
  Cublas &c = cublas();
  uint64_t xBytes, yBytes, cBytes;
  cudaDataType xType = dataType(typeX, xBytes);
  cudaDataType yType = dataType(typeY, yBytes);
  cudaDataType cType = dataType(typeC, cBytes);
  float oneF = 1.0f;
  double oneD = 1.0;
  const void *alpha = compute == 1 ? static_cast<const void *>(&oneD)
                                   : static_cast<const void *>(&oneF);
  cublasComputeType_t computeType =
      compute == 1 ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F;
  auto *x = reinterpret_cast<char *>(xBase) + xOffset * xBytes;
  auto *y = reinterpret_cast<char *>(yBase) + yOffset * yBytes;
  auto *out = reinterpret_cast<char *>(cBase) + cOffset * cBytes;
  for (int64_t b = 0; b < outer; ++b) {
    cublasStatus_t status = c.gemm(
        c.handle, transX ? CUBLAS_OP_T : CUBLAS_OP_N,
        transY ? CUBLAS_OP_T : CUBLAS_OP_N, rows, cols, depth, alpha,
        x + b * xOuter * xBytes, xType, ldx, xInner, y + b * yOuter * yBytes,
        yType, ldy, yInner, alpha, out + b * cOuter * cBytes, cType, ldc,
        cInner, inner, computeType, CUBLAS_GEMM_DEFAULT);
    if (status != CUBLAS_STATUS_SUCCESS)
      fatal("cublasGemmStridedBatchedEx (%lld x %lld x %lld, batch %lld) "
            "failed: %s",
            static_cast<long long>(rows), static_cast<long long>(cols),
            static_cast<long long>(depth), static_cast<long long>(inner),
            c.statusString(status));
  }
  synchronize();
}

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

/// cuMemGetInfo: free and total bytes of the device.
void memopt_cuda_mem_info(uint64_t *freeBytes, uint64_t *totalBytes) {
  Driver &d = driver();
  size_t free = 0, total = 0;
  check(d, d.cuMemGetInfo(&free, &total), "cuMemGetInfo");
  *freeBytes = free;
  *totalBytes = total;
}

void memopt_cuda_synchronize(void) { synchronize(); }

uint64_t memopt_cuda_live_bytes(void) {
  std::lock_guard<std::mutex> lock(memory().mutex);
  return memory().live;
}

uint64_t memopt_cuda_peak_bytes(void) {
  std::lock_guard<std::mutex> lock(memory().mutex);
  return memory().peak;
}

void memopt_cuda_reset_peak(void) {
  std::lock_guard<std::mutex> lock(memory().mutex);
  memory().peak = memory().live;
}

/// The largest single allocation: the arena of a planned step.
uint64_t memopt_cuda_largest_allocation(void) {
  std::lock_guard<std::mutex> lock(memory().mutex);
  return memory().largest;
}

/// Prints `key: value` lines: the device, cuMemGetInfo, the runtime's
/// counters.
void memopt_cuda_report(void) {
  Driver &d = driver();
  uint64_t free = 0, total = 0;
  memopt_cuda_mem_info(&free, &total);
  Memory &m = memory();
  std::lock_guard<std::mutex> lock(m.mutex);
  std::printf("cuda_device: %s\n", d.name);
  std::printf("cuda_mem_total_bytes: %llu\n",
              static_cast<unsigned long long>(total));
  std::printf("cuda_mem_used_bytes: %llu\n",
              static_cast<unsigned long long>(total - free));
  std::printf("cuda_globals_bytes: %llu\n",
              static_cast<unsigned long long>(m.globalBytes));
  std::printf("cuda_reserved_bytes: %llu\n",
              static_cast<unsigned long long>(m.reserved));
  std::printf("cuda_peak_live_bytes: %llu\n",
              static_cast<unsigned long long>(m.peak));
  std::printf("cuda_largest_allocation_bytes: %llu\n",
              static_cast<unsigned long long>(m.largest));
  std::printf("cuda_allocations: %llu\n",
              static_cast<unsigned long long>(m.count));
  std::fflush(stdout);
}

} // extern "C"
