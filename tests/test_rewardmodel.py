"""Reward model: features, surrogate persistence and update, evaluation metrics, reward gates, CLI."""
from __future__ import annotations

import json
import math
import shutil
import sys
import zipfile

import numpy as np
import pytest

from rewardmodel import features as F
from rewardmodel.evaluate import pairwise_accuracy, top1_regret
from rewardmodel.reward import Measurement, RewardConfig, reward

SAXPY = """
__global__ void saxpy(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""
LAUNCH = dict(grid=(4096, 1, 1), block=(256, 1, 1), args={"n": 1 << 20})


# ------------------------------------------------------------------ features

def test_feature_row_has_the_schema_and_the_roofline():
    f = F.extract(SAXPY, "saxpy", problem=F.Problem(bytes=12 << 20, flops=2 << 20), **LAUNCH)
    v = f.vector()
    assert v.shape == (len(F.FEATURE_NAMES),)
    assert f.values["gld_sectors_per_req"] == pytest.approx(4.0)
    assert f.values["bytes_known"] == 1.0
    # 12 MiB at the H200's 4.3 TB/s
    assert f.roofline_s == pytest.approx((12 << 20) / 4.3e12)
    assert not any("bytes" in u for u in f.unresolved)


def test_data_dependent_accesses_still_count_and_the_pipe_estimate_sees_them():
    src = """
    __global__ void hist(const int* data, int* bins, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) atomicAdd(&bins[data[i]], 1);
    }"""
    n = 1 << 24
    f = F.extract(src, "hist", grid=(n // 256, 1, 1), block=(256, 1, 1), args={"n": n},
                  problem=F.Problem(bytes=4 * n, flops=0))
    v = f.values
    # one warp request per 32 elements, and every lane an atomic: n atomics
    assert v["log_unknown_gst_requests"] == pytest.approx(math.log10(1 + n / 32))
    assert v["log_unknown_gld_requests"] == 0.0 and v["log_unknown_shared_requests"] == 0.0
    assert v["log_atomic_ops"] == pytest.approx(math.log10(1 + n))
    # 16M uncontended atomics at 4.93e11/s are the slowest pipe (the data's 64 MB take 15.6 us)
    assert 10 ** v["log_time_estimate_s"] == pytest.approx(n / 4.93e11 + 6.4e-6)
    saxpy = F.extract(SAXPY, "saxpy", problem=F.Problem(bytes=12 << 20, flops=2 << 20), **LAUNCH).values
    assert saxpy["log_unknown_gst_requests"] == 0.0 and saxpy["log_atomic_ops"] == 0.0
    # saxpy: its 12 MiB from DRAM (4.3 TB/s) take longer than the same sectors through L2 (7.64 TB/s)
    assert 10 ** saxpy["log_time_estimate_s"] == pytest.approx((12 << 20) / 4.3e12 + 6.4e-6)


def test_pipe_features_name_the_binding_pipe():
    saxpy = F.extract(SAXPY, "saxpy", problem=F.Problem(bytes=12 << 20, flops=2 << 20), **LAUNCH).values
    # DRAM binds (the estimate's slowest pipe, less the launch); the others are below it
    assert saxpy["pipe_dram"] == pytest.approx(math.log10(((12 << 20) / 4.3e12) / ((12 << 20) / 4.3e12 + 6.4e-6)))
    assert all(saxpy[f"pipe_{p}"] < saxpy["pipe_dram"] for p in ("l2", "requests", "fp32"))
    assert math.isnan(saxpy["pipe_shared"]) and math.isnan(saxpy["pipe_atomics"])   # unused pipes
    assert saxpy["log_barrier_warps"] == 0.0 and math.isnan(saxpy["barrier_warps_per_clk"])


def test_barriers_are_counted_per_warp_and_iteration():
    src = """
    __global__ void sums(const float* x, float* y, int n) {
        __shared__ float s[256];
        float acc = 0.0f;
        for (int c = 0; c < 16; ++c) {
            s[threadIdx.x] = x[c * n + blockIdx.x * 256 + threadIdx.x];
            __syncthreads();
            acc += s[255 - threadIdx.x];
            __syncthreads();
        }
        y[blockIdx.x * 256 + threadIdx.x] = acc;
    }"""
    v = F.extract(src, "sums", grid=(100, 1, 1), block=(256, 1, 1), args={"n": 25600}).values
    # 2 barriers x 16 iterations x 8 warps x 100 blocks
    assert v["log_barrier_warps"] == pytest.approx(math.log10(1 + 2 * 16 * 8 * 100))
    assert v["barriers"] == 2 and v["barriers_in_loops"] == 2


def test_only_too_deep_nesting_leaves_a_barrier_or_branch_uncounted(monkeypatch):
    """Conditions nested beyond the recursion limit leave that barrier (branch) out of the counts
    and keep the row; any other error in the models is a bug and surfaces (a broad `except` once
    hid one: the barrier features were 0 for 1,770 corpus rows in an intermediate build)."""
    from analyzer.rules import KernelContext

    src = """
    __global__ void k(float* y, int n) {
        for (int i = 0; i < n; ++i) {
            if (threadIdx.x < 7) y[i * 32 + threadIdx.x] = 1.0f;
            __syncthreads();
        }
    }"""
    launch = dict(grid=(4, 1, 1), block=(128, 1, 1), args={"n": 10})
    v = F.extract(src, "k", **launch).values
    assert v["log_barrier_warps"] == pytest.approx(math.log10(1 + 10 * 4 * 4)) and v["divergent_branches"] == 1

    def too_deep(self, *a):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(KernelContext, "warp_arrivals", too_deep)
    monkeypatch.setattr(KernelContext, "divergent", too_deep)
    v = F.extract(src, "k", **launch).values
    assert v["log_barrier_warps"] == 0.0 and v["divergent_branches"] == 0 and v["barriers"] == 1

    def broken(self, *a):
        raise AttributeError("'Barrier' object has no attribute 'issued'")

    monkeypatch.setattr(KernelContext, "warp_arrivals", broken)
    with pytest.raises(AttributeError):
        F.extract(src, "k", **launch)


def test_accesses_under_a_data_dependent_condition_are_left_out_of_the_estimate():
    # a per-block histogram's flush adds only its non-empty bins: how many is up to the data
    src = """
    __global__ void flush(const int* local_counts, int* counts) {
        int c = local_counts[blockIdx.x * 4096 + threadIdx.x];
        if (c != 0) atomicAdd(&counts[threadIdx.x], c);
    }"""
    launch = dict(grid=(4096, 1, 1), block=(1024, 1, 1))
    v = F.extract(src, "flush", problem=F.Problem(bytes=4 * 4096 * 1024, flops=0), **launch).values
    always = F.extract(src.replace("if (c != 0) ", ""), "flush", problem=F.Problem(bytes=4 * 4096 * 1024, flops=0),
                       **launch).values
    blocks_warps = 4096 * 1024 // 32
    assert v["log_data_guarded_requests"] == pytest.approx(math.log10(1 + blocks_warps))
    assert always["log_data_guarded_requests"] == 0.0
    # both count the atomics as features; only the unconditional one is bound by them
    assert v["log_atomic_ops"] == always["log_atomic_ops"] == pytest.approx(math.log10(1 + 4096 * 1024))
    assert always["pipe_atomics"] == pytest.approx(math.log10(4096 * 1024 / 4.93e11 / 10 ** always["log_time_estimate_s"]))
    assert v["log_time_estimate_s"] < always["log_time_estimate_s"]
    assert math.isnan(v["pipe_atomics"])


def test_unresolved_features_are_named():
    src = """
    __global__ void gather(const int* idx, const float* x, float* y, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) y[i] = x[idx[i]];
    }"""
    f = F.extract(src, "gather", grid=(64, 1, 1), block=(256, 1, 1))
    text = " ".join(f.unresolved)
    assert "data-dependent" in text and "task bytes unknown" in text and "n" in text
    assert f.values["unknown_accesses"] == 1


def test_missing_kernel_is_a_feature_error():
    with pytest.raises(F.FeatureError, match="not found"):
        F.extract(SAXPY, "nope", **LAUNCH)


def test_mask_ptxas_blanks_only_ptxas_features():
    f = F.extract(SAXPY, "saxpy", resources={"registers": 16, "spill_stores": 0, "spill_loads": 0}, **LAUNCH)
    v = f.vector()
    m = F.mask_ptxas(v[None, :])[0]
    for i, name in enumerate(F.FEATURE_NAMES):
        if name in F.PTXAS_FEATURES:
            assert not math.isnan(v[i]) and math.isnan(m[i])
        else:
            assert np.array_equal(v[i], m[i], equal_nan=True)


# ------------------------------------------------------------------ metrics

def test_pairwise_accuracy_and_regret_by_hand():
    task = np.array(["a", "a", "a", "b", "b"])
    true = np.array([1.0, 2.0, 4.0, 1.0, 3.0])
    pred = np.array([1.0, 3.0, 2.0, 5.0, 5.0])     # task a: one of three pairs wrong; task b: a tie
    acc, pairs = pairwise_accuracy(task, true, pred)
    assert pairs == 4 and acc == pytest.approx((2 + 0.5) / 4)
    regret = top1_regret(task, true, pred)
    assert regret.tolist() == pytest.approx([0.0, (1.0 + 3.0) / 2 - 1.0])


# ------------------------------------------------------------------ reward gates on crafted hacking kernels

def _gates(src, kernel="k", **cfg):
    br, _, _ = reward(src, kernel, grid=(256, 1, 1), block=(256, 1, 1), args={"n": 65536},
                      config=RewardConfig(**cfg))
    return br


HONEST = """
__global__ void k(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}
"""


def test_honest_kernel_passes_every_gate():
    br = _gates(HONEST)
    assert br.failed_gate is None
    assert all(g.passed is not False for g in br.gates.values())
    assert br.gates["correct"].passed is None        # no GPU run: reported, not guessed
    assert br.reward > 0


def test_a_candidates_suppression_comments_hide_nothing_from_its_reward():
    """`// cudaperf: ignore-file` or NOLINT in a candidate would hide the findings its feedback lists
    and the surrogate counts (n_GM101...): a policy would learn to write them. The reward lints
    without them; a plain lint still honours them."""
    from analyzer.lint import lint_source

    bad = """
