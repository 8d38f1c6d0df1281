"""Matrix-vector product y = A x, A [rows, cols] float32.

Row-major tasks: thread per row (a warp's loads hit 32 rows: uncoalesced; x read
directly or staged in shared memory), warp
per row with a shuffle reduction (scalar or float4 loads), block per row with a
shared-memory + shuffle reduction (scalar or float4). Column-major tasks (the
input is stored as At[cols][rows]; layout is part of the task): thread per row,
now coalesced, reading x directly or staging chunks of x in shared memory.
"""
from __future__ import annotations

import numpy as np

from ._render import chunks, make_sample, render, uniform
from .base import Buffer, Problem, Sample, Scalar, cdiv

NAME = "matvec"
BASELINE = "thread_row_b256"
DESCRIPTION = "float32 y = A x: thread/warp/block per row, float4 loads, row- vs column-major A"

# (rows, cols): 16 MB (L2), 128 MB, 256 MB (wide), 512 MB (square-ish and tall)
ROW_MAJOR_SIZES = ((2048, 2048), (8192, 4096), (4096, 16384), (16384, 8192), (65536, 2048))
COL_MAJOR_SIZES = ((2048, 2048), (8192, 4096), (16384, 8192))
BLOCKS = (64, 128, 256, 512, 1024)
ROW_KINDS = ("thread_row", "thread_row_xshared", "warp_row", "warp_row_float4", "block_row", "block_row_float4")
COL_KINDS = ("thread_row", "thread_row_xshared")
SEED = 17

_THREAD_ROW = """
    #define BLOCK $B
    extern "C" __global__ void __launch_bounds__(BLOCK)
    matvec_thread_row(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                      int rows, int cols)
    {
        int r = blockIdx.x * BLOCK + threadIdx.x;
        if (r >= rows) return;
        float acc = 0.0f;
        for (int c = 0; c < cols; ++c) acc += A[(size_t)r * cols + c] * x[c];
        y[r] = acc;
    }
"""

_WARP_ROW = """
    #define BLOCK $B
    #define WARPS (BLOCK / 32)
    // One warp per row: lanes stride along the row (coalesced), then a shuffle tree.
    extern "C" __global__ void __launch_bounds__(BLOCK)
    matvec_warp_row(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                    int rows, int cols)
    {
        int r = blockIdx.x * WARPS + (threadIdx.x >> 5);
        int lane = threadIdx.x & 31;
        if (r >= rows) return;   // whole warps leave together
        float acc = 0.0f;
        for (int c = lane; c < cols; c += 32) acc += A[(size_t)r * cols + c] * x[c];
    #pragma unroll
        for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
        if (lane == 0) y[r] = acc;
    }
"""

_WARP_ROW_F4 = """
    #define BLOCK $B
    #define WARPS (BLOCK / 32)
    // As warp_row with 16-byte loads; needs cols % 4 == 0 (every row then starts 16-byte aligned).
    extern "C" __global__ void __launch_bounds__(BLOCK)
    matvec_warp_row_float4(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                           int rows, int cols)
    {
        int r = blockIdx.x * WARPS + (threadIdx.x >> 5);
        int lane = threadIdx.x & 31;
        if (r >= rows) return;
        const float4* a4 = reinterpret_cast<const float4*>(A + (size_t)r * cols);
        const float4* x4 = reinterpret_cast<const float4*>(x);
        float acc = 0.0f;
        for (int c = lane; c < cols / 4; c += 32) {
            float4 a = a4[c];
            float4 b = x4[c];
            acc += a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
        }
    #pragma unroll
        for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
        if (lane == 0) y[r] = acc;
    }
"""

_BLOCK_ROW = """
    #define BLOCK $B
    #define WARPS (BLOCK / 32)
    // One block per row: threads stride along the row, shuffles reduce each warp,
    // the first warp reduces the warp sums.
    extern "C" __global__ void __launch_bounds__(BLOCK)
    matvec_block_row$SUFFIX(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                     int rows, int cols)
    {
        __shared__ float partial[WARPS];
        int r = blockIdx.x;
        int lane = threadIdx.x & 31;
        int warp = threadIdx.x >> 5;
        float acc = 0.0f;
    $LOOP
    #pragma unroll
        for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
        if (lane == 0) partial[warp] = acc;
        __syncthreads();
        if (warp == 0) {
            acc = lane < WARPS ? partial[lane] : 0.0f;
    #pragma unroll
            for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
            if (lane == 0) y[r] = acc;
        }
    }
"""

_BLOCK_LOOP = "for (int c = threadIdx.x; c < cols; c += BLOCK) acc += A[(size_t)r * cols + c] * x[c];"
_BLOCK_LOOP_F4 = """// 16-byte loads; needs cols % 4 == 0
const float4* a4 = reinterpret_cast<const float4*>(A + (size_t)r * cols);
const float4* x4 = reinterpret_cast<const float4*>(x);
for (int c = threadIdx.x; c < cols / 4; c += BLOCK) {
    float4 a = a4[c];
    float4 b = x4[c];
    acc += a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}"""

_CM_THREAD_ROW = """
    #define BLOCK $B
    // A is stored column-major (At[c][r]): at each c a warp reads 32 consecutive floats.
    extern "C" __global__ void __launch_bounds__(BLOCK)
    matvec_cm_thread_row(const float* __restrict__ At, const float* __restrict__ x, float* __restrict__ y,
                         int rows, int cols)
    {
        int r = blockIdx.x * BLOCK + threadIdx.x;
        if (r >= rows) return;
        float acc = 0.0f;
        for (int c = 0; c < cols; ++c) acc += At[(size_t)c * rows + r] * x[c];
        y[r] = acc;
    }
"""

