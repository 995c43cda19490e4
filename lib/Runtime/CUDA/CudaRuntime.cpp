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
//   * host memory (train-offload): `memopt_memory_space` switches the
//     allocations that follow to pinned host memory (cuMemAllocHost,
//     counted apart), `memopt_cuda_host_global` gives the globals kept on
//     the host pinned copies, and `memopt_memory_copy` copies between the
//     memories with cuMemcpyAsync;
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
// reads of managed memory correct. A copy to the device is asynchronous on
// the stream (the kernels after it wait for it there); host code waits for
// the stream when it starts (memopt_memory_space(1)), and a copy to the host
// is waited for, since host code reads it next.
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
  X(cuMemAllocHost)                                                            \
  X(cuMemFree)                                                                 \
  X(cuMemFreeHost)                                                             \
  X(cuMemcpy)                                                                  \
  X(cuMemcpyAsync)                                                             \
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

/// The allocations of one memory (the device's managed memory, or pinned
/// host memory): live blocks, a cache of freed blocks by size, the totals.
struct Space {
  std::unordered_map<void *, uint64_t> sizes;
  std::multimap<uint64_t, void *> cache;
  uint64_t live = 0, peak = 0, largest = 0, count = 0, reserved = 0;
  /// Host global -> (its copy in this memory, bytes).
  std::unordered_map<const void *, std::pair<void *, uint64_t>> globals;
  uint64_t globalBytes = 0;
};