__global__ void k(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i * 32] = 2.0f * x[i * 32];
}
"""
    launch = dict(grid=(16, 1, 1), block=(256, 1, 1), args={"n": 4096})
    plain, feat, _ = reward(bad, "k", **launch)
    assert sorted(f.split()[1] for f in plain.findings) == ["GM101", "GM102"]
    for hiding in (bad + "// cudaperf: ignore-file\n", bad.replace("x[i * 32];", "x[i * 32];  // NOLINT")):
        assert lint_source(hiding, "k.cu").findings == []
        br, f2, _ = reward(hiding, "k", **launch)
        assert br.findings == plain.findings
        assert f2.values["n_GM101"] == feat.values["n_GM101"] == 1
        assert np.array_equal(f2.vector(), feat.vector(), equal_nan=True)
    assert len(lint_source(bad + "// cudaperf: ignore-file\n", "k.cu", suppressions=False).findings) == 2


def test_a_candidates_dead_branches_are_not_what_its_reward_reads():
    """A candidate compiled as it is runs the `#else` of `#ifdef NEVER_DEFINED` and of `#if 0`,
    and its device code is what `#ifndef __CUDA_ARCH__` leaves out: the reward reads that code,
    not the coalesced copy the dead branch shows."""
    strided = "y[i * 32] = 2.0f * x[i * 32];"
    honest = f"""
__global__ void k(const float* x, float* y, int n) {{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {{ {strided} }}
}}
"""
    launch = dict(grid=(16, 1, 1), block=(256, 1, 1), args={"n": 4096})
    plain, feat, _ = reward(honest, "k", **launch)
    assert plain.terms["coalescing"].value == pytest.approx(0.125)
    in_body = honest.replace(f"{{ {strided} }}", f"{{\n#{{}}\n y[i] = 2.0f * x[i];\n#else\n {strided}\n#endif\n }}")
    fake = honest.replace(strided, "y[i] = 2.0f * x[i];")
    for hiding in (in_body.replace("#{}", "#ifdef NEVER_DEFINED"), in_body.replace("#{}", "#if 0"),
                   f"#ifndef __CUDA_ARCH__\n{fake}#else\n{honest}#endif\n"):
        br, f2, _ = reward(hiding, "k", **launch)
        assert br.terms["coalescing"].value == pytest.approx(0.125), hiding
        assert f2.values["n_GM101"] == feat.values["n_GM101"] == 1


OVERLOADED = HONEST + """
__global__ void k(const double* x, double* y, int n) {
    int i = (blockIdx.x * blockDim.x + threadIdx.x) * 32;
    if (i < n) y[i] = 2.0 * x[i];
}
"""
TEMPLATED = """
template <int S> __global__ void k(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i * S < n) y[i * S] = 2.0f * x[i * S];
}
"""


def test_an_overloaded_kernel_name_fails_the_compile_gate():
    """A harness launches the kernel by name (NVRTC's name expression): with two kernels of that
    name it cannot tell which is meant, and the real build fails; the reward says so instead of
    scoring the first definition."""
    br = _gates(OVERLOADED)
    assert br.failed_gate == "compile"
    assert "overloaded (2 definitions, lines 2, 7)" in br.gates["compile"].detail
    assert _gates(HONEST).failed_gate is None
    # `k<4>` is only the template's name: a plain kernel `k` beside it is no twin, another template is
    assert _gates(HONEST + TEMPLATED, kernel="k<4>").gates["compile"].passed is not False
    assert _gates(HONEST + TEMPLATED, kernel="k").failed_gate == "compile"
    twin = TEMPLATED.replace("const float* x, float* y", "const double* x, double* y").replace("2.0f", "2.0")
    assert _gates(TEMPLATED + twin, kernel="k<4>").failed_gate == "compile"
    # a kernel of the name in a namespace is another name (`a::k`)
    namespaced = "namespace a {\n" + OVERLOADED.replace(HONEST, "") + "}\n" + HONEST
    assert _gates(namespaced).gates["compile"].passed is not False
    # alternatives under a conditional directive are not overloads (one of them is compiled)
    alternatives = "#ifdef USE_DOUBLE\n" + OVERLOADED.replace(HONEST, "") + "#else\n" + HONEST + "#endif\n"
    assert _gates(alternatives).gates["compile"].passed is not False
    # both under a directive the compile surely takes are twins still
    assert _gates("#ifdef __CUDACC__\n" + OVERLOADED + "#endif\n").failed_gate == "compile"


def test_a_block_over_the_kernels_launch_bounds_fails_the_launch_gate():
    """CUDA refuses a launch of more threads a block than the kernel's `__launch_bounds__` (ptxas
    compiled it for no more): the task's block decides, a template's bounds over its arguments."""
    bounded = HONEST.replace("__global__ void k", "__global__ void __launch_bounds__(128) k")
    br = _gates(bounded)        # the task's block: 256 threads
    assert br.failed_gate == "launch"
    assert br.gates["launch"].detail == "a block of 256 threads is more than k's __launch_bounds__(128): the launch fails"
    assert _gates(bounded.replace("(128)", "(256)")).failed_gate is None
    templated = TEMPLATED.replace("__global__ void k", "__global__ void __launch_bounds__(S * 64) k")
    assert _gates(templated, kernel="k<2>").failed_gate == "launch"     # 128 threads at most
    assert _gates(templated, kernel="k<4>").failed_gate is None


def _tiled(floats: int) -> str:
    return f"""
