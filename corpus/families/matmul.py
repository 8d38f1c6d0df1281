"""fp32 matrix product C = A·B, all row-major: A is [M, K], B is [K, N], C is [M, N].

Variants: naive with thread x walking the columns of C (coalesced B and C) and
the loop order where thread x walks rows (uncoalesced), shared tiles of 8, 16
and 32, 1-D register blocking (each thread TM outputs of a column) and 2-D
register blocking (a TM x TN micro-tile per thread, A tile stored as is or
transposed in shared memory). Tile constants are `constexpr int`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ._render import F32_EPS, make_sample, render, uniform
from .base import Buffer, Problem, Sample, Scalar, cdiv

NAME = "matmul"
BASELINE = "naive_b16x16"
DESCRIPTION = "fp32 C = A*B (row-major): naive, uncoalesced, shared tiles, 1-D and 2-D register blocking"

# (M, N, K): L2-resident squares, a large square, a non-square, and a ragged one (no size a tile multiple)
SIZES = ((256, 256, 256), (512, 512, 512), (1024, 1024, 1024), (2048, 2048, 2048),
         (768, 3072, 1024), (1000, 1500, 700))
# the uncoalesced loop order runs ~10x slower than naive: only where it stays far under 50 ms
UNCOALESCED_MAX_FLOPS = 2 * 1024**3 * 3
NAIVE_BLOCKS = ((16, 16), (32, 8), (32, 32), (64, 4))
UNCOALESCED_BLOCKS = ((16, 16), (32, 8))
TILES = (8, 16, 32)
# (BM, BN, BK, TM): threads = BM * BN / TM
BLOCK1D = ((64, 64, 8, 8), (64, 64, 16, 4), (128, 64, 8, 16), (32, 32, 8, 4))
# (BM, BN, BK, TM, TN, A transposed in shared memory): threads = (BM / TM) * (BN / TN)
BLOCK2D = (
    (64, 64, 8, 4, 4, False), (64, 64, 16, 4, 4, False), (128, 128, 8, 8, 8, False),
    (128, 128, 16, 8, 8, False), (128, 64, 8, 8, 4, False), (64, 128, 8, 4, 8, False),
    (32, 32, 8, 2, 2, False), (64, 64, 8, 8, 8, False), (128, 128, 8, 4, 4, False),
    (32, 32, 16, 4, 4, False), (64, 64, 32, 4, 4, False), (128, 128, 8, 8, 4, False),
    (64, 64, 8, 4, 4, True), (128, 128, 8, 8, 8, True), (128, 128, 16, 8, 8, True),
)
SEED = 6

_SIG = ("const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, "
        "int M, int N, int K")

_NAIVE = """
    // thread x walks the columns of C: B and C accesses are coalesced, A is broadcast
    extern "C" __global__ void matmul_naive($SIG)
    {
        int col = blockIdx.x * blockDim.x + threadIdx.x;
        int row = blockIdx.y * blockDim.y + threadIdx.y;
        if (row < M && col < N) {
            float acc = 0.0f;
            for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
            C[row * N + col] = acc;
        }
    }
"""

_UNCOALESCED = """
    // thread x walks the rows of C: A and C accesses are K and N floats apart across a warp
    extern "C" __global__ void matmul_uncoalesced($SIG)
    {
        int row = blockIdx.x * blockDim.x + threadIdx.x;
        int col = blockIdx.y * blockDim.y + threadIdx.y;
        if (row < M && col < N) {
            float acc = 0.0f;
            for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
            C[row * N + col] = acc;
        }
    }
"""

_TILED = """
    constexpr int TILE = $TILE;
    extern "C" __global__ void matmul_tiled($SIG)
    {
        __shared__ float As[TILE][TILE];
        __shared__ float Bs[TILE][TILE];
        int tx = threadIdx.x, ty = threadIdx.y;
        int row = blockIdx.y * TILE + ty;
        int col = blockIdx.x * TILE + tx;
        float acc = 0.0f;
        for (int k0 = 0; k0 < K; k0 += TILE) {
            As[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.0f;
            Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(k0 + ty) * N + col] : 0.0f;
            __syncthreads();
    #pragma unroll
            for (int kk = 0; kk < TILE; ++kk) acc += As[ty][kk] * Bs[kk][tx];
            __syncthreads();
        }
        if (row < M && col < N) C[row * N + col] = acc;
    }