/// The device's memory and the host's, and the space allocations go to
/// (memopt_memory_space).
struct Memory {
  std::mutex mutex;
  Space device, host;
  bool onHost = false;
  bool useCache = std::getenv("MEMOPT_CUDA_NO_CACHE") == nullptr;
  Space &current() { return onHost ? host : device; }
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

/// Page-locked host memory, which the device reaches and copies with
/// cuMemcpyAsync run asynchronously.
void *allocatePinned(uint64_t bytes) {
  Driver &d = driver();
  void *pointer = nullptr;
  check(d, d.cuMemAllocHost(&pointer, bytes ? bytes : 1), "cuMemAllocHost");
  return pointer;
}

/// A block of `bytes` in the current space: a cached one of that size, or a
/// new one.
void *allocate(uint64_t bytes) {
  Memory &m = memory();
  std::lock_guard<std::mutex> lock(m.mutex);
  Space &space = m.current();
  void *pointer = nullptr;
  auto cached = space.cache.find(bytes);
  if (cached != space.cache.end()) {
    pointer = cached->second;
    space.cache.erase(cached);
  } else {
    pointer = m.onHost ? allocatePinned(bytes) : allocateManaged(bytes);
    space.reserved += bytes;
  }
  space.sizes[pointer] = bytes;
  space.live += bytes;
  ++space.count;
  if (space.live > space.peak)
    space.peak = space.live;
  if (bytes > space.largest)
    space.largest = bytes;
  return pointer;
}

/// Frees `pointer` in the space it was allocated in.
void release(void *pointer) {
  if (!pointer)
    return;
  Memory &m = memory();
  std::lock_guard<std::mutex> lock(m.mutex);
  bool onHost = false;
  auto it = m.device.sizes.find(pointer);
  if (it == m.device.sizes.end()) {
    it = m.host.sizes.find(pointer);
    if (it == m.host.sizes.end())
      fatal("free of %p, which the runtime did not allocate", pointer);
    onHost = true;
  }
  Space &space = onHost ? m.host : m.device;
  uint64_t bytes = it->second;
  space.live -= bytes;
  space.sizes.erase(it);
  if (m.useCache) {
    space.cache.emplace(bytes, pointer);
    return;
  }
  Driver &d = driver();
  check(d, d.cuStreamSynchronize(d.stream), "cuStreamSynchronize");
  if (onHost)
    check(d, d.cuMemFreeHost(pointer), "cuMemFreeHost");
  else
    check(d, d.cuMemFree(reinterpret_cast<CUdeviceptr>(pointer)), "cuMemFree");
  space.reserved -= bytes;
}

void synchronize() { memopt::cuda::synchronize(); }

/// With MEMOPT_PRINT_PEAK set, print the measured peak at exit.
struct PrintAtExit {
  PrintAtExit() {
    if (std::getenv("MEMOPT_PRINT_PEAK"))
      std::atexit([] {
        std::printf("measured_peak_bytes: %llu\n",
                    static_cast<unsigned long long>(memory().device.peak));
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

/// The copy in `space` of the host global at `host` (of `bytes` bytes),
/// made by `make` and filled from the host copy on first use.
void *globalCopy(Space &space, const void *host, uint64_t bytes,
                 void *(*make)(uint64_t)) {
  std::lock_guard<std::mutex> lock(memory().mutex);
  auto it = space.globals.find(host);
  if (it != space.globals.end())
    return it->second.first;
  void *copy = make(bytes);
  std::memcpy(copy, host, bytes);
  space.globals.emplace(host, std::make_pair(copy, bytes));
  space.globalBytes += bytes;
  return copy;
}

/// The copy of `host` in either memory, or null.
std::pair<void *, uint64_t> *findGlobal(const void *host) {
  Memory &m = memory();
  for (Space *space : {&m.device, &m.host}) {
    auto it = space->globals.find(host);
    if (it != space->globals.end())
      return &it->second;
  }
  return nullptr;
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

/// The managed copy of the host global at `host`, which kernels read.
void *memopt_cuda_global(const void *host, uint64_t bytes) {
  return globalCopy(memory().device, host, bytes, allocateManaged);
}

/// The pinned copy of a global kept in host memory (train-offload's
/// parameters and optimizer states), which host code updates.
void *memopt_cuda_host_global(const void *host, uint64_t bytes) {
  return globalCopy(memory().host, host, bytes, allocatePinned);
}

/// Copies the copy of `host` (managed or pinned) back into it (no-op
/// without a copy).
void memopt_cuda_global_to_host(void *host) {
  synchronize();
  std::lock_guard<std::mutex> lock(memory().mutex);
  if (auto *copy = findGlobal(host))
    std::memcpy(host, copy->first, copy->second);
}

/// Copies `host` into its copy (no-op without a copy), for a driver that
/// changes an input between steps.
void memopt_cuda_global_to_device(const void *host) {
  synchronize();
  std::lock_guard<std::mutex> lock(memory().mutex);
  if (auto *copy = findGlobal(host))
    std::memcpy(copy->first, host, copy->second);
}

//===----------------------------------------------------------------------===//
// Host memory
//===----------------------------------------------------------------------===//

/// The space the allocations that follow are made in: 0 the device's
/// (managed), 1 the host's (pinned). Host code starts here, so the stream's
/// work (copies to the device reading host buffers it may overwrite) is
/// waited for first.
void memopt_memory_space(int32_t space) {
  if (space == 1)
    synchronize();
  std::lock_guard<std::mutex> lock(memory().mutex);
  memory().onHost = space == 1;
}

/// A copy of `bytes` bytes between the memories, on the stream. A copy to
/// the host is waited for (host code reads it next); one to the device is
/// not (the kernels after it are on the same stream).
void memopt_memory_copy(uint64_t dst, uint64_t src, uint64_t bytes,
                        int32_t toDevice) {
  Driver &d = driver();
  if (bytes == 0)
    return;
  check(d, d.cuMemcpyAsync(dst, src, bytes, d.stream), "cuMemcpyAsync");
  if (!toDevice)
    synchronize();
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
  return memory().device.live;
}

uint64_t memopt_cuda_peak_bytes(void) {
  std::lock_guard<std::mutex> lock(memory().mutex);
  return memory().device.peak;
}

/// Live and peak bytes of the pinned host allocations (train-offload).
uint64_t memopt_cuda_host_live_bytes(void) {
  std::lock_guard<std::mutex> lock(memory().mutex);
  return memory().host.live;
}

uint64_t memopt_cuda_host_peak_bytes(void) {
  std::lock_guard<std::mutex> lock(memory().mutex);
  return memory().host.peak;
}

/// Restarts peak tracking, in both memories, from the live bytes.
void memopt_cuda_reset_peak(void) {
  std::lock_guard<std::mutex> lock(memory().mutex);
  memory().device.peak = memory().device.live;
  memory().host.peak = memory().host.live;
}

/// The largest single device allocation: the arena of a planned step.
uint64_t memopt_cuda_largest_allocation(void) {
  std::lock_guard<std::mutex> lock(memory().mutex);
  return memory().device.largest;
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
              static_cast<unsigned long long>(m.device.globalBytes));
  std::printf("cuda_reserved_bytes: %llu\n",
              static_cast<unsigned long long>(m.device.reserved));
  std::printf("cuda_peak_live_bytes: %llu\n",
              static_cast<unsigned long long>(m.device.peak));
  std::printf("cuda_largest_allocation_bytes: %llu\n",
              static_cast<unsigned long long>(m.device.largest));
  std::printf("cuda_allocations: %llu\n",
              static_cast<unsigned long long>(m.device.count));
  // Host memory (train-offload): pinned allocations and globals.
  if (m.host.count || m.host.globalBytes) {
    std::printf("cuda_host_globals_bytes: %llu\n",
                static_cast<unsigned long long>(m.host.globalBytes));
    std::printf("cuda_host_peak_live_bytes: %llu\n",
                static_cast<unsigned long long>(m.host.peak));
    std::printf("cuda_host_allocations: %llu\n",
                static_cast<unsigned long long>(m.host.count));
  }
  std::fflush(stdout);
}

} // extern "C"