__global__ void k(const float* x, float* y, int n) {{
    __shared__ float tile[{floats}];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = x[i];
    __syncthreads();
    if (i < n) y[i] = tile[(threadIdx.x + 1) % blockDim.x] + tile[{floats - 1}];
}}
"""


def test_static_shared_memory_over_48_kb_fails_the_compile_gate():
    """ptxas refuses a kernel whose static __shared__ arrays pass 48 KB, whatever the SM holds."""
    assert _gates(_tiled(12288)).gates["compile"].passed is not False     # 48 KB exactly
    br = _gates(_tiled(12289))
    assert br.failed_gate == "compile"
    assert br.gates["compile"].detail.startswith("k declares 49,156 B of static shared memory, over the 49,152 B")


WARP_SUM = """
__global__ void k(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? x[i] : 0.0f;
    for (int o = 16; o > 0; o >>= 1) v += SHFL;
    if ((threadIdx.x & 31) == 0) atomicAdd(y, v);
}
"""
LEGACY = WARP_SUM.replace("SHFL", "__shfl_down(v, o)")
GUARDED = WARP_SUM.replace("v += SHFL;", """{
#if defined(__CUDACC_VER_MAJOR__) && __CUDACC_VER_MAJOR__ >= 9
        v += __shfl_down_sync(0xffffffff, v, o);
#else
        v += __shfl_down(v, o);
#endif
    }""")
SHIMMED = "#define __shfl_down(v, d) __shfl_down_sync(0xffffffff, v, d)\n" + LEGACY
COMMENTED = WARP_SUM.replace("SHFL", "__shfl_down_sync(0xffffffff, v, o)  /* was __shfl_down(v, o) */")


def test_legacy_warp_intrinsics_fail_the_compile_gate():
    """`__shfl_down(v, o)`, `__any(p)`...: gone on sm_70 and later, the build fails; a guarded
    fallback, a shim of the file's own or a mention in a comment is no call the build sees."""
    br = _gates(LEGACY)
    assert br.failed_gate == "compile" and br.gates["compile"].detail.startswith("calls __shfl_down: warp intrinsics")
    assert _gates(LEGACY.replace("__shfl_down(v, o)", "(float)__any(v > 0.0f)")).failed_gate == "compile"
    for fine in (GUARDED, SHIMMED, COMMENTED):
        assert _gates(fine).gates["compile"].passed is not False, fine
    assert _gates("#ifdef __CUDACC__\n" + LEGACY + "#endif\n").failed_gate == "compile"


# `extern __shared__` arrays of one name are one variable of the file: two types do not compile
EXTERN_TWICE = HONEST + """
__global__ void stage(const int* x, int* y) {
    extern __shared__ int buf[];
    buf[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    y[threadIdx.x] = buf[0];
}
__global__ void stage_f(const float* x, float* y) {
    extern __shared__ float buf[];
    buf[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    y[threadIdx.x] = buf[0];
}
"""
EXTERN_TEMPLATE = HONEST + """
template <typename T>
__global__ void part(const T* x, T* y) {
    extern __shared__ T buf[];
    buf[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    y[threadIdx.x] = buf[0];
}
template __global__ void part<float>(const float*, float*);
template __global__ void part<double>(const double*, double*);
"""


def test_extern_shared_arrays_of_two_types_fail_the_compile_gate():
    """One name, two element types (two kernels, or a template instantiated twice): SM203's case."""
    for src in (EXTERN_TWICE, EXTERN_TEMPLATE):
        br = _gates(src)
        assert br.failed_gate == "compile" and "`extern __shared__` array `buf`" in br.gates["compile"].detail
    same = EXTERN_TWICE.replace("int buf[]", "float buf[]").replace("const int*", "const float*").replace("int* y", "float* y")
    assert _gates(same).failed_gate is None
    once = EXTERN_TEMPLATE.replace("template __global__ void part<double>(const double*, double*);\n", "")
    assert _gates(once).failed_gate is None


def test_device_code_calling_a_host_function_fails_the_compile_gate():
    """CP701's case: a helper without __device__ called from the kernel (the profiler's NVRTC build
    of the device code finds it undefined); as __host__ __device__ it passes."""
    helper = "float twice(float v) { return 2.0f * v; }\n"
    src = helper + HONEST.replace("2.0f * x[i]", "twice(x[i])")
    br = _gates(src)
    assert br.failed_gate == "compile" and "k calls twice, a host function" in br.gates["compile"].detail
    assert _gates("__host__ __device__ " + src).failed_gate is None
    # a constexpr helper: the NVRTC build of the device code alone lacks it, and so does a plain nvcc
    # build (harness="nvcc": C wrappers' `nvcc -O3 -shared`, no --expt-relaxed-constexpr; torch's
    # builds pass that flag and take it: CP701 leaves it alone)
    br = _gates("constexpr " + src)
    assert br.failed_gate == "compile" and "twice, a constexpr host function" in br.gates["compile"].detail
    host_built, _, _ = reward("constexpr " + src, "k", grid=(256, 1, 1), block=(256, 1, 1), args={"n": 65536}, harness="nvcc")
    assert host_built.failed_gate == "compile" and "without --expt-relaxed-constexpr" in host_built.gates["compile"].detail
    from analyzer.lint import lint_source
    from analyzer.rules import all_rules, select

    assert not lint_source("constexpr " + src, "k.cu", rules=select(all_rules(), ["CP701"], [])).findings
    try:        # the profiler's build says the same, where NVRTC is here
        from analyzer.parse import parse
        from rewardmodel.reward import compile_gate

        built = [compile_gate(parse(text, "k.cu"), "sm_90")[0] for text in ("constexpr " + src, "__host__ __device__ " + src)]
    except ImportError:
        return
    if built[1].passed:
        assert built[0].passed is False and "twice" in built[0].detail, built


