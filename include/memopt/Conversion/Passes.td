//===- Passes.td - memopt conversion passes ----------------*- tablegen -*-===//

#ifndef MEMOPT_CONVERSION_PASSES_TD
#define MEMOPT_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTrainToLinalgPass
    : Pass<"convert-train-to-linalg", "::mlir::ModuleOp"> {
  let summary = "Lowers train ops to linalg, tensor, arith and math on tensors";
  let description = [{
    Rewrites every train op into upstream ops on tensors: linalg named ops
    where upstream has them (matmul, batch_matmul, convolutions, pooling,
    transpose, broadcast, reduce, fill) and `linalg.generic` otherwise.

    Persistent state becomes module-level memory so that a step can run
    repeatedly and update it in place:

    * `train.param "N"` reads the global `@__param__N`, `train.opt_state "N"`
      the global `@__state__N` (both `memref.global`, uninitialized: the
      runtime initializes them);
    * optimizer ops compute the new values and write them back into those
      globals with `bufferization.materialize_in_destination`;
    * `train.dropout` reads the step's seed from the global `@__train_seed`
      (an `i64`) and derives each keep bit from (seed, op id, element index)
      with a counter-based hash, so a recomputed dropout reproduces its mask;
    * `train.free` is dropped: deallocation is left to bufferization.

    The conventions are what `mem-run` relies on to feed and read a step.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def MemoptFreeAfterLastUsePass
    : Pass<"memopt-free-after-last-use", "::mlir::func::FuncOp"> {
  let summary = "Moves each buffer's memref.dealloc right after its last use";
  let description = [{
    Ownership-based buffer deallocation frees buffers at the end of their
    block, so in a single-block training step every buffer would stay live
    until the step returns. This pass moves every unconditional
    `memref.dealloc` of a block up to just after the last op of that block
    that uses the buffer or anything derived from it (any memref result of an
    op using it counts as an alias, a conservative over-approximation), so
    the executed program frees each buffer where the memory model (and
    `train-lifetimes`) ends its lifetime. Part of `memopt-lower-to-cpu`,
    after deallocation is made explicit.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def MemoptAddStepEntryPass
    : Pass<"memopt-add-step-entry", "::mlir::ModuleOp"> {
  let summary = "Adds a no-argument entry function that runs a step on globals";
  let description = [{
    The calling convention through which `mem-run` and its ahead-of-time
    driver run a training step (docs/execution.md): adds a function
    `@__memrun_entry() -> ()` that reads argument `k` of the step from a new
    global `@__memrun_arg<k>` (`memref.get_global` + `bufferization.to_tensor
    restrict`, not writable: a step that updates an argument in place works
    on a copy, so every step sees the same inputs), calls the step, and
    writes result `k` into a new global `@__memrun_result<k>`
    (`bufferization.materialize_in_destination restrict writable`). The
    globals are uninitialized and 64-byte aligned: the runtime fills and
    reads them at the addresses its loader resolves. Parameters, optimizer
    states and the seed need nothing here: `convert-train-to-linalg` puts
    them in globals of their own. Runs before `convert-train-to-linalg`.

    The step is the function named by `func`, or else the only `func.func`
    with a body. Its arguments and results must be statically shaped tensors
    of integers or floats, and none of the symbols may exist yet.

    ```mlir
    func.func @step(%x: tensor<4xf32>) -> tensor<f32>
    // gains:
    memref.global @__memrun_arg0 : memref<4xf32> = uninitialized {alignment = 64 : i64}
    memref.global @__memrun_result0 : memref<f32> = uninitialized {alignment = 64 : i64}
    func.func @__memrun_entry() {
      %0 = memref.get_global @__memrun_arg0 : memref<4xf32>
      %1 = bufferization.to_tensor %0 restrict : memref<4xf32> to tensor<4xf32>
      %2 = call @step(%1) : (tensor<4xf32>) -> tensor<f32>
      %3 = memref.get_global @__memrun_result0 : memref<f32>
      bufferization.materialize_in_destination %2 in restrict writable %3
          : (tensor<f32>, memref<f32>) -> ()
      return
    }
    ```
  }];
  let options = [
    Option<"funcName", "func", "std::string", /*default=*/"\"\"",
           "The step function (default: the only func.func with a body)">,
  ];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def MemoptWidenContractionAccumulatorsPass
    : Pass<"memopt-widen-contraction-accumulators"> {
  let summary = "Accumulates bf16/f16 contractions in f32";
  let description = [{
    By linalg's semantics a contraction with a bf16 or f16 output
    accumulates in that type: every partial sum is rounded to 16 bits (a sum
    of 300 bf16 ones stops at 256). GEMM libraries keep the sum in f32 and
    round once (cuBLAS with `CUBLAS_COMPUTE_32F`, which memopt-lower-to-gpu
    calls; PyTorch's CPU GEMMs at most shapes). This pass gives the CPU
    lowering the same semantics: after bufferization it rewrites each
    contraction on memrefs whose output is narrower than f32 (a mul-add
    body, projected-permutation maps, static sizes) into `scf.for` loops,
    parallel dimensions outermost, whose reduction loops carry an f32 sum in
    a register that starts from the output's initial value; the rounded sum
    is stored once. No buffer is added, so the memory model is unchanged.
    Part of `memopt-lower-to-cpu`, before `convert-linalg-to-loops`.

    With `parallel`, the parallel dimensions become one `scf.parallel`
    instead (the reduction loops inside it): `memopt-lower-to-gpu` runs it
    after `memopt-linalg-to-cublas`, so that the contractions cuBLAS does
    not take (fp8 operands, strided views) become kernels with a thread per
    output element that sum in f32 too.
  }];
  let options = [
    Option<"parallel", "parallel", "bool", /*default=*/"false",
           "Emit the parallel dimensions as one scf.parallel (for GPU "
           "mapping) rather than nested scf.for loops">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def MemoptExpandFP8ConversionsPass : Pass<"memopt-expand-fp8-conversions"> {
  let summary = "Expands conversions to and from f8E4M3FN and f8E5M2 into "
                "integer bit operations";
  let description = [{
    LLVM has no 8-bit float types: its type conversion stores MLIR's
    `f8E4M3FN` and `f8E5M2` (Transformer Engine's HYBRID format: E4M3 in
    forward, E5M2 for gradients) as `i8` in memrefs, constants and
    `arith.bitcast`s, but `convert-arith-to-llvm` cannot lower an
    `arith.truncf` or `arith.extf` that involves them. This pass rewrites
    those conversions, on scalars and vectors, into integer arithmetic on
    the bits, with `arith.bitcast` between the fp8 type and `i8` at the
    ends, so LLVM only ever sees `i8`. Part of `memopt-lower-to-cpu` and
    `memopt-lower-to-gpu` (host and device code), after the loops are
    formed and before `arith-expand`; `memopt-check-fp8-conversions` then
    fails on whatever is left.

    `arith.truncf` from f16, bf16, f32 or f64 rounds the source value
    directly (in integers of the source's width, so a f64 is rounded once,
    not first to f32) with the saturating semantics of NVIDIA's
    `__NV_SATFINITE` conversion, which Transformer Engine uses, in the
    formats of the OCP 8-bit floating point specification:

    * round to nearest, ties to even, subnormals included;
    * finite values beyond the largest finite magnitude (448 for E4M3FN,
      57344 for E5M2) and infinities saturate to that magnitude with their
      sign: E5M2's infinities are never produced;
    * NaN becomes the canonical NaN with the input's sign: S.1111.111
      (0x7F / 0xFF) for E4M3FN, which has no infinity, and the quiet NaN
      S.11111.10 (0x7E / 0xFE) for E5M2;
    * -0 stays -0.

    `arith.extf` to f16, bf16, f32 or f64 is exact: the bits are decoded
    to f32 (subnormals through an exact `arith.uitofp` and a multiplication
    by a power of two; E5M2's infinities to infinities; every NaN to a
    quiet NaN of the same sign, E5M2's payload kept), then extended to f64
    or truncated to f16 or bf16, which every fp8 value fits exactly.

    Only round-to-nearest-even conversions (no `roundingmode`, or
    `to_nearest_even`) on scalars and vectors are rewritten; a conversion of
    those formats on tensors, with another rounding mode or from or to
    another float type is an error. Conversions of other 8-bit formats are
    left alone.

    ```mlir
    %h = arith.truncf %x : f32 to f8E4M3FN
    // becomes
    %bits = arith.bitcast %x : f32 to i32
    ... arith.andi, arith.shrui, arith.subi, arith.addi, arith.select ...
    %code = arith.trunci %r : i32 to i8
    %h = arith.bitcast %code : i8 to f8E4M3FN
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def MemoptCheckFP8ConversionsPass : Pass<"memopt-check-fp8-conversions"> {
  let summary = "Fails on 8-bit float arithmetic that LLVM cannot lower";
  let description = [{
    Runs in `memopt-lower-to-cpu` and `memopt-lower-to-gpu` after
    `memopt-expand-fp8-conversions` and `arith-expand`. LLVM stores 8-bit
    (and narrower) floats as integers, so an `arith` or `math` op that still
    converts or computes on them would otherwise be left unconverted and
    fail late (a translation or JIT error without a location). This pass
    reports every such op at its location: an `arith.truncf` or
    `arith.extf` (a format no pass expands, or a conversion left behind),
    or arithmetic on such floats. `arith.constant`, `arith.bitcast` and
    `arith.select`, which LLVM's type conversion handles, are allowed. The
    pass changes nothing.

    ```mlir
    %y = arith.extf %x : f8E4M3FNUZ to f32
    // error: 'arith.extf' op converts 'f8E4M3FNUZ' to 'f32', which the LLVM
    //        lowering cannot do: memopt-expand-fp8-conversions expands
    //        conversions to and from f8E4M3FN and f8E5M2 and arith-expand
    //        those of f8E8M0FNU
    ```
  }];
}

//===----------------------------------------------------------------------===//
// GPU lowering (memopt-lower-to-gpu)
//===----------------------------------------------------------------------===//

def MemoptCheckLinalgInputPass
    : Pass<"memopt-check-linalg-input", "::mlir::ModuleOp"> {
  let summary = "Fails on train ops: the lowering pipelines expect linalg";
  let description = [{
    The first pass of `memopt-lower-to-cpu` and `memopt-lower-to-gpu`: both
    start from linalg on tensors, as `convert-train-to-linalg` produces it.
    A `train` op still in the module would otherwise fail deep inside
    bufferization ("op was not bufferized"); this pass reports it at the op
    and says what to run first. The pass changes nothing.

    ```mlir
    // mem-opt step.mlir --memopt-lower-to-gpu reports:
    // error: memopt-lower-to-gpu expects linalg on tensors, but 'train.param'
    //        is a train op; run --convert-train-to-linalg first
    ```
  }];
  let options = [
    Option<"pipeline", "pipeline", "std::string",
           /*default=*/"\"the lowering\"",
           "The pipeline name to put in the error message">,
  ];
}

def MemoptGPUCheckTargetPass
    : Pass<"memopt-gpu-check-target", "::mlir::ModuleOp"> {
  let summary = "Validates the NVIDIA target options of memopt-lower-to-gpu";
  let description = [{
    Checks the chip, PTX features and binary format that
    `memopt-lower-to-gpu` passes on to `nvvm-attach-target` and
    `gpu-module-to-binary`, so that a typo is reported before any lowering
    (and not as a ptxas failure at the end). The chip must be one that both
    LLVM's NVPTX backend and the CUDA 13 ptxas accept (sm_75, sm_80, sm_86,
    sm_87, sm_89, sm_90, sm_90a, sm_100, sm_100a, sm_103, sm_103a, sm_120,
    sm_120a, sm_121, sm_121a; CUDA 13 dropped the older ones); the features
    are empty or `+ptxNN` with at least the PTX ISA version that introduced
    the chip (7.0 for sm_80, 7.8 for sm_90, ...); the format is one of
    `bin`, `isa`, `fatbin`. The pass changes nothing.

    ```mlir
    // mem-opt --memopt-gpu-check-target=chip=sm_99 reports:
    // error: unknown chip 'sm_99'; expected one of sm_75, sm_80, ...
    ```
  }];
  let options = [
    Option<"chip", "chip", "std::string", "\"sm_90\"", "Target chip (SM version)">,
    Option<"features", "features", "std::string", "\"+ptx80\"",
           "PTX features (`+ptxNN`)">,
    Option<"format", "format", "std::string", "\"bin\"",
           "Binary format: bin (cubin), isa (PTX) or fatbin">,
  ];
}

def MemoptShardToNcclPass
    : Pass<"memopt-shard-to-nccl", "::mlir::ModuleOp"> {
  let summary = "Rewrites shard collectives on tensors into NCCL calls";
  let description = [{
    Runs before bufferization in `memopt-lower-to-gpu`. Each
    `shard.all_reduce`, `shard.all_gather` and `shard.reduce_scatter` on
    ranked tensors of static shape becomes a call of the CUDA runtime's
    NCCL entry points (lib/Runtime/CUDA/CudaCollectives.cpp) on buffers:
    the input as a read-only buffer (`bufferization.to_buffer`), the result
    in a new allocation (`memref.alloc`, returned through
    `bufferization.to_tensor restrict writable`), both passed as unranked
    memrefs so that the deallocation passes see the call as a use. The
    group is `memopt_nccl_group(grid shape, grid axes)`: the processes that
    share their coordinates on the grid's other axes, ordered by their
    coordinates on `grid_axes` (upstream's order); the runtime splits the
    world communicator once per group.

    NCCL gathers and scatters contiguous chunks in group order. A gather
    along axis k > 0 gathers into `[group, input...]`, then transposes the
    group dimension next to axis k and merges the two
    (`linalg.transpose`, `tensor.collapse_shape`); a scatter along axis
    k > 0 first splits axis k into `[group, chunk]` and moves the group
    dimension outermost. An all_reduce or reduce_scatter whose result
    element type differs from its input's converts the input first (floats
    only), as the op's semantics say. `shard.process_linear_index` and
    `shard.process_multi_index` become the runtime's rank (delinearized by
    the grid's shape); grids with no users left are erased.

    In a step planned by `train-plan-memory`, `convert-train-to-linalg`
    gives each planned collective `memopt.arena_offsets` (its result's and
    its staging buffer's offsets in the arena, -1 for none) and the arena's
    allocation `memopt.arena`: the result and the staging buffer are then
    views of the arena (`memref.view`), not allocations.

    Supported: element types f32, f64, f16, bf16, i8, i32, i64; reductions
    sum, product, max, min and average (floats); static grids of at most 4
    axes. Anything else, and every other `shard` op, is an error.

    ```mlir
    %1 = shard.all_reduce %0 on @grid grid_axes = [0]
        : tensor<4x8xf32> -> tensor<4x8xf32>
    // becomes
    %g = call @memopt_nccl_group(%c2, %c0, %c0, %c0, %c0, %cm1, %cm1, %cm1)
    %in = bufferization.to_buffer %0 read_only : ... to memref<4x8xf32>
    %out = memref.alloc() : memref<4x8xf32>
    call @memopt_nccl_all_reduce_f32(%g, %in_u, %out_u, %c32, %c0_i32)
        : (i64, memref<*xf32>, memref<*xf32>, i64, i32) -> ()
    %1 = bufferization.to_tensor %out restrict writable : ...
    ```
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def MemoptShardToMpiPass
    : Pass<"memopt-shard-to-mpi", "::mlir::ModuleOp"> {
  let summary = "Rewrites shard collectives on tensors into MPI calls";
  let description = [{
    The CPU counterpart of `memopt-shard-to-nccl`, run before bufferization
    in `memopt-lower-to-cpu`: the same rewrite, calling the MPI runtime's
    entry points `memopt_mpi_group`, `memopt_mpi_rank` and
    `memopt_mpi_{all_reduce,all_gather,reduce_scatter}_<type>`
    (lib/Runtime/MpiCollectives.cpp), which call `MPI_Allreduce`,
    `MPI_Allgather` and `MPI_Reduce_scatter_block` on a communicator split
    once per group of the grid (`MPI_Comm_split`). LLVM 22's
    `convert-shard-to-mpi` lowers only `all_reduce`, and its `mpi` dialect
    has neither an allgather nor a reduce-scatter.

    Supported: element types f32, f64, f16, bf16 (reduced in f32), i8, i32,
    i64; reductions sum, product, max, min and average (floats); static
    grids of at most 4 axes.
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def MemoptLinalgToCublasPass
    : Pass<"memopt-linalg-to-cublas", "::mlir::ModuleOp"> {
  let summary = "Rewrites matmul-like linalg ops on memrefs into cuBLAS calls";
  let description = [{
    Replaces every linalg contraction on buffers that cuBLAS can compute --
    `linalg.matmul`, `linalg.batch_matmul` (also with transposing
    `indexing_maps`) and the `linalg.generic` contractions
    `convert-train-to-linalg` builds for matmuls with several batch
    dimensions or a shared right-hand side -- by one call of the runtime
    function `memopt_cublas_gemm` (lib/Runtime/CUDA), which runs
    `cublasGemmStridedBatchedEx` with alpha = 1 and beta = 1 (linalg
    contractions accumulate into their output).

    A contraction qualifies when its body is a multiply-add (operands
    possibly extended to the output type), every operand's two matrix
    dimensions have
    static strides of which one is 1 (row- or column-major, transposed views
    included) and the element types are a combination cuBLAS supports:
    f32 x f32 -> f32, f64 x f64 -> f64, bf16 x bf16 -> bf16 or f32,
    f16 x f16 -> f16 or f32. Accumulation is in f32 (f64 for f64), which is
    at least as precise as the IR's. Other contractions are left alone and
    become loops.

    The innermost reduction dimension is the GEMM's depth and the two
    innermost batch dimensions are the runtime's outer loop and cuBLAS's
    strided batch. Further reduction and batch dimensions (grouped-query
    attention's group, or its group sum in the key and value gradients) run
    as `scf.for` loops around the call, each moving the operands by their
    strides; with beta = 1 the calls of a reduction loop accumulate.

    ```mlir
    linalg.matmul ins(%a, %b : memref<8x16xf32>, memref<16x32xf32>)
                  outs(%c : memref<8x32xf32>)
    // becomes (row-major C = A B is column-major C^T = B^T A^T):
    func.call @memopt_cublas_gemm(%c0_i32, %c0_i32, %c0_i32, %c0_i32, ...)
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def MemoptGPUMemoryCopiesPass
    : Pass<"memopt-gpu-memory-copies", "::mlir::ModuleOp"> {
  let summary = "Rewrites the copies between device and host memory into "
                "runtime copy calls";
  let description = [{
    Runs on buffers in `memopt-lower-to-gpu`, right after bufferization. A
    step with values in host memory (`train-offload`, `train-remat`'s
    `offload`) lowers each `train.to_host` and `train.to_device` as a
    `linalg.copy` marked `memopt.memory_copy = "to_host"` or `"to_device"`.
    Each such copy whose two buffers are contiguous (static shape,
    row-major strides, any offset) becomes one call of the runtime function
    `memopt_memory_copy(dst, src, bytes, to_device)`, with the buffers'
    addresses (aligned pointer plus offset) as i64. The CUDA runtime runs
    it as `cuMemcpyAsync` on its stream between pinned host memory and
    device memory (a copy to the host is waited for, since host code reads
    it next); the CPU runtime, which the emulator uses, as `memcpy`. A copy
    of a strided view stays a loop (kernels and host code can both reach
    pinned host memory and managed device memory).

    ```mlir
    linalg.copy {memopt.memory_copy = "to_host"}
        ins(%act : memref<8x64xf32>) outs(%host : memref<8x64xf32>)
    // becomes (%dst, %src: the buffers' addresses as i64)
    func.call @memopt_memory_copy(%dst, %src, %c2048_i64, %c0_i32)
        : (i64, i64, i64, i32) -> ()
    ```

    The host code itself -- the ops between the lowering's
    `memopt_memory_space(1)` and `memopt_memory_space(0)` calls -- is left
    on the CPU by `memopt-linalg-to-cublas`, `memopt-gpu-block-reductions`
    and `memopt-gpu-map-loops`.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def MemoptGPUPrepareLinalgPass
    : Pass<"memopt-gpu-prepare-linalg", "::mlir::func::FuncOp"> {
  let summary = "Shapes linalg ops on buffers for the GPU loop mapping";
  let description = [{
    Runs before `convert-linalg-to-parallel-loops` in `memopt-lower-to-gpu`:

    * `memref.copy` (bufferization's copies of views, of optimizer states
      written back into their globals) becomes `linalg.copy`, so that copies
      become kernels instead of host loops;
    * a linalg op with a reduction dimension before a parallel one (a sum
      over the batch dimension of a bias gradient) is generalized and its
      loops interchanged so that every parallel dimension comes first: its
      parallel loops then enclose the reduction loop and map onto threads,
      one output element per thread. Each output element still accumulates
      in the original order, so results are unchanged.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def MemoptGPUBlockReductionsPass
    : Pass<"memopt-gpu-block-reductions", "::mlir::func::FuncOp"> {
  let summary = "Maps long linalg reductions onto one block per output element";
  let description = [{
    Runs after `memopt-gpu-prepare-linalg` and before
    `convert-linalg-to-parallel-loops` in `memopt-lower-to-gpu`. A linalg op
    on buffers whose reduction dimensions span at least `min-extent`
    iterations (the rows of a softmax or a layer norm, the batch summed by a
    bias gradient, the loss's mean into a 0-d buffer) becomes a `gpu.launch`
    with one block per output element (one block for a 0-d output):

    * every thread folds a strided part of the linearized reduction space
      (thread `t` takes iterations `t`, `t + B`, ... of a block of `B`),
      starting from the combiner's neutral element
      (`arith::getNeutralElement`: 0 for a sum, -inf for `arith.maximumf`),
      so threads past the end contribute the neutral element;
    * the block combines the partial results with a uniform
      `gpu.all_reduce` (warp shuffles and workgroup memory, lowered by
      `convert-gpu-to-nvvm`), outside any condition, so every thread of the
      block reaches it;
    * thread 0 combines the result with the output's initial value (linalg
      reductions accumulate into their output) and stores it.

    The block has `B` = `ceil(extent / 8)` threads rounded up to a multiple
    of 32, at least 32 and at most `block-size`, so a thread folds at least
    about 8 elements. Each output of the op must be a recognized reduction
    (`matchReduction`: a single combiner, one of `arith.addf/addi`,
    `mulf/muli`, `maximumf/minimumf/maxnumf/minnumf`, `maxsi/minsi/maxui/
    minui`, `andi/ori/xori`) of f32, f64, i32 or i64; f16 and bf16
    reductions fold and combine in f32 and round once when storing. The body
    may read other buffers (`memref.load`) and use `linalg.index`. Every
    other reduction (a short one, an unrecognized body, other element types,
    more than 2^17 output elements, where one thread per output element
    already fills the device) is left to
    `convert-linalg-to-parallel-loops` and `memopt-gpu-map-loops`: one
    thread per output element, the reduction sequential in the thread.

    Floating-point sums are reassociated (as in any parallel reduction), so
    results differ from the sequential order within rounding; min/max,
    integer and bitwise reductions are exact.

    ```mlir
    linalg.generic {iterator_types = ["parallel", "reduction"], ...}
        ins(%x : memref<8x4096xf32>) outs(%sum : memref<8xf32>) { ... }
    // becomes, with block-size=256
    gpu.launch blocks(%bx, ...) in (%gx = %c8, ...)
               threads(%tx, ...) in (%sx = %c256, ...) {
      %part = scf.for %r = %tx to %c4096 step %c256
          iter_args(%acc = %zero) -> (f32) { ... }
      %all = gpu.all_reduce add %part uniform {} : (f32) -> f32
      scf.if %is_thread_0 { ... memref.store ... }
      gpu.terminator
    }
    ```
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", "256",
           "Most threads per block (a multiple of 32, at most 1024)">,
    Option<"minExtent", "min-extent", "int64_t", "256",
           "Fewest reduction iterations per output element for a block "
           "reduction (at least 1)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def MemoptGPUMapLoopsPass
    : Pass<"memopt-gpu-map-loops", "::mlir::func::FuncOp"> {
  let summary = "Maps outermost parallel loops onto GPU blocks and threads";
  let description = [{
    Turns every outermost `scf.parallel` of a function (the output of
    `convert-linalg-to-parallel-loops`) with static bounds into a
    `gpu.launch`: its iteration space is linearized (last dimension
    fastest, so that neighbouring threads touch neighbouring elements) and
    tiled into blocks of `block-size` threads, one thread per parallel
    iteration; a guard skips the threads past the end. Reduction dimensions
    stay sequential loops inside each thread: one thread per output element
    of the reductions `memopt-gpu-block-reductions` left (shorter than its
    `min-extent`, or not recognized), e.g. a short row sum.

    An outermost sequential loop nest that touches memory (a short or
    unrecognized reduction into a 0-d result) becomes a single-thread
    launch, so that its data stays on the device. Other host code (scalar
    loads and stores) stays on the host, which shares the (managed) memory
    with the kernels, and so do the loops of a step's host code (the ops
    between the lowering's `memopt_memory_space(1)` and
    `memopt_memory_space(0)` calls: train-offload's host updates).

    ```mlir
    scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c32) step (%c1, %c1) { ... }
    // becomes
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, ...)
               threads(%tx, %ty, %tz) in (%sx = %c256, ...) { ... }
    ```
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", "256",
           "Threads per block (a multiple of 32, at most 1024)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def MemoptGPUEmulateLaunchesPass
    : Pass<"memopt-gpu-emulate-launches", "::mlir::func::FuncOp"> {
  let summary = "Runs gpu.launch bodies as CPU loops, to check kernels without a GPU";
  let description = [{
    Replaces every `gpu.launch` by sequential loops over its blocks and
    threads (x fastest), executing the body once per thread on the CPU, so
    that the kernels `memopt-lower-to-gpu` forms (loop mapping, block
    reductions) can be executed and compared with the CPU lowering on a
    machine without a GPU. `memopt-lower-to-gpu{emulate=true}` uses it in
    place of outlining, NVVM and ptxas; `mem-run --target=gpu` without
    `--emit-aot` runs that.

    A top-level `gpu.all_reduce` (op form) is a synchronization point: for
    each block, the body up to it runs for every thread, storing the
    operand in an array (a `memref.alloca`, hoisted to the function's entry
    when the block size is static); the array is folded in thread order;
    then the body
    runs again for every thread with the all-reduce's result replaced by
    the fold. This re-execution is only correct when nothing before the
    last all-reduce writes memory, which the pass checks. Not emulated (an
    error): `gpu.barrier`, shuffles, subgroup reductions, all-reduces with
    a region or nested in control flow, workgroup or private attributions,
    asynchronous launches.

    Races between threads (two threads writing one element) are not
    detected: threads run one after another.

    ```mlir
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c8, ...)
               threads(%tx, %ty, %tz) in (%sx = %c256, ...) { ... }
    // becomes
    scf.for %bz = %c0 to %c1 step %c1 { scf.for %by ... { scf.for %bx ...
      { scf.for %tz ... { scf.for %ty ... { scf.for %tx ... { body } } } } } }
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def MemoptGPUMergeKernelModulesPass
    : Pass<"memopt-gpu-merge-kernel-modules", "::mlir::ModuleOp"> {
  let summary = "Puts every outlined kernel into one gpu.module";
  let description = [{
    `gpu-kernel-outlining` makes one `gpu.module` per kernel, and
    `gpu-module-to-binary` runs the NVPTX backend, links libdevice and runs
    ptxas once per module: for a training step with hundreds of kernels,
    hundreds of ptxas processes. This pass moves every kernel into a single
    `gpu.module @memopt_kernels` (each kernel renamed after its former
    module, which is unique) and updates the `gpu.launch_func` ops, so a step
    compiles with one ptxas run and loads one cubin. Modules holding anything
    but kernels are left as they are.

    ```mlir
    gpu.module @step_kernel { gpu.func @step_kernel(...) kernel { ... } }
    gpu.module @step_kernel_0 { gpu.func @step_kernel(...) kernel { ... } }
    // becomes
    gpu.module @memopt_kernels {
      gpu.func @step_kernel(...) kernel { ... }
      gpu.func @step_kernel_0(...) kernel { ... }
    }
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def MemoptGPUDeviceGlobalsPass
    : Pass<"memopt-gpu-device-globals", "::mlir::ModuleOp"> {
  let summary = "Makes the host globals a lowered step uses device-accessible";
  let description = [{
    Runs on the host LLVM dialect after `gpu-to-llvm`. Parameters,
    optimizer states, inputs and constants live in module globals
    (`memref.global`, now `llvm.mlir.global`) in host memory, which GPU
    kernels and cuBLAS cannot read. Every `llvm.mlir.addressof` of such a
    global in a host function is replaced by a call of the runtime function
    `memopt_cuda_global(host_address, bytes)`, which returns a CUDA managed
    copy of the global, made (and initialized from the host copy) on first
    use and reused afterwards. A driver that reads a global back (losses,
    updated parameters) calls `memopt_cuda_global_to_host(host_address)`.
    The globals the module's `memopt.host_globals` names (parameters and
    optimizer states `train-offload` keeps in host memory) go through
    `memopt_cuda_host_global(host_address, bytes)` instead: a copy in
    pinned host memory, which host code updates and `cuMemcpyAsync` copies
    to the device.

    ```mlir
    %0 = llvm.mlir.addressof @__param__fc1.weight : !llvm.ptr
    // becomes
    %0 = llvm.mlir.addressof @__param__fc1.weight : !llvm.ptr
    %1 = llvm.call @memopt_cuda_global(%0, %bytes) : (!llvm.ptr, i64) -> !llvm.ptr
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // MEMOPT_CONVERSION_PASSES_TD
