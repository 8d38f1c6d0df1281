"""LayerNorm over the rows of a row-major [rows, cols] float32 matrix, with gamma and beta.

y = (x - mean) / sqrt(var + eps) * gamma + beta, var the biased variance of the row.
Variants: a naive block per row with three passes (mean, variance, write) and
shared-memory trees, one pass of sum and sum of squares, Welford per thread
merged with Chan's formula, a warp per row, and float4 versions of the block
and warp kernels.
"""
from __future__ import annotations

import numpy as np

from ._render import count_label, make_sample, normal, render, uniform
from .base import Buffer, Problem, Sample, Scalar, cdiv

NAME = "layernorm"
BASELINE = "two_pass_b256"
DESCRIPTION = "row LayerNorm with gamma/beta: two-pass, sum+sumsq, Welford, warp-per-row, float4"

COLS = (256, 1024, 4096, 16384)
ELEMENTS = (2 << 20, 16 << 20, 64 << 20)   # 8 MB (L2), 64 MB, 256 MB of x (twice that in traffic)
TWO_PASS_BLOCKS = (128, 256, 512, 1024)
SUMSQ_BLOCKS = (256, 1024)
WELFORD_BLOCKS = (128, 256, 1024)
VEC4_BLOCKS = (64, 128, 256)
WARP_ROW_WARPS = (1, 4, 8)
WARP_VEC4_WARPS = (4, 8)
EPS = 1e-5
SEED = 8

_SIG = ("const float* __restrict__ x, const float* __restrict__ gamma, const float* __restrict__ beta, "
        "float* __restrict__ y, int rows, int cols, float eps")
_SIG_TYPES = ("const float* __restrict__, const float* __restrict__, const float* __restrict__, "
              "float* __restrict__, int, int, float")

_TWO_PASS = """
    template <int BLOCK>
    __device__ float block_sum(float v, float* sh)
    {
        sh[threadIdx.x] = v;
        __syncthreads();
        for (int s = BLOCK / 2; s > 0; s >>= 1) {
            if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
            __syncthreads();
        }
        float r = sh[0];
        __syncthreads();   // sh is reused by the next reduction
        return r;
    }

    template <int BLOCK>
    __global__ void layernorm_two_pass($SIG)
    {
        __shared__ float sh[BLOCK];
        int row = blockIdx.x;
        if (row >= rows) return;   // uniform over the block
        const float* xr = x + (size_t)row * cols;
        float* yr = y + (size_t)row * cols;
        float s = 0.0f;
        for (int c = threadIdx.x; c < cols; c += BLOCK) s += xr[c];
        float mean = block_sum<BLOCK>(s, sh) / cols;
        float q = 0.0f;
        for (int c = threadIdx.x; c < cols; c += BLOCK) {
            float d = xr[c] - mean;
            q += d * d;
        }
        float rstd = rsqrtf(block_sum<BLOCK>(q, sh) / cols + eps);
        for (int c = threadIdx.x; c < cols; c += BLOCK) yr[c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
    }
    template __global__ void layernorm_two_pass<$BLOCK>($SIG_TYPES);
"""

_WARP_SUM = """
    __device__ __forceinline__ float warp_sum(float v)
    {
    #pragma unroll
        for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
        return v;
    }
"""

# warp shuffles, then one shared slot per warp; every thread gets the sum
_BLOCK_SUM_SHFL = _WARP_SUM + """
    template <int BLOCK>
    __device__ float block_sum(float v, float* sh)
    {
        int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
        v = warp_sum(v);
        if (lane == 0) sh[warp] = v;
        __syncthreads();
        v = (lane < BLOCK / 32) ? sh[lane] : 0.0f;
        v = warp_sum(v);
        __syncthreads();   // sh is reused by the next reduction
        return v;
    }
"""

_SUMSQ = _BLOCK_SUM_SHFL + """
    // one read pass for sum and sum of squares: var = E[x^2] - mean^2
    template <int BLOCK>
    __global__ void layernorm_sumsq($SIG)
    {
        __shared__ float sh[32];
        int row = blockIdx.x;
        if (row >= rows) return;
        const float* xr = x + (size_t)row * cols;
        float* yr = y + (size_t)row * cols;
        float s = 0.0f, q = 0.0f;
        for (int c = threadIdx.x; c < cols; c += BLOCK) {
            float v = xr[c];
            s += v;
            q += v * v;
        }
        float mean = block_sum<BLOCK>(s, sh) / cols;
        float var = fmaxf(block_sum<BLOCK>(q, sh) / cols - mean * mean, 0.0f);
        float rstd = rsqrtf(var + eps);
        for (int c = threadIdx.x; c < cols; c += BLOCK) yr[c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
    }
    template __global__ void layernorm_sumsq<$BLOCK>($SIG_TYPES);
"""