def test_what_the_cp_rules_find_fails_the_compile_gate():
    """A kernel returning a value, an initialized __shared__ variable, an array sized by a parameter
    or by blockDim (CP703-CP705): the compile gate fails without a compiler, saying why."""
    cases = {
        "returns float": HONEST.replace("__global__ void k(", "__global__ float k(").replace(
            "if (i < n) y[i] = 2.0f * x[i];", "if (i < n) y[i] = 2.0f * x[i];\n    return 0.0f;"),
        "has an initializer": HONEST.replace("int i =", "__shared__ int count = 0;\n    int i =").replace(
            "2.0f * x[i]", "2.0f * x[i] + count"),
        "reads the parameter `n`": HONEST.replace("int i =", "float tmp[n];\n    int i =").replace(
            "y[i] = 2.0f * x[i];", "{ tmp[0] = x[i]; y[i] = 2.0f * tmp[0]; }"),
        "reads `blockDim`": HONEST.replace("int i =", "__shared__ float s[blockDim.x];\n    int i =").replace(
            "y[i] = 2.0f * x[i];", "{ s[threadIdx.x] = x[i]; y[i] = 2.0f * s[threadIdx.x]; }"),
    }
    for says, src in cases.items():
        br = _gates(src)
        assert br.failed_gate == "compile" and says in br.gates["compile"].detail, (says, br.gates["compile"].detail)


def test_std_names_in_device_code_fail_the_nvrtc_compile_gate():
    """The profiler builds device code with NVRTC and no host headers: `std::min`,
    `std::numeric_limits` are not there. A comment, `cuda::std::`, CUDA's own `fminf` are no such use.
    A plain host build (harness="nvcc": C wrappers) has <cmath>'s device overloads (`std::sqrt`) but
    refuses constexpr host functions (`std::min`) without --expt-relaxed-constexpr."""
    for expr, name in (("std::min(x[i], 1.0f)", "std::min"), ("std::numeric_limits<float>::max() - x[i]", "std::numeric_limits")):
        br = _gates(HONEST.replace("2.0f * x[i]", expr))
        assert br.failed_gate == "compile" and f"device code uses {name}:" in br.gates["compile"].detail
    for fine in ("x[i] /* std::min(a, b) */", "fminf(x[i], 1.0f)"):
        assert _gates(HONEST.replace("2.0f * x[i]", fine)).failed_gate is None, fine
    for expr, fails in (("std::min(x[i], 1.0f)", True), ("std::sqrt(x[i])", False)):
        host_built, _, _ = reward(HONEST.replace("2.0f * x[i]", expr), "k", grid=(256, 1, 1), block=(256, 1, 1),
                                  args={"n": 65536}, harness="nvcc")
        assert (host_built.failed_gate == "compile") == fails, (expr, host_built.gates)
    with pytest.raises(ValueError, match="harness"):
        reward(HONEST, "k", grid=(256, 1, 1), block=(256, 1, 1), args={"n": 65536}, harness="gcc")


def test_the_compile_gate_agrees_with_nvrtc():
    """What the compile gate says of a source (overloads, static shared memory), decided without a
    compiler, is what NVRTC's build of it by name expression (the profiler's) says."""
    pytest.importorskip("cuda.bindings.nvrtc")
    from analyzer.profile import toolkit
    from analyzer.profile.build import _nvrtc_compile, compile_options

    try:
        options = compile_options("sm_90", toolkit.cuda_include_dir())
    except Exception as exc:      # no toolkit headers: nothing to compare with
        pytest.skip(f"no CUDA toolkit: {exc}")
    cases = [(HONEST, "k"), (OVERLOADED, "k"), (HONEST + TEMPLATED + "template __global__ void k<4>(const float*, float*, int);\n", "k<4>"),
             (HONEST + TEMPLATED, "k"), (_tiled(12288), "k"), (_tiled(12289), "k"), (LEGACY, "k"),
             (GUARDED, "k"), (SHIMMED, "k"), (COMMENTED, "k"),
             ("namespace a {\n" + OVERLOADED.replace(HONEST, "") + "}\n" + HONEST, "k"),
             ("#ifdef __CUDACC__\n" + OVERLOADED + "#endif\n", "k"), ("#ifdef __CUDACC__\n" + LEGACY + "#endif\n", "k"),
             (EXTERN_TWICE, "k"), (EXTERN_TEMPLATE, "k"),
             ("__host__ __device__ float twice(float v) { return 2.0f * v; }\n" + HONEST.replace("2.0f * x[i]", "twice(x[i])"), "k"),
             (HONEST.replace("2.0f * x[i]", "std::min(x[i], 1.0f)"), "k"), (HONEST.replace("2.0f * x[i]", "fminf(x[i], 1.0f)"), "k"),
             (EXTERN_TEMPLATE.replace("template __global__ void part<double>(const double*, double*);\n", ""), "k"),
             *[("#include <cuda_fp16.h>\n" + HONEST.replace("const float* x, float* y", "const __half* x, __half* y")
                .replace("2.0f * x[i]", body), "k") for body in ("2.0f * x[i]", "x[i] * x[i]", "__hmul(x[i], x[i])")],
             *[("struct Pair {\n  float a, b;\n  " + q + "float sum() const { return a + b; }\n};\n" +
                HONEST.replace("2.0f * x[i]", "Pair{x[i], 1.0f}.sum()"), "k") for q in ("", "__host__ __device__ ")],
             # what a reply adds that NVRTC (the whole source, as submitted) refuses, or takes
             *[(extra + HONEST, "k") for extra in (
                 "int main() { return 0; }\n", "float unused(float v) { return v; }\n", "#include <cstdio>\n",
                 "#include <cmath>\n", "#include <stdint.h>\n", "#include <cuda_fp16.h>\n", "#include <cuda_runtime.h>\n",
                 "#ifndef __CUDACC_RTC__\n#include <cstdio>\nint main() { return 0; }\n#endif\n",
                 "struct Q { float a; Q() = default; };\n")]]
    expected = ("overloaded", "too much shared data", "is undefined", "without '.sync'", "incompatible with previous",
                "has no member", "more than one operator", "host functions are not allowed", "cannot open source file")
    for src, name in cases:
        built = _nvrtc_compile(src, name, options)
        if not built[0] and not any(e in built[3] for e in expected):
            pytest.skip(f"NVRTC failed for another reason: {built[3][:200]}")
        assert (_gates(src, kernel=name).failed_gate == "compile") == (not built[0]), (name, built[3][:300])


def test_never_launched_kernel_fails():
    """A host launcher of another kernel: a host build (harness="nvcc") compiles it and the
    anti-hacking gate fails it; the profiler's NVRTC build refuses its host code first."""
    src = HONEST + """
__global__ void k_fast(const float* x, float* y, int n) { }
void host(const float* x, float* y, int n) { k_fast<<<n / 256, 256>>>(x, y, n); }
"""
    br, _, _ = reward(src, "k", grid=(256, 1, 1), block=(256, 1, 1), args={"n": 65536}, harness="nvcc")
    assert br.failed_gate == "launches_own_kernel"
    assert "never k" in br.gates["launches_own_kernel"].detail
    assert br.reward == RewardConfig().fail_reward
    br = _gates(src)
    assert br.failed_gate == "compile" and "defines host code (host:" in br.gates["compile"].detail


def test_kernel_that_writes_nothing_fails():
    src = """
__global__ void k(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = (i < n) ? x[i] : 0.0f;
    (void)v;
}
"""
    assert _gates(src).failed_gate == "launches_own_kernel"


def test_cached_results_fail():
    src = """
__device__ int computed = 0;
__global__ void k(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (computed) return;                 // second call: the output is still there from the first
    if (i < n) y[i] = 2.0f * x[i];
    if (i == 0) computed = 1;
}
"""
    br = _gates(src)
    assert br.failed_gate == "work_every_call"
    assert "computed" in br.gates["work_every_call"].detail


