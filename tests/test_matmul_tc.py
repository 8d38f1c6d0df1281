"""Tensor cores: the matmul_tc family, the walker's wmma products (MatrixOp), the tensor pipe of
the time estimate, and the fragments' words in the static register estimate.

Hand-checked expectations: a wmma kernel of this family does all of the task's 2*M*N*K flops on
the tensor cores (every k-step, every fragment, every warp), the scalar one none; a 16x16x16
half fragment is 4 words a lane for matrix_a/b and a float accumulator 8.
"""
from __future__ import annotations

import math
import re
from collections import defaultdict

import numpy as np
import pytest

from analyzer import models
from analyzer.access import analyze
from analyzer.parse import parse
from analyzer.resources import fragment_words, register_features
from corpus.families import matmul_tc
from corpus.families.base import Buffer, Scalar
from rewardmodel.features import Problem, extract

SAMPLES = matmul_tc.samples()


def _one(variant: str, size: str = "m1024"):
    return next(s for s in SAMPLES if s.variant == variant and s.size == size)


def _args(s) -> dict:
    return {a.name: a.value for a in s.args if isinstance(a, Scalar)}


# ---------------------------------------------------------------- the family

def test_family_contract():
    variants = {s.variant for s in SAMPLES}
    assert matmul_tc.BASELINE in variants
    assert len(variants) == 32 and len(SAMPLES) == 32 * len(matmul_tc.SIZES)
    assert len({s.sample_id for s in SAMPLES}) == len(SAMPLES)
    by_task = defaultdict(list)
    for s in SAMPLES:
        by_task[s.task_id].append(s)
        M, N, K = (s.problem_kwargs[k] for k in "MNK")
        assert s.flops == 2 * M * N * K and s.bytes == 2 * (M * K + K * N) + 4 * M * N
        # the launch covers C exactly: the tensor-core kernels have no edge guards
        tile_x = s.params.get("bn") or 16 * s.params.get("fn", 1) * s.params.get("wx", 1)
        tile_y = s.params.get("bm") or 16 * s.params.get("fm", 1) * s.params.get("wy", 1)
        if s.params["kind"] == "scalar":
            tile_x, tile_y = s.block[0], s.block[1]
        assert (s.grid[0] * tile_x, s.grid[1] * tile_y) == (N, M), s.variant
        assert [b.dtype for b in s.args if isinstance(b, Buffer)] == ["float16", "float16", "float32"]
    for group in by_task.values():
        assert sum(s.baseline for s in group) == 1


def test_reference_on_a_tiny_size():
    p = matmul_tc.problem(32, 48, 64, seed=3)
    a = p.inputs["A"].astype(np.float64).reshape(32, 64)
    b = p.inputs["B"].astype(np.float64).reshape(64, 48)
    assert p.inputs["A"].dtype == np.float16
    np.testing.assert_allclose(p.expected["C"].reshape(32, 48), a @ b, rtol=1e-5, atol=1e-5)
    atol, rtol = matmul_tc.tolerance(4096)
    assert atol > 64 * 4096 * 2.0**-24 / 8 and rtol == 1e-3