_WELFORD = """
    // merge (n2, mean2, m2b) into (n, mean, m2): Chan et al.'s pairwise update
    __device__ __forceinline__ void welford_merge(float& n, float& mean, float& m2, float n2, float mean2, float m2b)
    {
        if (n2 == 0.0f) return;
        float nn = n + n2;
        float d = mean2 - mean;
        float r = n2 / nn;
        mean += d * r;
        m2 += m2b + d * d * n * r;
        n = nn;
    }

    __device__ __forceinline__ void welford_warp(float& n, float& mean, float& m2)
    {
    #pragma unroll
        for (int off = 16; off > 0; off >>= 1) {
            float n2 = __shfl_xor_sync(0xffffffffu, n, off);
            float mean2 = __shfl_xor_sync(0xffffffffu, mean, off);
            float m2b = __shfl_xor_sync(0xffffffffu, m2, off);
            welford_merge(n, mean, m2, n2, mean2, m2b);
        }
    }

    template <int BLOCK>
    __global__ void layernorm_welford($SIG)
    {
        __shared__ float sn[BLOCK / 32], smean[BLOCK / 32], sm2[BLOCK / 32];
        int row = blockIdx.x;
        if (row >= rows) return;
        const float* xr = x + (size_t)row * cols;
        float* yr = y + (size_t)row * cols;
        float n = 0.0f, mean = 0.0f, m2 = 0.0f;
        for (int c = threadIdx.x; c < cols; c += BLOCK) {
            float v = xr[c];
            n += 1.0f;
            float d = v - mean;
            mean += d / n;
            m2 += d * (v - mean);
        }
        welford_warp(n, mean, m2);
        int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
        if (lane == 0) { sn[warp] = n; smean[warp] = mean; sm2[warp] = m2; }
        __syncthreads();
        bool has = lane < BLOCK / 32;
        n = has ? sn[lane] : 0.0f;
        mean = has ? smean[lane] : 0.0f;
        m2 = has ? sm2[lane] : 0.0f;
        welford_warp(n, mean, m2);   // every warp merges the same partials: no broadcast needed
        float rstd = rsqrtf(m2 / cols + eps);
        for (int c = threadIdx.x; c < cols; c += BLOCK) yr[c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
    }
    template __global__ void layernorm_welford<$BLOCK>($SIG_TYPES);
"""

_WARP_ROW = _WARP_SUM + """
    const int WARPS = $WARPS;
    extern "C" __global__ void layernorm_warp_row($SIG)
    {
        int lane = threadIdx.x & 31;
        int row = blockIdx.x * WARPS + (threadIdx.x >> 5);
        if (row >= rows) return;   // uniform over the warp; no block barrier below
        const float* xr = x + (size_t)row * cols;
        float* yr = y + (size_t)row * cols;
        float s = 0.0f;
        for (int c = lane; c < cols; c += 32) s += xr[c];
        float mean = warp_sum(s) / cols;
        float q = 0.0f;
        for (int c = lane; c < cols; c += 32) {
            float d = xr[c] - mean;
            q += d * d;
        }
        float rstd = rsqrtf(warp_sum(q) / cols + eps);
        for (int c = lane; c < cols; c += 32) yr[c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
    }
"""

_NORM4 = """
    __device__ __forceinline__ float4 norm4(float4 v, float4 g, float4 b, float mean, float rstd)
    {
        return make_float4((v.x - mean) * rstd * g.x + b.x, (v.y - mean) * rstd * g.y + b.y,
                           (v.z - mean) * rstd * g.z + b.z, (v.w - mean) * rstd * g.w + b.w);
    }
"""

_VEC4 = _BLOCK_SUM_SHFL + _NORM4 + """
    // needs cols % 4 == 0 (rows stay 16-byte aligned)
    template <int BLOCK>
    __global__ void layernorm_vec4($SIG)
    {
        __shared__ float sh[32];
        int row = blockIdx.x;
        if (row >= rows) return;
        int c4 = cols / 4;
        const float4* xr = reinterpret_cast<const float4*>(x + (size_t)row * cols);
        const float4* g4 = reinterpret_cast<const float4*>(gamma);
        const float4* b4 = reinterpret_cast<const float4*>(beta);
        float4* yr = reinterpret_cast<float4*>(y + (size_t)row * cols);
        float s = 0.0f;
        for (int c = threadIdx.x; c < c4; c += BLOCK) {
            float4 v = xr[c];
            s += (v.x + v.y) + (v.z + v.w);
        }
        float mean = block_sum<BLOCK>(s, sh) / cols;
        float q = 0.0f;
        for (int c = threadIdx.x; c < c4; c += BLOCK) {
            float4 v = xr[c];
            float a = v.x - mean, b = v.y - mean, d = v.z - mean, e = v.w - mean;
            q += (a * a + b * b) + (d * d + e * e);
        }
        float rstd = rsqrtf(block_sum<BLOCK>(q, sh) / cols + eps);
        for (int c = threadIdx.x; c < c4; c += BLOCK) yr[c] = norm4(xr[c], g4[c], b4[c], mean, rstd);
    }
    template __global__ void layernorm_vec4<$BLOCK>($SIG_TYPES);
"""

