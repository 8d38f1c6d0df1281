"""Row softmax of a row-major [rows, cols] float32 matrix: y = exp(x - max) / sum.

Variants: three passes over the row by one block (max, sum, normalise, shared
memory trees), online softmax (running max and rescaled sum in one pass, then
the normalising pass; shuffle reductions), the row cached in shared memory (x
read once), and a warp per row (shuffle reductions), scalar and float4.
"""
from __future__ import annotations

import numpy as np

from ._render import count_label, make_sample, normal, render
from .base import Buffer, Problem, Sample, Scalar, cdiv

NAME = "softmax"
BASELINE = "three_pass_b256"
DESCRIPTION = "row softmax of a float32 matrix: three-pass, online, shared-cached, warp-per-row, float4"

COLS = (128, 1024, 4096, 16384)
ELEMENTS = (2 << 20, 16 << 20, 64 << 20)   # 8 MB (L2), 64 MB, 256 MB of x (twice that in traffic)
THREE_PASS_BLOCKS = (64, 128, 256, 512, 1024)
ONLINE_BLOCKS = (128, 256, 1024)
CACHED_BLOCKS = (128, 256, 512)
CACHED_MAX_COLS = 4096                      # 16 KB of static shared memory per block
WARP_ROW_WARPS = (1, 4, 8)
WARP_VEC4_WARPS = (4, 8)
SEED = 7

_SIG = "const float* __restrict__ x, float* __restrict__ y, int rows, int cols"
_SIG_TYPES = "const float* __restrict__, float* __restrict__, int, int"

# -inf without math.h (NVRTC has no host headers)
_NEG_INF = "\n    #define NEG_INF __int_as_float(0xff800000)\n"

_BLOCK_TREE = """
    // shared-memory tree over the block; every thread gets the result
    template <int BLOCK>
    __device__ float block_max(float v, float* sh)
    {
        sh[threadIdx.x] = v;
        __syncthreads();
        for (int s = BLOCK / 2; s > 0; s >>= 1) {
            if (threadIdx.x < s) sh[threadIdx.x] = fmaxf(sh[threadIdx.x], sh[threadIdx.x + s]);
            __syncthreads();
        }
        float r = sh[0];
        __syncthreads();   // sh is reused by the next reduction
        return r;
    }

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
        __syncthreads();
        return r;
    }
"""

_THREE_PASS = _NEG_INF + _BLOCK_TREE + """
    template <int BLOCK>
    __global__ void softmax_three_pass($SIG)
    {
        __shared__ float sh[BLOCK];
        int row = blockIdx.x;
        if (row >= rows) return;   // uniform over the block
        const float* xr = x + (size_t)row * cols;
        float* yr = y + (size_t)row * cols;
        float m = NEG_INF;
        for (int c = threadIdx.x; c < cols; c += BLOCK) m = fmaxf(m, xr[c]);
        m = block_max<BLOCK>(m, sh);
        float s = 0.0f;
        for (int c = threadIdx.x; c < cols; c += BLOCK) s += expf(xr[c] - m);
        s = block_sum<BLOCK>(s, sh);
        float inv = 1.0f / s;
        for (int c = threadIdx.x; c < cols; c += BLOCK) yr[c] = expf(xr[c] - m) * inv;
    }
    template __global__ void softmax_three_pass<$BLOCK>($SIG_TYPES);
"""

_CACHED = _NEG_INF + _BLOCK_TREE + """
    constexpr int COLS = $COLS;   // the row lives in shared memory: x is read once
    template <int BLOCK>
    __global__ void softmax_cached($SIG)
    {
        __shared__ float sh[BLOCK];
        __shared__ float buf[COLS];
        int row = blockIdx.x;
        if (row >= rows || cols > COLS) return;
        const float* xr = x + (size_t)row * cols;
        float* yr = y + (size_t)row * cols;
        float m = NEG_INF;
        for (int c = threadIdx.x; c < cols; c += BLOCK) {
            float v = xr[c];
            buf[c] = v;
            m = fmaxf(m, v);
        }
        m = block_max<BLOCK>(m, sh);
        float s = 0.0f;
        for (int c = threadIdx.x; c < cols; c += BLOCK) {
            float e = expf(buf[c] - m);
            buf[c] = e;   // each thread rereads only the elements it wrote
            s += e;
        }
        s = block_sum<BLOCK>(s, sh);
        float inv = 1.0f / s;
        for (int c = threadIdx.x; c < cols; c += BLOCK) yr[c] = buf[c] * inv;
    }
    template __global__ void softmax_cached<$BLOCK>($SIG_TYPES);
"""

