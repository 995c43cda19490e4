# -*- Python -*-
# lit configuration of the memopt regression tests.

import importlib.util
import os
import sys

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "MEMOPT"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.memopt_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "lib", "Unit", "Inputs"]
config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%memopt_src_root", config.memopt_src_root))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])

# Two tiers (docs/reliability.md, "Test tiers"). `ninja check-memopt` runs the
# short tier: one representative of every check. `ninja check-memopt-long`
# passes `--param long=1`, which adds the tests marked `REQUIRES: long-tier`:
# the campaigns, the model-scale repeats and the 4- and 8-process variants.
# In the short tier lit reports them as UNSUPPORTED.
if lit_config.params.get("long", "0").lower() not in ("0", "", "false", "off", "no"):
    config.available_features.add("long-tier")
else:
    lit_config.note("short tier: tests marked 'REQUIRES: long-tier' are skipped "
                    "(UNSUPPORTED); `ninja -C build check-memopt-long` runs them too")
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tools = [
    ToolSubst("mem-autoplan", unresolved="fatal"),
    ToolSubst("mem-gen", unresolved="fatal"),
    ToolSubst("mem-import", unresolved="fatal"),
    ToolSubst("mem-opt", unresolved="fatal"),
    ToolSubst("mem-plan", unresolved="fatal"),
    ToolSubst("mem-report", unresolved="fatal"),
    # The tests' steps are small: LLVM's optimization of their lowered code
    # (its loop passes over the one large step function) takes longer than
    # running it unoptimized (bench/run/README.md). A RUN line that gives
    # --opt-level itself overrides this one (the last occurrence wins).
    ToolSubst("mem-run", extra_args=["--opt-level=0"], unresolved="fatal"),
]
llvm_config.add_tool_substitutions(tools, [config.memopt_tools_dir, config.llvm_tools_dir])
config.substitutions.append(("%memopt_obj_root", config.memopt_obj_root))

# Sanitizer builds (MEMOPT_SANITIZE, docs/reliability.md): every finding
# aborts, so that it fails its test even under `not` (an ASan or UBSan error
# otherwise exits with status 1, which `not` would take for the expected
# failure). Options given in the environment come after these and win.
mlir_runner = os.path.join(config.llvm_tools_dir, "mlir-runner")
if getattr(config, "memopt_sanitize", ""):
    for sanitizer in config.memopt_sanitize.split(";"):
        config.available_features.add(sanitizer + "-sanitizer")
    sanitizer_options = "abort_on_error=1:halt_on_error=1:print_stacktrace=1"
    for name in ["ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"]:
        user = os.environ.get(name)
        config.environment[name] = sanitizer_options + (":" + user if user else "")
    # MPICH's UCX transport (libucm, loaded with libmpich by mem-run and the
    # unit tests) patches mmap's code when it loads, which crashes under
    # ASan's interception of mmap: its hook stays off here.
    config.environment["UCX_MEM_MMAP_HOOK_MODE"] = "none"
    # mlir-runner is not instrumented; it loads memopt's instrumented runtime,
    # which needs the ASan runtime loaded first. Its JIT and LLVM's
    # allocations are not memopt's: no leak check there.
    if config.memopt_asan_runtime:
        mlir_runner = "env LD_PRELOAD=%s ASAN_OPTIONS=%s:detect_leaks=0 %s" % (
            config.memopt_asan_runtime, config.environment["ASAN_OPTIONS"], mlir_runner)

# The libFuzzer targets (fuzz/, -DMEMOPT_BUILD_FUZZERS=ON): test/Fuzz runs
# them on the inputs of past findings.
if getattr(config, "memopt_build_fuzzers", False):
    config.available_features.add("fuzzers")

# Execution tests: lower with mem-opt, run with mlir-runner against the
# runner utilities and memopt's allocation-counting runtime.
config.substitutions.append(("%mlir_runner", mlir_runner))
runner_libs = [
    os.path.join(config.llvm_lib_dir, "libmlir_runner_utils.so"),
    os.path.join(config.llvm_lib_dir, "libmlir_c_runner_utils.so"),
    os.path.join(config.memopt_obj_root, "lib", "libmemopt_runtime.so"),
]
config.substitutions.append(("%runner_libs", "-shared-libs=" + ",".join(runner_libs)))
# memopt-lower-to-gpu with its kernels run as CPU loops (every reduction a
# block reduction of at most 32 threads, cuBLAS calls computed by
# libmemopt_runtime): GPU lowering results checked by execution on the CPU.
config.substitutions.append(("%gpu_emulator", "--memopt-lower-to-gpu='emulate=true reduction-min-extent=1 block-size=32'"))
# The NCCL entry points simulated on the CPU (test/lib/Runtime/NcclLoopback.cpp).
config.substitutions.append(("%nccl_loopback", os.path.join(config.memopt_obj_root, "lib", "libmemopt_nccl_loopback.so")))

# The PyTorch comparisons (test/Integration/pytorch) run under the Python that
# runs lit; they need torch (Debian's python3-torch, see scripts/bootstrap.sh).
config.substitutions.append(("%python", sys.executable))
# The PyTorch front end (python/memopt_torch) runs from the source tree.
config.environment["PYTHONPATH"] = os.path.join(config.memopt_src_root, "python")
# `predict --device cuda` replays its trace with this build's mem-plan.
config.environment["MEMOPT_MEM_PLAN"] = os.path.join(config.memopt_tools_dir, "mem-plan")
if importlib.util.find_spec("torchvision") is not None:
    config.available_features.add("torchvision")
if importlib.util.find_spec("torch") is not None:
    config.available_features.add("torch")

# GPU lowering (memopt-lower-to-gpu): needs the CUDA toolkit's ptxas and
# libdevice, never a GPU. `cuda-driver` marks a machine where libcuda.so.1
# loads (the tests of the runtime's no-driver message do not apply there).
config.substitutions.append(("%aot_build", os.path.join(config.memopt_src_root, "scripts", "aot-build.sh")))
if config.have_cuda_toolkit and os.path.exists(os.path.join(config.cuda_toolkit, "bin", "ptxas")):
    config.available_features.add("cuda-toolkit")
    llvm_config.with_environment("PATH", os.path.join(config.cuda_toolkit, "bin"), append_path=True)
    config.substitutions.append(("%cuda_toolkit", config.cuda_toolkit))
    llvm_config.add_tool_substitutions([ToolSubst("memopt-cuda-info", unresolved="fatal")], [config.memopt_tools_dir])
try:
    import ctypes
    ctypes.CDLL("libcuda.so.1")
    config.available_features.add("cuda-driver")
except OSError:
    pass