def test_static_constants_and_functions_keep_no_state():
    """`static const int kNT = 128;` and `static __device__ __forceinline__ float f(...)` (public
    solutions write both) read as a variable named `int` / `float` that the kernel uses: the
    work-every-call gate failed. A static variable that can change still fails it."""
    src = """
static const int kNT = 128;
static __device__ __forceinline__ float twice(float v) { return 2.0f * v; }
__global__ void k(const float* x, float* y, int n) {
    int i = blockIdx.x * kNT + threadIdx.x;
    if (i < n) y[i] = twice(x[i]);
}
"""
    assert _gates(src).gates["work_every_call"].passed is True
    counted = src.replace("static const int kNT = 128;", "static const int kNT = 128;\nstatic __device__ unsigned long long calls;")
    counted = counted.replace("if (i < n)", "if (i == 0) calls++;\n    if (i < n)")
    gate = _gates(counted).gates["work_every_call"]
    assert gate.passed is False and "calls" in gate.detail


def test_calling_the_reference_fails():
    src = """
__global__ void reference_scale(const float* x, float* y, int n);
__global__ void k(const float* x, float* y, int n) {
    if (threadIdx.x == 0 && blockIdx.x == 0) reference_scale<<<n / 256, 256>>>(x, y, n);
}
"""
    br = _gates(src, reference_names=("reference_scale",))
    assert br.gates["no_reference_call"].passed is False
    assert "reference_scale" in br.gates["no_reference_call"].detail
    # the same source without naming the reference still fails: its entry kernel writes nothing itself
    assert _gates(src).failed_gate is not None


def test_library_call_fails():
    src = HONEST.replace("y[i] = 2.0f * x[i];", "y[i] = 2.0f * x[i]; cublasSscal(0, n, 0, y, 1);")
    assert _gates(src).gates["no_reference_call"].passed is False


def test_a_torch_wrapper_allocates_but_may_not_compute():
    """A load_inline module's host wrapper allocates with torch:: (empty_like, options, dtypes): no
    reference call; one that computes with torch:: or at:: is (it failed on every wrapper before)."""
    wrapper = HONEST + """
torch::Tensor run(torch::Tensor x) {
    auto y = torch::empty_like(x, x.options().dtype(torch::kFloat));
    k<<<(x.numel() + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.numel());
    return y;
}
"""
    assert _gates(wrapper).gates["no_reference_call"].passed is True
    shapes = wrapper.replace("return y;", "auto acc = y.packed_accessor32<float, 1, torch::RestrictPtrTraits>();\n"
                             "    auto s = torch::scalar_tensor(0.f, x.options()); auto t = torch::tensor({1, 2});\n"
                             "    torch::PackedTensorAccessor<float, 1> a2 = acc; (void)torch::kUInt32;\n    return y;")
    assert _gates(shapes).gates["no_reference_call"].passed is True
    computes = wrapper.replace("return y;", "return at::relu(torch::matmul(y, y));")
    gate = _gates(computes).gates["no_reference_call"]
    assert gate.passed is False and gate.detail == "calls at::relu, torch::matmul"


def test_timers_fail_but_comments_do_not():
    timed = HONEST.replace("if (i < n)", "long long t0 = clock64(); if (i < n)")
    assert _gates(timed).gates["no_timers_streams"].passed is False
    commented = HONEST.replace("if (i < n)", "// no clock64() or cudaEventRecord here\n    if (i < n)")
    assert _gates(commented).gates["no_timers_streams"].passed is True


def test_wrong_result_measurement_fails_the_correct_gate():
    br, _, _ = reward(HONEST, "k", grid=(256, 1, 1), block=(256, 1, 1), args={"n": 65536},
                      measurement=Measurement("wrong_result", None, "3% of y wrong"), baseline_ms=0.01)
    assert br.failed_gate == "correct" and br.reward == RewardConfig().fail_reward


def test_measured_speed_term_is_clipped_log_speedup():
    cfg = RewardConfig()
    br, _, _ = reward(HONEST, "k", grid=(256, 1, 1), block=(256, 1, 1), args={"n": 65536},
                      measurement=Measurement("ok", 0.005), baseline_ms=0.01, config=cfg)
    assert br.speed_source == "measured"
    assert br.terms["speed"].value == pytest.approx(math.log(2.0))
    br, _, _ = reward(HONEST, "k", grid=(256, 1, 1), block=(256, 1, 1), args={"n": 65536},
                      measurement=Measurement("ok", 0.00001), baseline_ms=0.01, config=cfg)
    assert br.terms["speed"].value == pytest.approx(cfg.speed_clip)


def test_uncoalesced_kernel_gets_a_lower_coalescing_term():
    strided = HONEST.replace("x[i]", "x[(i * 32) % n]")
    good = _gates(HONEST).terms["coalescing"].value
    bad = _gates(strided).terms["coalescing"].value
    assert bad < good - 0.3


def test_fail_reward_is_below_every_passing_reward():
    cfg = RewardConfig()
    assert cfg.fail_reward < -cfg.w_speed * cfg.speed_clip      # the slowest correct kernel, no structural credit
    with pytest.raises(ValueError, match="below the lowest passing reward"):
        RewardConfig(fail_reward=-1.0)


def test_c_comment_strip_is_the_regular_expressions(monkeypatch):
    """strip_comments' C loop (analyzer/_scan.pyx, where built) against its regular expression, on
    every corpus source and on random text of comment, string and escape pieces."""
    import random

    from analyzer.rules import names as R
    from corpus.families import all_samples

    if R._scan is None:
        pytest.skip("analyzer._scan is not built in this install (pure Python)")
    texts = sorted({s.source for s in all_samples()})
    pieces = ["/", "*", "//", "/*", "*/", '"', "\\", "\n", "a", " ", "é", "\U0001F600", "x = 1;", '\\"']
    rng = random.Random(0)
    texts += ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 12))) for _ in range(20000)]
    with_c = [R.strip_comments(t) for t in texts]
    monkeypatch.setattr(R, "_scan", None)
    assert with_c == [R.strip_comments(t) for t in texts]
    assert sum(c != t for c, t in zip(with_c, texts)) > 5000    # comments and strings do occur


_MANY_REGISTERS = """
__global__ void k(const float* x, float* y, int n) {
    float v[64];
    float run = 0.f;
    const float* row = x + blockIdx.x * 65536;
#pragma unroll
    for (int j = 0; j < 64; ++j) { run += row[threadIdx.x * 64 + j]; v[j] = run * run; }
    __shared__ float sums[1024];
    sums[threadIdx.x] = run;
    __syncthreads();
    float base = threadIdx.x ? sums[threadIdx.x - 1] : 0.f;
#pragma unroll
    for (int j = 0; j < 64; ++j) y[blockIdx.x * 65536 + threadIdx.x * 64 + j] = v[j] + base + sums[j];
}
"""


