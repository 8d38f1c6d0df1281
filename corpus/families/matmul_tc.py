"""Half-precision matrix product on the tensor cores: C = A·B with A [M, K] and B [K, N] half,
row-major, and C [M, N] float32 (float accumulation).

Variants: a scalar baseline (one thread an output, CUDA cores), wmma 16x16x16 fragments loaded
straight from global memory (one or 2x2 fragments a warp), block tiles staged in shared memory
with 16-byte copies, unpadded (the fragment loads' rows 64-256 bytes apart: 4-8x the ideal
wavefronts) or padded by 8 halves (rows an odd multiple of 16 bytes apart: conflict free), and
the padded tiles double-buffered with 16-byte cp.async copies. Every size is a multiple of the
largest block tile (128), so the tensor-core kernels need no edge guards.
"""
from __future__ import annotations

import numpy as np

from ._render import F32_EPS, make_sample, render, uniform
from .base import Buffer, Problem, Sample, Scalar
# the fp32 family's variant record, grid of block tiles over C and size labels serve this one too
from .matmul import _over_c, _size_label, _Variant

NAME = "matmul_tc"
BASELINE = "scalar_b16x16"
DESCRIPTION = "half C = A*B with float accumulation: scalar, wmma from global, shared tiles (padded or not), cp.async"

SIZES = ((1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096), (768, 3072, 1024), (2048, 2048, 512),
         (1024, 4096, 4096))
# (fragments a warp in y and x, warps a block in y and x)
GLOBAL = ((1, 1, 2, 2), (2, 2, 2, 2), (1, 2, 4, 2), (4, 2, 2, 2), (2, 1, 1, 1))
# (BM, BN, BK, warps in y, warps in x): a warp's tile is (BM / wy) x (BN / wx)
SMEM = ((64, 64, 32, 2, 2), (128, 128, 32, 2, 4), (128, 64, 32, 2, 2), (64, 64, 16, 2, 2), (64, 128, 32, 2, 2),
        (128, 128, 64, 2, 4), (32, 32, 32, 1, 1), (64, 64, 64, 2, 2), (128, 128, 32, 4, 4))
PADS = (0, 8)
ASYNC = ((64, 64, 32, 2, 2), (128, 128, 32, 2, 4), (128, 64, 32, 2, 2), (64, 128, 32, 2, 2))
SEED = 11

_SIG = "const __half* __restrict__ A, const __half* __restrict__ B, float* __restrict__ C, int M, int N, int K"

_SCALAR = """
    #include <cuda_fp16.h>
    // one thread an output on the CUDA cores: B and C coalesced across x, A broadcast
    extern "C" __global__ void matmul_tc_scalar($SIG)
    {
        int col = blockIdx.x * blockDim.x + threadIdx.x;
        int row = blockIdx.y * blockDim.y + threadIdx.y;
        if (row < M && col < N) {
            float acc = 0.0f;
            for (int k = 0; k < K; ++k) acc += __half2float(A[row * K + k]) * __half2float(B[k * N + col]);
            C[row * N + col] = acc;
        }
    }
"""

_GLOBAL = """
    #include <cuda_fp16.h>
    #include <mma.h>
    using namespace nvcuda;
    constexpr int FM = $FM, FN = $FN;            // 16x16 fragments a warp computes, in y and x
    constexpr int WY = $WY, WX = $WX;            // warps a block, in y and x
    // fragments loaded straight from global memory: each lane reads 4 bytes of a row at a time
    extern "C" __global__ void __launch_bounds__(32 * WY * WX) matmul_tc_global($SIG)
    {
        int warp = threadIdx.x / 32;
        int row0 = (blockIdx.y * WY + warp / WX) * (16 * FM);
        int col0 = (blockIdx.x * WX + warp % WX) * (16 * FN);
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[FM][FN];
        wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a[FM];
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b[FN];
    #pragma unroll
        for (int i = 0; i < FM; ++i)
    #pragma unroll
            for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
        for (int k = 0; k < K; k += 16) {
    #pragma unroll
            for (int i = 0; i < FM; ++i) wmma::load_matrix_sync(a[i], A + (row0 + 16 * i) * K + k, K);
    #pragma unroll
            for (int j = 0; j < FN; ++j) wmma::load_matrix_sync(b[j], B + k * N + col0 + 16 * j, N);
    #pragma unroll
            for (int i = 0; i < FM; ++i)
    #pragma unroll
                for (int j = 0; j < FN; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
    #pragma unroll
        for (int i = 0; i < FM; ++i)
    #pragma unroll
            for (int j = 0; j < FN; ++j)
                wmma::store_matrix_sync(C + (row0 + 16 * i) * N + col0 + 16 * j, acc[i][j], N, wmma::mem_row_major);
    }
"""