@pytest.mark.slow
def test_every_source_compiles_with_nvrtc():
    pytest.importorskip("cuda.bindings")
    from analyzer.profile import build

    seen = {}
    for s in SAMPLES:
        seen.setdefault((s.source, s.kernel), s)
    for (src, kernel), s in seen.items():
        r = build.build(src, kernel, arch="sm_90")
        assert r.ok, (s.variant, r.log[-500:])
        # __launch_bounds__(threads) keeps ptxas within the registers a full block leaves a thread
        # (the 512-thread tile spills a little under its 64-register cap: data for the spill features)
        regs = re.search(r"Used (\d+) registers", r.log)
        assert regs is None or int(regs.group(1)) <= min(255, 65536 // s.threads_per_block), s.variant


# ---------------------------------------------------------------- the walker and the features

def test_mma_sync_is_a_matrix_op_in_its_loops():
    src = """
    #include <mma.h>
    using namespace nvcuda;
    constexpr int TM = 32;
    __global__ void k(const half* a, const half* b, float* c, int K) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
        wmma::fragment<wmma::accumulator, TM, 8, 16, float> wide;
        wmma::fill_fragment(acc, 0.0f);
        for (int k = 0; k < K; k += 16) {
            wmma::load_matrix_sync(fa, a + k, K);
            wmma::load_matrix_sync(fb, b + k, K);
            wmma::mma_sync(acc, fa, fb, acc);
        }
        wmma::mma_sync(wide, fa, fb, wide);
        wmma::store_matrix_sync(c, acc, 16, wmma::mem_row_major);
    }
    """
    p = parse(src)
    ka = analyze(p, p.function("k"))
    assert [(m.macs, len(m.loops)) for m in ka.mmas] == [(16 * 16 * 16, 1), (32 * 8 * 16, 0)]


def test_inline_ptx_mma_is_a_matrix_op():
    src = r"""
    __global__ void k(const unsigned* a, float* c, int K) {
        unsigned ra[4], rb[2];
        float acc[4] = {0.f, 0.f, 0.f, 0.f};
        for (int k = 0; k < K; k += 16) {
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                         "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                         : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                         : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]));
        }
        asm volatile("wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%0}, %1, %2, 1, 1, 1;" :: "r"(0));
        c[threadIdx.x] = acc[0];
    }
    """
    p = parse(src)
    ka = analyze(p, p.function("k"))
    # a warp's m16n8k16; a warpgroup's m64n128k16, a quarter of it each warp's
    assert [(m.macs, len(m.loops)) for m in ka.mmas] == [(16 * 8 * 16, 1), (64 * 128 * 16 // 4, 0)]


def test_tensor_flops_are_the_tasks_flops():
    for variant in sorted({s.variant for s in SAMPLES}):
        for size in ("m1024", "m768_n3072_k1024"):
            s = _one(variant, size)
            f = extract(s.source, s.kernel, grid=s.grid, block=s.block, args=_args(s),
                        problem=Problem(s.bytes, s.flops)).values
            if variant == matmul_tc.BASELINE:
                assert f["log_tensor_flops"] == 0 and f["tensor_share"] == 0 and math.isnan(f["pipe_tensor"])
                assert f["pipe_fp32"] > -3
            else:
                assert f["log_tensor_flops"] == pytest.approx(math.log10(1 + s.flops), abs=1e-9), variant
                assert f["tensor_share"] == pytest.approx(1.0), variant
                assert math.isnan(f["pipe_fp32"]), variant   # nothing is left for the CUDA cores


def test_written_out_products_all_count():
    """Twenty mma_syncs in a loop body (an unrolled tile written out) run as often as one: all count."""
    calls = "\n".join("            wmma::mma_sync(acc, fa, fb, acc);" for _ in range(20))
    src = f"""
    #include <mma.h>
    using namespace nvcuda;
    __global__ void k(const half* a, const half* b, float* c, int K) {{
        wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
        wmma::fill_fragment(acc, 0.0f);
        for (int k = 0; k < K; k += 16) {{
            wmma::load_matrix_sync(fa, a + k, K);
            wmma::load_matrix_sync(fb, b + k * 16, 16);
{calls}
        }}
        wmma::store_matrix_sync(c, acc, 16, wmma::mem_row_major);
    }}
    """
    f = extract(src, "k", grid=(1, 1, 1), block=(64, 1, 1), args={"K": 64}).values
    # 2 warps x 4 iterations x 20 products x 16^3 multiply-adds x 2 flops
    assert f["log_tensor_flops"] == pytest.approx(math.log10(1 + 2 * 4 * 20 * 16 ** 3 * 2))


def test_tensor_pipe_time():
    a = models.arch("sm_90")
    zero = dict(task_bytes=0.0, flops=0.0, traffic_bytes=0.0, global_requests=0.0, shared_wavefronts=0.0,
                atomic_ops=0.0)
    t = models.pipe_times(a, **zero, tensor_flops=2e12)
    assert t["tensor"] == pytest.approx(2e12 / a.tensor_flops_per_s)
    assert models.time_estimate(a, **zero, tensor_flops=a.tensor_flops_per_s) == pytest.approx(1.0 + a.launch_s)
    assert models.pipe_times(a, **zero)["tensor"] == 0.0
    # the roofline: tensor flops at the tensor rate, the rest at FP32's
    assert models.roofline_seconds(a, 0.0, a.fp32_flops_per_s, a.tensor_flops_per_s) == pytest.approx(2.0)
    assert all(models.ARCHS[n].tensor_flops_per_s > models.ARCHS[n].fp32_flops_per_s for n in models.ARCHS)


def test_wmma_estimates_of_the_family():
    """The fragment loads' bank conflicts and sectors as memory_probe measured them on the H200."""
    from analyzer.lint import lint_source

    def findings(variant):
        s = _one(variant)
        r = lint_source(s.source, "k.cu")
        return {(f.code, f.line) for f in r.findings}, r

    codes, _ = findings("smem_128x128x32_w2x4_p0")
    assert sum(1 for c, _ in codes if c == "SM201") == 2          # both fragment loads conflict unpadded
    codes, _ = findings("smem_128x128x32_w2x4_p8")
    assert not any(c == "SM201" and "load_matrix_sync" in _line(_one("smem_128x128x32_w2x4_p8"), ln)
                   for c, ln in codes)
    codes, _ = findings("global_f2x2_w2x2")
    assert sum(1 for c, _ in codes if c == "GM101") == 2          # 8 sectors a request, ideal 4


def _line(s, line: int) -> str:
    return s.source.splitlines()[line - 1]


# ---------------------------------------------------------------- registers

def test_fragment_words():
    text = """
        wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a[FM];
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[FM][2];
        nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 32, 8, 16, half> h;
        wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> t;
        wmma::fragment<wmma::accumulator, N, 16, 16, float> unknown;
    """
    # a: 3 x 4 words; b: 4; acc: 6 x 8; h: 32 * 8 halves / 32 lanes = 4 words; t: 16 * 8 tf32 = 4 words
    assert fragment_words(text, {"FM": 3}) == 12 + 4 + 48 + 4 + 4
    s = _one("smem_128x128x32_w2x4_p8")
    p = parse(s.source)
    # FM = 4, FN = 2: 8 accumulators (64 words), 4 a and 2 b fragments (16 + 8)
    assert register_features(p, p.function(s.kernel))["fragment_words"] == 88


@pytest.mark.gpu
def test_every_variant_is_correct_on_its_smallest_size():
    pytest.importorskip("cupy")
    from tests.test_families_a import _gpu_available, run_on_gpu, upload

    if not _gpu_available():
        pytest.skip("needs an NVIDIA GPU and CuPy")
    group = [s for s in SAMPLES if s.size == "m1024"]
    inputs, expected = upload(matmul_tc.problem(**group[0].problem_kwargs))
    modules: dict = {}
    failures = [r for r in (run_on_gpu(s, inputs, expected, modules, reps=0) for s in group) if not r["ok"]]
    assert not failures, failures