def test_a_launch_no_block_of_which_fits_fails_its_gate():
    """240 KB of dynamic shared memory a block (more than sm_90 gives one): the launch fails, so the
    reward is the failing one, not a predicted time. A register count from the static estimate only
    leaves a note (ptxas may allocate fewer)."""
    br, _, _ = reward(HONEST, "k", grid=(256, 1, 1), block=(256, 1, 1), smem=240 * 1024, args={"n": 65536})
    assert br.gates["launch"].passed is False and "245,760 B of shared memory" in br.gates["launch"].detail
    assert br.reward == RewardConfig().fail_reward
    br, _, _ = reward(_MANY_REGISTERS, "k", grid=(64, 1, 1), block=(1024, 1, 1), args={"n": 65536})
    assert "launch" not in br.gates and any("static register estimate" in n for n in br.notes), br.notes


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc for ptxas figures")
def test_a_launch_of_too_many_registers_by_ptxas_fails_its_gate(tmp_path, monkeypatch):
    monkeypatch.setenv("CUDAPERF_CACHE", str(tmp_path))
    br, feat, _ = reward(_MANY_REGISTERS, "k", grid=(64, 1, 1), block=(1024, 1, 1), args={"n": 65536}, ptxas=True)
    assert feat.values["regs_ptxas"] > 64
    assert br.gates["launch"].passed is False and "of 1024 threads of" in br.gates["launch"].detail


def test_the_nvrtc_compile_gate_builds_what_the_profiler_builds():
    """With compile=True the gate compiles the kernel task's source as the profiler does: as written
    (a local header it cannot open fails), with the toolkit's include folders (cooperative_groups.h,
    which needs libcu++'s, builds)."""
    pytest.importorskip("cuda.bindings.nvrtc")
    from analyzer.profile import toolkit
    from analyzer.profile.build import _nvrtc_compile, compile_options

    try:
        options = compile_options("sm_90", toolkit.cuda_include_dir())
    except Exception as exc:      # no toolkit headers: nothing to compare with
        pytest.skip(f"no CUDA toolkit: {exc}")
    for extra in ("", "#include <cooperative_groups.h>\n", "#include <cuda/std/limits>\n", '#include "utils.cuh"\n'):
        built = _nvrtc_compile(extra + HONEST, "k", options)
        gate = _gates(extra + HONEST, compile=True).gates["compile"]
        if gate.passed is None:
            pytest.skip(gate.detail)
        assert gate.passed == built[0], (extra, gate.detail, built[3][:300])


LOOPED = """
__global__ void k(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float acc = 0.0f;
        for (int j = 0; j < 64; ++j) acc += x[(i * 64 + j) % n];
        y[i] = acc;
    }
}
"""
# broken as a model's reply may break it: the loop's header (the analysis loses the loop, and the
# surrogate, seeing 1/64 of the loads, predicts a faster kernel) and a statement's `;`
BROKEN = {"loop header": LOOPED.replace("j < 64; ++j)", "j < 64; ++j"), "semicolon": LOOPED.replace("y[i] = acc;", "y[i] = acc")}


def _no_compiler(monkeypatch):
    import analyzer.resources as R

    def unavailable(*a, **k):
        raise R.CompilerUnavailable("no NVRTC (cuda-python is not installed)")
    monkeypatch.setattr(R, "compile_nvrtc", unavailable)


def test_unreadable_device_code_is_judged_by_nvrtc_not_rewarded():
    """Code the analyzer cannot read in a kernel is left out of its analysis: a broken loop header
    drops the loop, and the surrogate predicted the candidate faster than the working kernel (a
    hack a policy would find). Such a candidate goes to NVRTC even with compile=False: its error
    fails the compile gate, with NVRTC's message as the policy's feedback."""
    pytest.importorskip("cuda.bindings.nvrtc")
    assert _gates(LOOPED).failed_gate is None
    # what the analysis reads of the broken loop: a 64th of the loads
    feats = [reward(s, "k", grid=(256, 1, 1), block=(256, 1, 1), args={"n": 65536})[1] for s in (LOOPED, BROKEN["loop header"])]
    assert feats[1].values["log_gld_requests"] < feats[0].values["log_gld_requests"] - 1.5
    for what, src in BROKEN.items():
        br = _gates(src)
        if br.gates["compile"].passed is None:
            pytest.skip(br.gates["compile"].detail)
        assert br.gates["parse"].passed is True and "cannot read" in br.gates["parse"].detail, what
        assert br.failed_gate == "compile" and "NVRTC failed" in br.gates["compile"].detail, (what, br.gates)
        assert br.reward == RewardConfig().fail_reward


def test_device_code_the_parser_misreads_passes_where_nvrtc_builds_it():
    """Valid code tree-sitter cannot read (a functional cast `unsigned(v)`): NVRTC builds it, so the
    candidate keeps its reward, and the parse gate says what the analysis skipped."""
    pytest.importorskip("cuda.bindings.nvrtc")
    src = HONEST.replace("2.0f * x[i]", "x[i] * (float)(unsigned(i) << 1)")
    br = _gates(src)
    if "no compiler here" in br.gates["parse"].detail:
        pytest.skip(br.gates["parse"].detail)
    assert br.gates["parse"].passed is True and br.gates["parse"].detail.endswith("NVRTC builds it")
    assert "cannot read" in br.gates["parse"].detail and br.failed_gate is None, br.gates
    # a host build (C wrappers): NVRTC's build of the device code alone, the same verdicts
    host = reward(src, "k", grid=(256, 1, 1), block=(256, 1, 1), args={"n": 65536}, harness="nvcc")[0]
    assert host.failed_gate is None and host.gates["parse"].detail.endswith("NVRTC builds it"), host.gates
    for what, broken in BROKEN.items():
        host = reward(broken, "k", grid=(256, 1, 1), block=(256, 1, 1), args={"n": 65536}, harness="nvcc")[0]
        assert host.failed_gate == "compile" and "(NVRTC, where the analyzer cannot read the code)" in \
            host.gates["compile"].detail, (what, host.gates)


def test_unreadable_device_code_fails_the_parse_gate_without_a_compiler(monkeypatch):
    _no_compiler(monkeypatch)
    for what, src in BROKEN.items():
        br = _gates(src)
        assert br.failed_gate == "parse", (what, br.gates)
        assert "cannot read device code" in br.gates["parse"].detail and "no NVRTC" in br.gates["parse"].detail
        assert br.reward == RewardConfig().fail_reward
    assert _gates(LOOPED).failed_gate is None     # readable code needs no compiler


_NAME_CASES = [
    # misspelt: NVRTC refuses each
    HONEST.replace("2.0f * x[i]", "2.0f * x_in[i]"),
    HONEST.replace("2.0f * x[i]", "expff(x[i])"),
    HONEST.replace("threadIdx.x", "threadIdx.w"),
    HONEST.replace("blockDim.x", "blockDim.count"),
    HONEST.replace("int i =", "itn i ="),
    HONEST.replace("if (i < n)", "__syncthread();\n    if (i < n)"),
    HONEST.replace("2.0f * x[i]", "scale * x[i]"),
    # not: what the toolkit, the file or the compiler declares, and what is not compiled
    HONEST.replace("2.0f * x[i]", "expf(__ldg(&x[i]))"),
    HONEST.replace("if (i < n)", "float unused = 1.0f;\n    if (i < n)"),
    HONEST.replace("if (i < n)", "#if 0\n    junk_name();\n#endif\n    if (i < n)"),
    "#include <cuda_fp16.h>\n" + HONEST.replace("2.0f * x[i]", "__half2float(__float2half(x[i]))"),
    "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n" +
    HONEST.replace("if (i < n)", "cg::thread_block b = cg::this_thread_block();\n    b.sync();\n    if (i < n)"),
    "template <int S>\n__device__ float times(float v) { return S * v; }\n" + HONEST.replace("2.0f * x[i]", "times<2>(x[i])"),
    "struct Acc { float v; __device__ float twice() const { return 2.0f * v; } };\n" +
    HONEST.replace("2.0f * x[i]", "Acc{x[i]}.twice()"),
    HONEST.replace("if (i < n)", "auto sq = [](float v) { return v * v; };\n    if (i < n)").replace("2.0f * x[i]", "sq(x[i])"),
]