"""

_BLOCK1D = """
    constexpr int BM = $BM, BN = $BN, BK = $BK, TM = $TM;
    constexpr int THREADS = BM * BN / TM;
    extern "C" __global__ void __launch_bounds__(THREADS) matmul_block1d($SIG)
    {
        __shared__ float As[BM][BK];
        __shared__ float Bs[BK][BN];
        int tid = threadIdx.x;
        int tcol = tid % BN;          // column of C inside the block tile
        int trow = tid / BN;          // owns rows trow*TM .. trow*TM+TM-1
        int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
        float acc[TM];
    #pragma unroll
        for (int m = 0; m < TM; ++m) acc[m] = 0.0f;
        for (int k0 = 0; k0 < K; k0 += BK) {
            for (int l = tid; l < BM * BK; l += THREADS) {
                int r = l / BK, c = l % BK;
                As[r][c] = (bm + r < M && k0 + c < K) ? A[(bm + r) * K + k0 + c] : 0.0f;
            }
            for (int l = tid; l < BK * BN; l += THREADS) {
                int r = l / BN, c = l % BN;
                Bs[r][c] = (k0 + r < K && bn + c < N) ? B[(k0 + r) * N + bn + c] : 0.0f;
            }
            __syncthreads();
    #pragma unroll
            for (int kk = 0; kk < BK; ++kk) {
                float b = Bs[kk][tcol];
    #pragma unroll
                for (int m = 0; m < TM; ++m) acc[m] += As[trow * TM + m][kk] * b;
            }
            __syncthreads();
        }
    #pragma unroll
        for (int m = 0; m < TM; ++m) {
            int row = bm + trow * TM + m, col = bn + tcol;
            if (row < M && col < N) C[row * N + col] = acc[m];
        }
    }
"""

# $AS_DECL / $AS_STORE / $AS_LOAD: the A tile as [BM][BK] or transposed [BK][BM]
_BLOCK2D = """
    constexpr int BM = $BM, BN = $BN, BK = $BK, TM = $TM, TN = $TN;
    constexpr int THREADS = (BM / TM) * (BN / TN);
    extern "C" __global__ void __launch_bounds__(THREADS) matmul_block2d($SIG)
    {
        $AS_DECL
        __shared__ float Bs[BK][BN];
        int tid = threadIdx.x;
        int tcol = tid % (BN / TN);   // owns columns tcol*TN .. +TN-1 of the block tile
        int trow = tid / (BN / TN);   // owns rows trow*TM .. +TM-1
        int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
        float acc[TM][TN];
        float ra[TM], rb[TN];
    #pragma unroll
        for (int m = 0; m < TM; ++m) {
    #pragma unroll
            for (int j = 0; j < TN; ++j) acc[m][j] = 0.0f;
        }
        for (int k0 = 0; k0 < K; k0 += BK) {
            for (int l = tid; l < BM * BK; l += THREADS) {
                int r = l / BK, c = l % BK;
                $AS_STORE = (bm + r < M && k0 + c < K) ? A[(bm + r) * K + k0 + c] : 0.0f;
            }
            for (int l = tid; l < BK * BN; l += THREADS) {
                int r = l / BN, c = l % BN;
                Bs[r][c] = (k0 + r < K && bn + c < N) ? B[(k0 + r) * N + bn + c] : 0.0f;
            }
            __syncthreads();
    #pragma unroll
            for (int kk = 0; kk < BK; ++kk) {
    #pragma unroll
                for (int m = 0; m < TM; ++m) ra[m] = $AS_LOAD;
    #pragma unroll
                for (int j = 0; j < TN; ++j) rb[j] = Bs[kk][tcol * TN + j];
    #pragma unroll
                for (int m = 0; m < TM; ++m) {
    #pragma unroll
                    for (int j = 0; j < TN; ++j) acc[m][j] += ra[m] * rb[j];
                }
            }
            __syncthreads();
        }
    #pragma unroll
        for (int m = 0; m < TM; ++m) {
            int row = bm + trow * TM + m;
    #pragma unroll
            for (int j = 0; j < TN; ++j) {
                int col = bn + tcol * TN + j;
                if (row < M && col < N) C[row * N + col] = acc[m][j];
            }
        }
    }