# (m, s): running max and sum of exp(x - m). An empty state is (-inf, 0).
_ONLINE = _NEG_INF + """
    __device__ __forceinline__ void combine(float& m, float& s, float m2, float s2)
    {
        float mm = fmaxf(m, m2);
        float a = (m == NEG_INF) ? 0.0f : s * expf(m - mm);
        float b = (m2 == NEG_INF) ? 0.0f : s2 * expf(m2 - mm);
        m = mm;
        s = a + b;
    }

    template <int BLOCK>
    __global__ void softmax_online($SIG)
    {
        __shared__ float wm[BLOCK / 32], ws[BLOCK / 32];
        __shared__ float row_m, row_s;
        int row = blockIdx.x;
        if (row >= rows) return;
        const float* xr = x + (size_t)row * cols;
        float* yr = y + (size_t)row * cols;
        float m = NEG_INF, s = 0.0f;
        for (int c = threadIdx.x; c < cols; c += BLOCK) {
            float v = xr[c];
            if (v > m) {
                s = s * expf(m - v) + 1.0f;
                m = v;
            } else {
                s += expf(v - m);
            }
        }
    #pragma unroll
        for (int off = 16; off > 0; off >>= 1)
            combine(m, s, __shfl_xor_sync(0xffffffffu, m, off), __shfl_xor_sync(0xffffffffu, s, off));
        int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
        if (lane == 0) { wm[warp] = m; ws[warp] = s; }
        __syncthreads();
        if (warp == 0) {
            m = (lane < BLOCK / 32) ? wm[lane] : NEG_INF;
            s = (lane < BLOCK / 32) ? ws[lane] : 0.0f;
    #pragma unroll
            for (int off = 16; off > 0; off >>= 1)
                combine(m, s, __shfl_xor_sync(0xffffffffu, m, off), __shfl_xor_sync(0xffffffffu, s, off));
            if (lane == 0) { row_m = m; row_s = s; }
        }
        __syncthreads();
        m = row_m;
        float inv = 1.0f / row_s;
        for (int c = threadIdx.x; c < cols; c += BLOCK) yr[c] = expf(xr[c] - m) * inv;
    }
    template __global__ void softmax_online<$BLOCK>($SIG_TYPES);
"""

_WARP_REDUCE = """
    __device__ __forceinline__ float warp_max(float v)
    {
    #pragma unroll
        for (int off = 16; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off));
        return v;
    }
    __device__ __forceinline__ float warp_sum(float v)
    {
    #pragma unroll
        for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
        return v;
    }
"""

_WARP_ROW = _NEG_INF + _WARP_REDUCE + """
    #define WARPS $WARPS
    extern "C" __global__ void softmax_warp_row($SIG)
    {
        int lane = threadIdx.x & 31;
        int row = blockIdx.x * WARPS + (threadIdx.x >> 5);
        if (row >= rows) return;   // uniform over the warp; no block barrier below
        const float* xr = x + (size_t)row * cols;
        float* yr = y + (size_t)row * cols;
        float m = NEG_INF;
        for (int c = lane; c < cols; c += 32) m = fmaxf(m, xr[c]);
        m = warp_max(m);
        float s = 0.0f;
        for (int c = lane; c < cols; c += 32) s += expf(xr[c] - m);
        float inv = 1.0f / warp_sum(s);
        for (int c = lane; c < cols; c += 32) yr[c] = expf(xr[c] - m) * inv;
    }
"""