# $FILL: how a k-step's tiles reach shared memory (16-byte copies, synchronous or cp.async)
_SMEM = """
    #include <cuda_fp16.h>
    #include <mma.h>
    $INCLUDE
    using namespace nvcuda;
    constexpr int BM = $BM, BN = $BN, BK = $BK, PAD = $PAD;
    constexpr int WY = $WY, WX = $WX, THREADS = 32 * WY * WX;
    constexpr int FM = BM / WY / 16, FN = BN / WX / 16;   // fragments a warp computes
    constexpr int STAGES = $STAGES;
    // block tiles in shared memory, rows BK + PAD and BN + PAD halves long
    extern "C" __global__ void __launch_bounds__(THREADS) $KERNEL($SIG)
    {
        __shared__ __align__(16) __half As[STAGES][BM][BK + PAD];
        __shared__ __align__(16) __half Bs[STAGES][BK][BN + PAD];
        int tid = threadIdx.x, warp = tid / 32;
        int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
        int wm = (warp / WX) * (BM / WY), wn = (warp % WX) * (BN / WX);
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[FM][FN];
        wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a[FM];
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b[FN];
    #pragma unroll
        for (int i = 0; i < FM; ++i)
    #pragma unroll
            for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
        $MAIN
    #pragma unroll
        for (int i = 0; i < FM; ++i)
    #pragma unroll
            for (int j = 0; j < FN; ++j)
                wmma::store_matrix_sync(C + (bm + wm + 16 * i) * N + bn + wn + 16 * j, acc[i][j], N, wmma::mem_row_major);
    }
"""

# the fragments of one k-step's tiles (stage s), multiplied into acc
_COMPUTE = """
    #pragma unroll
            for (int kk = 0; kk < BK; kk += 16) {
    #pragma unroll
                for (int i = 0; i < FM; ++i) wmma::load_matrix_sync(a[i], &As[$S][wm + 16 * i][kk], BK + PAD);
    #pragma unroll
                for (int j = 0; j < FN; ++j) wmma::load_matrix_sync(b[j], &Bs[$S][kk][wn + 16 * j], BN + PAD);
    #pragma unroll
                for (int i = 0; i < FM; ++i)
    #pragma unroll
                    for (int j = 0; j < FN; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
            }"""

_SYNC_MAIN = """for (int k0 = 0; k0 < K; k0 += BK) {
            // 8 halves (16 bytes) a thread a copy, consecutive threads along a row
            for (int l = tid; l < BM * BK / 8; l += THREADS) {
                int r = l / (BK / 8), c = (l % (BK / 8)) * 8;
                *reinterpret_cast<uint4*>(&As[0][r][c]) = *reinterpret_cast<const uint4*>(&A[(bm + r) * K + k0 + c]);
            }
            for (int l = tid; l < BK * BN / 8; l += THREADS) {
                int r = l / (BN / 8), c = (l % (BN / 8)) * 8;
                *reinterpret_cast<uint4*>(&Bs[0][r][c]) = *reinterpret_cast<const uint4*>(&B[(k0 + r) * N + bn + c]);
            }
            __syncthreads();
            $COMPUTE
            __syncthreads();
        }"""

_ASYNC_MAIN = """// two stages: the copies of step k0 + BK fly while step k0's fragments are multiplied
        auto load = [&](int stage, int k0) {
            for (int l = tid; l < BM * BK / 8; l += THREADS) {
                int r = l / (BK / 8), c = (l % (BK / 8)) * 8;
                __pipeline_memcpy_async(&As[stage][r][c], &A[(bm + r) * K + k0 + c], 16);
            }
            for (int l = tid; l < BK * BN / 8; l += THREADS) {
                int r = l / (BN / 8), c = (l % (BN / 8)) * 8;
                __pipeline_memcpy_async(&Bs[stage][r][c], &B[(k0 + r) * N + bn + c], 16);
            }
            __pipeline_commit();
        };
        load(0, 0);
        int s = 0;
        for (int k0 = 0; k0 < K; k0 += BK, s ^= 1) {
            if (k0 + BK < K) {
                load(s ^ 1, k0 + BK);
                __pipeline_wait_prior(1);
            } else {
                __pipeline_wait_prior(0);
            }
            __syncthreads();
            $COMPUTE
            __syncthreads();
        }"""