def test_misspelt_names_fail_the_compile_gate_as_nvrtc_says():
    """A name nothing declares (`x_in`, `expff`, `itn`, `__syncthread`) or a member threadIdx/blockDim
    lacks: NVRTC refuses it, and the reward, reading past an unknown name as an unknown value,
    would have rewarded it. The gate fails exactly those the profiler's NVRTC build refuses."""
    pytest.importorskip("cuda.bindings.nvrtc")
    from analyzer.profile import toolkit
    from analyzer.profile.build import _nvrtc_compile, compile_options

    try:
        options = compile_options("sm_90", toolkit.cuda_include_dir())
    except Exception as exc:      # no toolkit headers: nothing to compare with
        pytest.skip(f"no CUDA toolkit: {exc}")
    refused = 0
    for src in _NAME_CASES:
        built = _nvrtc_compile(src, "k", options)
        br = _gates(src)
        assert (br.failed_gate == "compile") == (not built[0]), (src, built[3][:300], br.gates)
        refused += not built[0]
        if not built[0]:
            assert "is undefined" in br.gates["compile"].detail or "has no member" in br.gates["compile"].detail
    assert refused == 7


def test_names_are_not_judged_where_a_header_or_no_toolkit_could_declare_them(monkeypatch):
    """A local header may declare `scale`; with no toolkit here, `expf` cannot be told from `expff`:
    neither is judged (lenient: a missed slip costs a reward, a wrong fail a correct kernel)."""
    from analyzer.parse import parse
    from analyzer.rules import names

    slip = HONEST.replace("2.0f * x[i]", "scale * x[i]")
    assert names.undefined_names(parse(slip)) == [(4, "scale", "k")]
    assert names.undefined_names(parse('#include "params.h"\n' + slip)) == []
    assert names.undefined_names(parse("#define SCALE_ scale\n" + slip)) == []     # stands twice
    monkeypatch.setattr(names, "_WORDS", {})
    monkeypatch.setattr("analyzer.profile.toolkit.cuda_include_dir", lambda: None)
    assert names.undefined_names(parse(slip)) == []
    assert names.builtin_member_problems(parse(HONEST.replace("threadIdx.x", "threadIdx.w"))) != []


_CONST_CASES = [
    # refused: a write through the kernel's own const pointer
    (HONEST.replace("float* y", "const float* y"), False),
    (HONEST.replace("float* y", "const float* y").replace("y[i] = 2.0f * x[i];", "atomicAdd(&y[0], x[i]);"), False),
    (HONEST.replace("float* y", "const float* y").replace("y[i] = 2.0f * x[i];",
                                                         "reinterpret_cast<float2*>(y)[0] = make_float2(x[i], 0.0f);"), False),
    (HONEST.replace("float* y", "const float* y").replace("y[i] =", "*(y + i) ="), False),
    # built: a C cast takes the const away; a const read; a const cast to a const vector
    (HONEST.replace("float* y", "const float* y").replace("y[i] =", "((float*)y)[i] ="), True),
    (HONEST.replace("2.0f * x[i]", "reinterpret_cast<const float2*>(x)[0].x"), True),
    (HONEST, True),
]


def test_writes_through_a_const_parameter_fail_the_compile_gate_as_nvrtc_says():
    """A reply that makes its output `const float*` (or writes an input): NVRTC refuses the store
    ("expression must be a modifiable lvalue"), the atomic and the cast that drops the const; the
    analysis reads a store either way. The gate fails exactly those."""
    _gate_agrees_with_nvrtc(_CONST_CASES, "const float*` parameter of k")


def _gate_agrees_with_nvrtc(cases, says: str) -> None:
    """Each (source, builds): the profiler's NVRTC build of kernel `k` builds it or not as said, and
    the compile gate (no compiler) fails exactly those it refuses, saying `says`."""
    pytest.importorskip("cuda.bindings.nvrtc")
    from analyzer.profile import toolkit
    from analyzer.profile.build import _nvrtc_compile, compile_options

    try:
        options = compile_options("sm_90", toolkit.cuda_include_dir())
    except Exception as exc:      # no toolkit headers: nothing to compare with
        pytest.skip(f"no CUDA toolkit: {exc}")
    for src, builds in cases:
        built = _nvrtc_compile(src, "k", options)
        assert built[0] == builds, (src, built[3][:300])
        br = _gates(src)
        assert (br.failed_gate == "compile") == (not builds), (src, br.gates)
        if not builds:
            assert says in br.gates["compile"].detail, br.gates["compile"].detail


_ALIASED = HONEST.replace("    if (i < n)", "    ALIAS\n    if (i < n)")
_CONVERSION_CASES = [
    # refused: the const pointer given to a `float*` local, by initializer, offset, address or
    # assignment; to a parameter of the kernel; to a device function's `float*` parameter
    (_ALIASED.replace("ALIAS", "float* p = x;").replace("2.0f * x[i]", "p[i]"), False),
    (_ALIASED.replace("ALIAS", "float* p = x + 1;").replace("2.0f * x[i]", "p[i - 1]"), False),
    (_ALIASED.replace("ALIAS", "float* p = &x[0];").replace("2.0f * x[i]", "p[i]"), False),
    (_ALIASED.replace("ALIAS", "float* p;\n    p = (x);").replace("2.0f * x[i]", "p[i]"), False),
    (_ALIASED.replace("ALIAS", "y = x;"), False),
    ("__device__ float twice(float* a, int i) { return 2.0f * a[i]; }\n"
     + HONEST.replace("2.0f * x[i]", "twice(x, i)"), False),
    # built: a const local, `auto`, `float const*`, a cast, a const helper, a template helper, a read
    (_ALIASED.replace("ALIAS", "const float* p = x;").replace("2.0f * x[i]", "p[i]"), True),
    (_ALIASED.replace("ALIAS", "auto p = x;").replace("2.0f * x[i]", "p[i]"), True),
    (_ALIASED.replace("ALIAS", "float const* p = x + 1;").replace("2.0f * x[i]", "p[i - 1]"), True),
    (_ALIASED.replace("ALIAS", "float* p = (float*)x;").replace("2.0f * x[i]", "p[i]"), True),
    ("__device__ float twice(const float* a, int i) { return 2.0f * a[i]; }\n"
     + HONEST.replace("2.0f * x[i]", "twice(x, i)"), True),
    ("template <typename T> __device__ T twice(T* a, int i) { return 2 * a[i]; }\n"
     + HONEST.replace("2.0f * x[i]", "twice(x, i)"), True),
    (_ALIASED.replace("ALIAS", "float v = x[0];").replace("2.0f * x[i]", "v"), True),
]