_WARP_VEC4 = _NEG_INF + _WARP_REDUCE + """
    #define WARPS $WARPS
    // needs cols % 4 == 0 (rows stay 16-byte aligned)
    extern "C" __global__ void softmax_warp_vec4($SIG)
    {
        int lane = threadIdx.x & 31;
        int row = blockIdx.x * WARPS + (threadIdx.x >> 5);
        if (row >= rows) return;
        int c4 = cols / 4;
        const float4* xr = reinterpret_cast<const float4*>(x + (size_t)row * cols);
        float4* yr = reinterpret_cast<float4*>(y + (size_t)row * cols);
        float m = NEG_INF;
        for (int c = lane; c < c4; c += 32) {
            float4 v = xr[c];
            m = fmaxf(m, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)));
        }
        m = warp_max(m);
        float s = 0.0f;
        for (int c = lane; c < c4; c += 32) {
            float4 v = xr[c];
            s += expf(v.x - m) + expf(v.y - m) + expf(v.z - m) + expf(v.w - m);
        }
        float inv = 1.0f / warp_sum(s);
        for (int c = lane; c < c4; c += 32) {
            float4 v = xr[c];
            yr[c] = make_float4(expf(v.x - m) * inv, expf(v.y - m) * inv, expf(v.z - m) * inv, expf(v.w - m) * inv);
        }
    }
"""


def problem(rows: int, cols: int, seed: int = SEED) -> Problem:
    rng = np.random.default_rng(seed)
    x = normal(rng, rows * cols, scale=2.0)
    x2 = x.reshape(rows, cols)
    e = x2.astype(np.float64)
    e -= x2.max(axis=1, keepdims=True)
    np.exp(e, out=e)
    e /= e.sum(axis=1, keepdims=True)
    return Problem(inputs={"x": x}, expected={"y": e.astype(np.float32).ravel()})


def samples() -> list[Sample]:
    out: list[Sample] = []
    for cols in COLS:
        for total in ELEMENTS:
            rows = total // cols
            kw = {"rows": rows, "cols": cols, "seed": SEED}
            args = (Buffer("x", "float32", rows * cols), Buffer("y", "float32", rows * cols, "out"),
                    Scalar("rows", "int32", rows), Scalar("cols", "int32", cols))
            common = dict(size=f"r{count_label(rows)}_c{count_label(cols)}", args=args, problem_kwargs=kw,
                          bytes=8 * rows * cols, flops=5 * rows * cols, atol=1e-8, rtol=1e-4)

            def add(kind: str, variant: str, src: str, kernel: str, grid: int, block: int, **params: object) -> None:
                out.append(make_sample(NAME, BASELINE, variant=variant, source=src, kernel=kernel,
                                       grid=(grid, 1, 1), block=(block, 1, 1),
                                       params={"kind": kind, "block": block, **params}, **common))

            for bs in THREE_PASS_BLOCKS:
                src = render(_THREE_PASS, SIG=_SIG, SIG_TYPES=_SIG_TYPES, BLOCK=bs)
                add("three_pass", f"three_pass_b{bs}", src, f"softmax_three_pass<{bs}>", rows, bs)
            for bs in ONLINE_BLOCKS:
                src = render(_ONLINE, SIG=_SIG, SIG_TYPES=_SIG_TYPES, BLOCK=bs)
                add("online", f"online_b{bs}", src, f"softmax_online<{bs}>", rows, bs)
            if cols <= CACHED_MAX_COLS:
                for bs in CACHED_BLOCKS:
                    src = render(_CACHED, SIG=_SIG, SIG_TYPES=_SIG_TYPES, BLOCK=bs, COLS=cols)
                    add("cached", f"cached_b{bs}", src, f"softmax_cached<{bs}>", rows, bs, cached_cols=cols)
            for w in WARP_ROW_WARPS:
                src = render(_WARP_ROW, SIG=_SIG, WARPS=w)
                add("warp_row", f"warp_row_w{w}", src, "softmax_warp_row", cdiv(rows, w), 32 * w, warps=w)
            if cols % 4 == 0:
                for w in WARP_VEC4_WARPS:
                    src = render(_WARP_VEC4, SIG=_SIG, WARPS=w)
                    add("warp_vec4", f"warp_vec4_w{w}", src, "softmax_warp_vec4", cdiv(rows, w), 32 * w,
                        warps=w, vec=4)
    return out