def problem(M: int, N: int, K: int, seed: int = SEED) -> Problem:
    rng = np.random.default_rng(seed)
    a = uniform(rng, M * K).astype(np.float16)
    b = uniform(rng, K * N).astype(np.float16)
    # products of halves are exact in float32; the float32 BLAS sum is far inside the tolerance
    c = a.reshape(M, K).astype(np.float32) @ b.reshape(K, N).astype(np.float32)
    return Problem(inputs={"A": a, "B": b}, expected={"C": np.ascontiguousarray(c, dtype=np.float32).ravel()})


def tolerance(K: int) -> tuple[float, float]:
    """A dot product of K products in (-1, 1), summed in float32 (the tensor cores' adder
    truncates: a few units of rounding a step)."""
    return 16 * F32_EPS * K, 1e-3


def _smem_source(bm: int, bn: int, bk: int, wy: int, wx: int, pad: int, cp_async: bool) -> str:
    main, stages = (_ASYNC_MAIN, 2) if cp_async else (_SYNC_MAIN, 1)
    compute = _COMPUTE.replace("$S", "s" if cp_async else "0")
    return render(_SMEM, SIG=_SIG, BM=bm, BN=bn, BK=bk, WY=wy, WX=wx, PAD=pad, STAGES=stages,
                  INCLUDE="#include <cuda_pipeline.h>" if cp_async else "",
                  KERNEL="matmul_tc_async" if cp_async else "matmul_tc_smem",
                  MAIN=main.replace("$COMPUTE", compute.strip()))


def _variants() -> list[_Variant]:
    out = [_Variant("scalar", "scalar_b16x16", render(_SCALAR, SIG=_SIG), "matmul_tc_scalar", (16, 16, 1),
                    _over_c(16, 16), {"block_x": 16, "block_y": 16})]
    for fm, fn, wy, wx in GLOBAL:
        src = render(_GLOBAL, SIG=_SIG, FM=fm, FN=fn, WY=wy, WX=wx)
        out.append(_Variant("wmma_global", f"global_f{fm}x{fn}_w{wy}x{wx}", src, "matmul_tc_global",
                            (32 * wy * wx, 1, 1), _over_c(16 * fn * wx, 16 * fm * wy),
                            {"fm": fm, "fn": fn, "wy": wy, "wx": wx}))
    for cp_async, shapes in ((False, SMEM), (True, ASYNC)):
        for bm, bn, bk, wy, wx in shapes:
            for pad in PADS:
                kind = "wmma_async" if cp_async else "wmma_smem"
                out.append(_Variant(kind, f"{kind[5:]}_{bm}x{bn}x{bk}_w{wy}x{wx}_p{pad}",
                                    _smem_source(bm, bn, bk, wy, wx, pad, cp_async),
                                    "matmul_tc_async" if cp_async else "matmul_tc_smem", (32 * wy * wx, 1, 1),
                                    _over_c(bn, bm), {"bm": bm, "bn": bn, "bk": bk, "wy": wy, "wx": wx, "pad": pad}))
    return out


def samples() -> list[Sample]:
    variants = _variants()
    out: list[Sample] = []
    for M, N, K in SIZES:
        atol, rtol = tolerance(K)
        kw = {"M": M, "N": N, "K": K, "seed": SEED}
        args = (Buffer("A", "float16", M * K), Buffer("B", "float16", K * N), Buffer("C", "float32", M * N, "out"),
                Scalar("M", "int32", M), Scalar("N", "int32", N), Scalar("K", "int32", K))
        for v in variants:
            out.append(make_sample(
                NAME, BASELINE, variant=v.name, size=_size_label(M, N, K), source=v.source, kernel=v.kernel,
                grid=v.grid(M, N), block=v.block, args=args, problem_kwargs=kw,
                params={"kind": v.kind, **v.params}, bytes=2 * (M * K + K * N) + 4 * M * N, flops=2 * M * N * K,
                atol=atol, rtol=rtol))
    return out