def test_a_const_parameter_given_to_a_non_const_pointer_fails_the_compile_gate_as_nvrtc_says():
    """`float* p = x;` of a `const float* x` (a reply that reads through a local, or hands the input to a
    helper taking `float*`): NVRTC refuses the conversion, which the analysis reads as a plain alias."""
    _gate_agrees_with_nvrtc(_CONVERSION_CASES, 'of type "const float *"')


_SCOPED = """
__global__ void k(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
BODY
}
"""
_SCOPE_CASES = [
    # refused: a loop's variable after the loop, a block's local after the block, a use before the declaration
    ("    float s = 0.0f;\n    for (int j = 0; j < 4; ++j) s += x[(i + j) % n];\n    y[i] = s + j;", False),
    ("    if (i % 2) { float t = x[i]; y[i] = t; }\n    y[i] += t;", False),
    ("    y[i] = t;\n    float t = x[i];", False),
    ("    for (int j = 0; j < 4; ++j) { float t = x[j]; }\n    for (int j = 0; j < 4; ++j) y[i] += t;", False),
    # built: the same name declared again, an outer one shadowed, a global, a call of a function a
    # local's name hides only inside its block, a lambda's parameter
    ("    float s = 0.0f;\n    for (int j = 0; j < 4; ++j) s += x[j];\n    for (int j = 0; j < 4; ++j) s += x[j];\n"
     "    y[i] = s;", True),
    ("    float t = 1.0f;\n    if (i % 2) { float t = x[i]; y[i] = t; }\n    y[i] += t;", True),
    ("    { float fmaxf = 1.0f; y[i] = fmaxf; }\n    y[i] = fmaxf(y[i], 0.0f);", True),
    ("    auto f = [](float a) { return 2.0f * a; };\n    y[i] = f(x[i]);", True),
]


def test_a_local_used_outside_its_scope_fails_the_compile_gate_as_nvrtc_says():
    """A loop's variable or a block's local used after it (or before its declaration): NVRTC's
    `identifier "j" is undefined`, where the analysis, which does not scope its names, reads on."""
    cases = [(_SCOPED.replace("BODY", body), builds) for body, builds in _SCOPE_CASES]
    cases.append(("__device__ float t;\n" + cases[1][0], True))     # the global `t` it then reads
    _gate_agrees_with_nvrtc(cases, "is undefined (in k: used")


def test_the_walks_record_of_its_locals_scopes_is_the_parse_trees():
    """The scope check trusts a kernel's walk where none of the locals it recorded is used outside its
    scope: each recorded (name, declarator, end of scope) must be one the tree's declarations give."""
    from analyzer.lint import lint_source
    from analyzer.rules.names import function_locals
    from corpus.families import all_samples

    sources = {s.source_hash: s.source for s in all_samples() if s.origin == "handwritten"}
    recorded = 0
    for src in sources.values():
        for ctx in lint_source(src, "k.cu").contexts:
            body = ctx.kernel.body
            found, _ = function_locals(ctx.program, body)
            tree = {(name, lo, hi) for name, spans in found.items() for lo, hi in spans}
            walked = {(name.encode(), lo, hi) for name, lo, hi in ctx.accesses.declarations
                      if body.start_byte <= lo < body.end_byte}
            assert walked <= tree, (ctx.kernel.name, sorted(walked - tree))
            recorded += len(walked)
    assert recorded > 100


def test_out_of_scope_names_say_where_and_leave_unparsed_bodies_alone():
    from analyzer.parse import parse
    from analyzer.rules.names import out_of_scope_names

    src = _SCOPED.replace("BODY", "    for (int j = 0; j < 4; ++j) y[i] += x[j];\n    y[i] += j;")
    assert out_of_scope_names(parse(src)) == [
        'line 6: identifier "j" is undefined (in k: used outside the block that declares it, line 5)']
    assert out_of_scope_names(parse(src.replace("y[i] += j;", "y[i] += j"))) == []      # a syntax error: the parse gate's
    assert out_of_scope_names(parse("// j: the column\n" + src)) != []                  # a comment's word is no global


_SUMMED = """
__global__ void k(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
LOOP
    y[i] = acc;
}
"""
_LOOPS = {
    "for": "    for (int j = 0; j < 64; ++j) acc += x[(i * 64 + j) % n];",
    "goto": "    int j = 0;\nagain:\n    acc += x[(i * 64 + j) % n];\n    if (++j < 64) goto again;",
    "recursion": "    acc = sum(x, i, n, 64);",
    "pointer": "    acc = (*summer)(x, i, n, 64);",
    "do": "    int j = 0;\n    do { acc += x[(i * 64 + j) % n]; } while (++j < 64);",
    # a step that reads what the loop computes: no count the analysis can read
    "while": "    int j = 0;\n    while (j < 64) { acc += x[(i * 64 + j) % n]; j += 1 + (acc > 1e30f); }",
}
_HELPERS = {
    "recursion": "__device__ float sum(const float* x, int i, int n, int j) {\n"
                 "    return j == 0 ? 0.0f : x[(i * 64 + j) % n] + sum(x, i, n, j - 1);\n}\n",
    "pointer": "__device__ float loop_sum(const float* x, int i, int n, int m) {\n"
               "    float a = 0.0f;\n    for (int j = 0; j < m; ++j) a += x[(i * 64 + j) % n];\n    return a;\n}\n"
               "__device__ float (*summer)(const float*, int, int, int) = loop_sum;\n",
}


def test_work_the_analysis_cannot_count_gets_no_speed_from_the_surrogate():
    """The same 64 loads a thread, repeated by `goto`, by recursion, behind a function pointer or in a
    loop whose count it cannot read (a step that depends on what the loop computes): the analysis
    sees one pass (or none) and the surrogate predicted it far faster than the `for` loop. No
    speed from the surrogate for those (a note says why); a real measurement still times them. A
    do-while whose condition steps its counter (`while (++j < 64)`) is counted: the for loop's time."""
    from rewardmodel.surrogate import load_default

    model = load_default()
    launch = dict(grid=(256, 1, 1), block=(256, 1, 1), args={"n": 65536}, model=model, baseline_ms=1.0)
    counted = reward(_SUMMED.replace("LOOP", _LOOPS["for"]), "k", **launch)
    assert counted[0].speed_source == "surrogate" and not counted[0].blind
    do = reward(_SUMMED.replace("LOOP", _LOOPS["do"]), "k", **launch)
    assert do[0].speed_source == "surrogate" and not do[0].blind
    assert do[2]["time_ms"] == pytest.approx(counted[2]["time_ms"], rel=0.25)
    for how in ("goto", "recursion", "pointer", "while"):
        src = _HELPERS.get(how, "") + _SUMMED.replace("LOOP", _LOOPS[how])
        br, feat, pred = reward(src, "k", **launch)
        assert br.failed_gate is None and br.blind, how
        # what the surrogate would have said: far faster than the loop it is
        assert pred["time_ms"] < counted[2]["time_ms"] / 3, (how, pred["time_ms"], counted[2]["time_ms"])
        assert br.time_ms is None and br.speed_source == "none" and br.terms["speed"].value is None
        assert any(n.startswith("no speed from the surrogate") for n in br.notes), br.notes
        measured = reward(src, "k", **launch, measurement=Measurement("ok", 0.5))[0]
        assert measured.speed_source == "measured" and measured.terms["speed"].value == pytest.approx(math.log(2.0))