_WARP_VEC4 = _WARP_SUM + _NORM4 + """
    const int WARPS = $WARPS;
    // needs cols % 4 == 0 (rows stay 16-byte aligned)
    extern "C" __global__ void layernorm_warp_vec4($SIG)
    {
        int lane = threadIdx.x & 31;
        int row = blockIdx.x * WARPS + (threadIdx.x >> 5);
        if (row >= rows) return;
        int c4 = cols / 4;
        const float4* xr = reinterpret_cast<const float4*>(x + (size_t)row * cols);
        const float4* g4 = reinterpret_cast<const float4*>(gamma);
        const float4* b4 = reinterpret_cast<const float4*>(beta);
        float4* yr = reinterpret_cast<float4*>(y + (size_t)row * cols);
        float s = 0.0f;
        for (int c = lane; c < c4; c += 32) {
            float4 v = xr[c];
            s += (v.x + v.y) + (v.z + v.w);
        }
        float mean = warp_sum(s) / cols;
        float q = 0.0f;
        for (int c = lane; c < c4; c += 32) {
            float4 v = xr[c];
            float a = v.x - mean, b = v.y - mean, d = v.z - mean, e = v.w - mean;
            q += (a * a + b * b) + (d * d + e * e);
        }
        float rstd = rsqrtf(warp_sum(q) / cols + eps);
        for (int c = lane; c < c4; c += 32) yr[c] = norm4(xr[c], g4[c], b4[c], mean, rstd);
    }
"""


def problem(rows: int, cols: int, eps: float = EPS, seed: int = SEED) -> Problem:
    rng = np.random.default_rng(seed)
    x = normal(rng, rows * cols, scale=1.5, shift=0.25)
    gamma = uniform(rng, cols, 0.5, 1.5)
    beta = uniform(rng, cols, -0.5, 0.5)
    d = x.reshape(rows, cols).astype(np.float64)
    d -= d.mean(axis=1, keepdims=True)
    var = np.einsum("ij,ij->i", d, d) / cols
    d *= (1.0 / np.sqrt(var + eps))[:, None]
    d *= gamma.astype(np.float64)
    d += beta.astype(np.float64)
    return Problem(inputs={"x": x, "gamma": gamma, "beta": beta}, expected={"y": d.astype(np.float32).ravel()})


def samples() -> list[Sample]:
    out: list[Sample] = []
    for cols in COLS:
        for total in ELEMENTS:
            rows = total // cols
            kw = {"rows": rows, "cols": cols, "eps": EPS, "seed": SEED}
            args = (Buffer("x", "float32", rows * cols), Buffer("gamma", "float32", cols),
                    Buffer("beta", "float32", cols), Buffer("y", "float32", rows * cols, "out"),
                    Scalar("rows", "int32", rows), Scalar("cols", "int32", cols), Scalar("eps", "float32", EPS))
            common = dict(size=f"r{count_label(rows)}_c{count_label(cols)}", args=args, problem_kwargs=kw,
                          bytes=4 * (2 * rows * cols + 2 * cols), flops=8 * rows * cols, atol=1e-4, rtol=1e-4)

            def add(kind: str, variant: str, src: str, kernel: str, grid: int, block: int, **params: object) -> None:
                out.append(make_sample(NAME, BASELINE, variant=variant, source=src, kernel=kernel,
                                       grid=(grid, 1, 1), block=(block, 1, 1),
                                       params={"kind": kind, "block": block, **params}, **common))

            def block_kernel(kind: str, template: str, blocks: tuple[int, ...], **params: object) -> None:
                for bs in blocks:
                    src = render(template, SIG=_SIG, SIG_TYPES=_SIG_TYPES, BLOCK=bs)
                    add(kind, f"{kind}_b{bs}", src, f"layernorm_{kind}<{bs}>", rows, bs, **params)

            def warp_kernel(kind: str, template: str, warps: tuple[int, ...], **params: object) -> None:
                for w in warps:
                    src = render(template, SIG=_SIG, WARPS=w)
                    add(kind, f"{kind}_w{w}", src, f"layernorm_{kind}", cdiv(rows, w), 32 * w, warps=w, **params)

            block_kernel("two_pass", _TWO_PASS, TWO_PASS_BLOCKS)
            block_kernel("sumsq", _SUMSQ, SUMSQ_BLOCKS)
            block_kernel("welford", _WELFORD, WELFORD_BLOCKS)
            warp_kernel("warp_row", _WARP_ROW, WARP_ROW_WARPS)
            if cols % 4 == 0:
                block_kernel("vec4", _VEC4, VEC4_BLOCKS, vec=4)
                warp_kernel("warp_vec4", _WARP_VEC4, WARP_VEC4_WARPS, vec=4)
    return out