_XSHARED = """
    #define BLOCK $B
    // Thread per row; the block stages BLOCK entries of x at a time in shared memory.
    extern "C" __global__ void __launch_bounds__(BLOCK)
    matvec_$NAME(const float* __restrict__ $MAT, const float* __restrict__ x, float* __restrict__ y,
                 int rows, int cols)
    {
        __shared__ float xs[BLOCK];
        int r = blockIdx.x * BLOCK + threadIdx.x;
        float acc = 0.0f;
        for (int c0 = 0; c0 < cols; c0 += BLOCK) {
            xs[threadIdx.x] = c0 + threadIdx.x < cols ? x[c0 + threadIdx.x] : 0.0f;
            __syncthreads();
            int m = min(BLOCK, cols - c0);
            if (r < rows)
                for (int j = 0; j < m; ++j) acc += $LOAD * xs[j];
            __syncthreads();
        }
        if (r < rows) y[r] = acc;
    }
"""


def problem(rows: int, cols: int, layout: str = "row", seed: int = SEED) -> Problem:
    if layout not in ("row", "col"):
        raise ValueError(f"unknown layout {layout!r}; expected 'row' or 'col'")
    rng = np.random.default_rng(seed)
    x = uniform(rng, cols)
    # The matrix is drawn in its stored order, so the column-major task holds the same
    # kind of random matrix without a transpose.
    stored = uniform(rng, rows * cols)
    x64 = x.astype(np.float64)
    y = np.empty(rows, dtype=np.float32)
    if layout == "row":
        a = stored.reshape(rows, cols)
        for lo, hi in chunks(rows, max(1, (1 << 21) // cols)):
            y[lo:hi] = a[lo:hi].astype(np.float64) @ x64
        return Problem(inputs={"A": stored, "x": x}, expected={"y": y})
    at = stored.reshape(cols, rows)
    acc = np.zeros(rows, dtype=np.float64)
    for lo, hi in chunks(cols, max(1, (1 << 21) // rows)):
        acc += x64[lo:hi] @ at[lo:hi].astype(np.float64)
    y[:] = acc
    return Problem(inputs={"At": stored, "x": x}, expected={"y": y})


def source(kind: str, layout: str, block: int) -> tuple[str, str]:
    """(CUDA source, kernel name) of one variant."""
    if layout == "col":
        if kind == "thread_row":
            return render(_CM_THREAD_ROW, B=block), "matvec_cm_thread_row"
        return (render(_XSHARED, B=block, NAME="cm_thread_row_xshared", MAT="At",
                       LOAD="At[(size_t)(c0 + j) * rows + r]"), "matvec_cm_thread_row_xshared")
    if kind == "thread_row":
        return render(_THREAD_ROW, B=block), "matvec_thread_row"
    if kind == "thread_row_xshared":
        return (render(_XSHARED, B=block, NAME="thread_row_xshared", MAT="A",
                       LOAD="A[(size_t)r * cols + c0 + j]"), "matvec_thread_row_xshared")
    if kind == "warp_row":
        return render(_WARP_ROW, B=block), "matvec_warp_row"
    if kind == "warp_row_float4":
        return render(_WARP_ROW_F4, B=block), "matvec_warp_row_float4"
    f4 = kind == "block_row_float4"
    suffix = "_float4" if f4 else ""
    loop = (_BLOCK_LOOP_F4 if f4 else _BLOCK_LOOP).replace("\n", "\n    ")
    return render(_BLOCK_ROW, B=block, SUFFIX=suffix, LOOP="    " + loop), f"matvec_block_row{suffix}"


def _grid(kind: str, rows: int, block: int) -> int:
    if kind.startswith("warp_row"):
        return cdiv(rows, block // 32)
    if kind.startswith("block_row"):
        return rows
    return cdiv(rows, block)


def task_samples(rows: int, cols: int, layout: str) -> list[Sample]:
    """Every variant of one task (the float4 kinds need cols % 4 == 0)."""
    size = f"r{rows}c{cols}" + ("_colmajor" if layout == "col" else "")
    kw = {"rows": rows, "cols": cols, "layout": layout, "seed": SEED}
    args = (Buffer("A" if layout == "row" else "At", "float32", rows * cols), Buffer("x", "float32", cols),
            Buffer("y", "float32", rows, "out"), Scalar("rows", "int32", rows), Scalar("cols", "int32", cols))
    # y_r sums cols products of two U(-1,1) values: |y| ~ sqrt(cols)/3, and float32
    # rounding in any summation order stays well inside this
    atol = float(4e-5 * np.sqrt(cols))
    out = []
    for kind in (ROW_KINDS if layout == "row" else COL_KINDS):
        if kind.endswith("float4") and cols % 4:
            continue
        for bs in BLOCKS:
            src, kernel = source(kind, layout, bs)
            out.append(make_sample(
                NAME, BASELINE, variant=f"{kind}_b{bs}", size=size, source=src, kernel=kernel,
                grid=(_grid(kind, rows, bs), 1, 1), block=(bs, 1, 1), args=args, problem_kwargs=kw,
                params={"kind": kind, "block": bs, "layout": layout},
                bytes=4 * (rows * cols + cols + rows), flops=2 * rows * cols,
                atol=atol, rtol=1e-4,
            ))
    return out


def samples() -> list[Sample]:
    tasks = [(r, c, "row") for r, c in ROW_MAJOR_SIZES] + [(r, c, "col") for r, c in COL_MAJOR_SIZES]
    return [s for rows, cols, layout in tasks for s in task_samples(rows, cols, layout)]