"""

_AS = {
    False: dict(AS_DECL="__shared__ float As[BM][BK];", AS_STORE="As[r][c]", AS_LOAD="As[trow * TM + m][kk]"),
    True: dict(AS_DECL="__shared__ float As[BK][BM];   // transposed: the m loop reads consecutive words",
               AS_STORE="As[c][r]", AS_LOAD="As[kk][trow * TM + m]"),
}


def problem(M: int, N: int, K: int, seed: int = SEED) -> Problem:
    rng = np.random.default_rng(seed)
    a = uniform(rng, M * K)
    b = uniform(rng, K * N)
    c = a.reshape(M, K).astype(np.float64) @ b.reshape(K, N).astype(np.float64)
    return Problem(inputs={"A": a, "B": b}, expected={"C": c.astype(np.float32).ravel()})


def tolerance(K: int) -> tuple[float, float]:
    """A dot product of K terms in [-1, 1): float32 rounding grows at most like eps * K."""
    return 8 * F32_EPS * K, 1e-4


def _size_label(M: int, N: int, K: int) -> str:
    return f"m{M}" if M == N == K else f"m{M}_n{N}_k{K}"


@dataclass(frozen=True)
class _Variant:
    kind: str
    name: str
    source: str
    kernel: str
    block: tuple[int, int, int]
    grid: Callable[[int, int], tuple[int, int, int]]   # (M, N) -> grid
    params: dict[str, Any]


def _over_c(bx: int, by: int) -> Callable[[int, int], tuple[int, int, int]]:
    """Grid for block tiles of bx columns by by rows of C."""
    return lambda M, N: (cdiv(N, bx), cdiv(M, by), 1)


def _variants() -> list[_Variant]:
    out: list[_Variant] = []
    naive = render(_NAIVE, SIG=_SIG)
    for bx, by in NAIVE_BLOCKS:
        out.append(_Variant("naive", f"naive_b{bx}x{by}", naive, "matmul_naive", (bx, by, 1),
                            _over_c(bx, by), {"block_x": bx, "block_y": by}))
    unc = render(_UNCOALESCED, SIG=_SIG)
    for bx, by in UNCOALESCED_BLOCKS:
        # x runs over rows of C here
        out.append(_Variant("uncoalesced", f"uncoalesced_b{bx}x{by}", unc, "matmul_uncoalesced", (bx, by, 1),
                            lambda M, N, bx=bx, by=by: (cdiv(M, bx), cdiv(N, by), 1),
                            {"block_x": bx, "block_y": by}))
    for t in TILES:
        out.append(_Variant("tiled", f"tiled_t{t}", render(_TILED, SIG=_SIG, TILE=t), "matmul_tiled", (t, t, 1),
                            _over_c(t, t), {"tile": t, "block_x": t, "block_y": t}))
    for bm, bn, bk, tm in BLOCK1D:
        src = render(_BLOCK1D, SIG=_SIG, BM=bm, BN=bn, BK=bk, TM=tm)
        out.append(_Variant("block1d", f"block1d_{bm}x{bn}x{bk}_t{tm}", src, "matmul_block1d",
                            (bm * bn // tm, 1, 1), _over_c(bn, bm), {"bm": bm, "bn": bn, "bk": bk, "tm": tm}))
    for bm, bn, bk, tm, tn, at in BLOCK2D:
        src = render(_BLOCK2D, SIG=_SIG, BM=bm, BN=bn, BK=bk, TM=tm, TN=tn, **_AS[at])
        out.append(_Variant("block2d", f"block2d{'_at' if at else ''}_{bm}x{bn}x{bk}_t{tm}x{tn}", src,
                            "matmul_block2d", ((bm // tm) * (bn // tn), 1, 1), _over_c(bn, bm),
                            {"bm": bm, "bn": bn, "bk": bk, "tm": tm, "tn": tn, "a_transposed": at}))
    return out


def samples() -> list[Sample]:
    variants = _variants()
    out: list[Sample] = []
    for M, N, K in SIZES:
        atol, rtol = tolerance(K)
        kw = {"M": M, "N": N, "K": K, "seed": SEED}
        args = (Buffer("A", "float32", M * K), Buffer("B", "float32", K * N), Buffer("C", "float32", M * N, "out"),
                Scalar("M", "int32", M), Scalar("N", "int32", N), Scalar("K", "int32", K))
        flops = 2 * M * N * K
        for v in variants:
            if v.kind == "uncoalesced" and flops > UNCOALESCED_MAX_FLOPS:
                continue
            out.append(make_sample(
                NAME, BASELINE, variant=v.name, size=_size_label(M, N, K), source=v.source, kernel=v.kernel,
                grid=v.grid(M, N), block=v.block, args=args, problem_kwargs=kw,
                params={"kind": v.kind, **v.params}, bytes=4 * (M * K + K * N + M * N), flops=flops,
                atol=atol, rtol=rtol))
    return out

