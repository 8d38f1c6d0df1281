"""Sum reduction of n float32 into one float (a `zero` output, one atomicAdd per block).

The classic ladder: a global atomic per element, interleaved addressing with a
divergent branch (tid % (2*s) == 0), interleaved addressing without divergence
(bank conflicts instead), sequential addressing, first add during load, warp
shuffles, and grid-stride loops (scalar and float4) feeding warp shuffles.
Block sizes are template parameters with a visible explicit instantiation.
"""
from __future__ import annotations

import textwrap

import numpy as np

from ._render import F32_EPS, SM_COUNT, THREADS_PER_SM, count_label, make_sample, render, uniform
from .base import Buffer, Problem, Sample, Scalar, cdiv

NAME = "reduction"
BASELINE = "interleaved_divergent_b256"
DESCRIPTION = "sum of n float32: atomics, shared-memory trees (divergent, strided, sequential), shuffles, grid-stride"

SIZES = (1 << 20, 4 << 20, 32 << 20, 128 << 20)   # 4 MB .. 512 MB
ATOMIC_MAX_N = 4 << 20   # one same-address atomic per element serialises: keep those launches short
TREE_BLOCKS = (64, 128, 256, 512, 1024)
SHFL_BLOCKS = (32, 64, 128, 256, 512, 1024)
GRID_STRIDE_BLOCKS = (128, 256, 512, 1024)
SEED = 5

_SIG = "const float* __restrict__ x, float* __restrict__ out, int n"
_SIG_TYPES = "const float* __restrict__, float* __restrict__, int"

_ATOMIC = """
    extern "C" __global__ void reduce_atomic($SIG)
    {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) atomicAdd(out, x[i]);
    }
"""

_LOAD_ONE = """
        __shared__ float sdata[BLOCK];
        unsigned tid = threadIdx.x;
        unsigned i = blockIdx.x * BLOCK + tid;
        sdata[tid] = (i < (unsigned)n) ? x[i] : 0.0f;
        __syncthreads();
"""

_TREES = {
    "interleaved_divergent": """
        for (unsigned s = 1; s < BLOCK; s *= 2) {
            if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];
            __syncthreads();
        }
    """,
    "interleaved_strided": """
        for (unsigned s = 1; s < BLOCK; s *= 2) {
            unsigned index = 2 * s * tid;
            if (index < BLOCK) sdata[index] += sdata[index + s];
            __syncthreads();
        }
    """,
    "sequential": """
        for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
            if (tid < s) sdata[tid] += sdata[tid + s];
            __syncthreads();
        }
    """,
}

_TREE_KERNEL = """
    template <int BLOCK>
    __global__ void reduce_$KIND($SIG)
    {
    $LOAD
    $TREE
        if (tid == 0) atomicAdd(out, sdata[0]);
    }
    template __global__ void reduce_$KIND<$BLOCK>($SIG_TYPES);
"""

# First add during the load: each block covers 2*BLOCK elements.
_ADD2 = """
    template <int BLOCK>
    __global__ void reduce_add2($SIG)
    {
        __shared__ float sdata[BLOCK];
        unsigned tid = threadIdx.x;
        unsigned i = blockIdx.x * (BLOCK * 2) + tid;
        float v = (i < (unsigned)n) ? x[i] : 0.0f;
        if (i + BLOCK < (unsigned)n) v += x[i + BLOCK];
        sdata[tid] = v;
        __syncthreads();
        for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
            if (tid < s) sdata[tid] += sdata[tid + s];
            __syncthreads();
        }
        if (tid == 0) atomicAdd(out, sdata[0]);
    }
    template __global__ void reduce_add2<$BLOCK>($SIG_TYPES);
"""

_WARP_SUM = """
    __device__ __forceinline__ float warp_sum(float v)
    {
    #pragma unroll
        for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
        return v;
    }

    // every thread passes its value; thread 0 gets the block's sum
    template <int BLOCK>
    __device__ __forceinline__ float block_sum(float v)
    {
        __shared__ float warp_sums[BLOCK / 32];
        int lane = threadIdx.x & 31;
        int warp = threadIdx.x >> 5;
        v = warp_sum(v);
        if (lane == 0) warp_sums[warp] = v;
        __syncthreads();
        v = 0.0f;
        if (warp == 0) {
            v = (lane < BLOCK / 32) ? warp_sums[lane] : 0.0f;
            v = warp_sum(v);
        }
        return v;
    }
"""

_SHFL = _WARP_SUM + """
    template <int BLOCK>
    __global__ void reduce_shfl($SIG)
    {
        int i = blockIdx.x * BLOCK + threadIdx.x;
        float v = (i < n) ? x[i] : 0.0f;
        v = block_sum<BLOCK>(v);
        if (threadIdx.x == 0) atomicAdd(out, v);
    }
    template __global__ void reduce_shfl<$BLOCK>($SIG_TYPES);
"""

_GRID_STRIDE = _WARP_SUM + """
    template <int BLOCK>
    __global__ void reduce_grid_stride($SIG)
    {
        float v = 0.0f;
        for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += BLOCK * gridDim.x) v += x[i];
        v = block_sum<BLOCK>(v);
        if (threadIdx.x == 0) atomicAdd(out, v);
    }
    template __global__ void reduce_grid_stride<$BLOCK>($SIG_TYPES);
"""

_GRID_STRIDE_VEC4 = _WARP_SUM + """
    template <int BLOCK>
    __global__ void reduce_grid_stride_vec4($SIG)
    {
        int tid = blockIdx.x * BLOCK + threadIdx.x;
        int n4 = n / 4;
        const float4* x4 = reinterpret_cast<const float4*>(x);
        float v = 0.0f;
        for (int j = tid; j < n4; j += BLOCK * gridDim.x) {
            float4 q = x4[j];
            v += (q.x + q.y) + (q.z + q.w);
        }
        if (n4 * 4 + tid < n) v += x[n4 * 4 + tid];   // the n % 4 trailing elements
        v = block_sum<BLOCK>(v);
        if (threadIdx.x == 0) atomicAdd(out, v);
    }
    template __global__ void reduce_grid_stride_vec4<$BLOCK>($SIG_TYPES);
"""


def problem(n: int, seed: int = SEED) -> Problem:
    rng = np.random.default_rng(seed)
    x = uniform(rng, n)
    total = x.sum(dtype=np.float64)
    return Problem(inputs={"x": x}, expected={"out": np.array([total], dtype=np.float32)})


def tolerance(n: int) -> tuple[float, float]:
    """(atol, rtol) for a float32 sum of n values in [-1, 1) in any order.

    The float32 rounding error of such a sum grows like eps * n at worst for
    a long serial chain (one atomic per element); a wrong index moves the sum
    by about sqrt(n / 3), which stays far above eps * n for n up to 2**30.
    """
    return F32_EPS * n + 1e-4, 1e-5


def _snippet(code: str) -> str:
    """A body fragment re-indented to sit inside a kernel."""
    return textwrap.indent(textwrap.dedent(code).strip("\n"), "    ")


def _template_source(template: str, kind: str, block: int) -> tuple[str, str]:
    src = render(template, KIND=kind, BLOCK=block, SIG=_SIG, SIG_TYPES=_SIG_TYPES,
                 LOAD=_snippet(_LOAD_ONE), TREE=_snippet(_TREES.get(kind, "")))
    return src, f"reduce_{kind}<{block}>"


def samples() -> list[Sample]:
    atomic_src = render(_ATOMIC, SIG=_SIG)
    out: list[Sample] = []
    for n in SIZES:
        atol, rtol = tolerance(n)
        kw = {"n": n, "seed": SEED}
        args = (Buffer("x", "float32", n), Buffer("out", "float32", 1, "zero"), Scalar("n", "int32", n))
        common = dict(size=f"n{count_label(n)}", args=args, problem_kwargs=kw,
                      bytes=4 * n + 4, flops=n, atol=atol, rtol=rtol)

        def add(kind: str, variant: str, src: str, kernel: str, grid: int, block: int, **params: object) -> None:
            out.append(make_sample(NAME, BASELINE, variant=variant, source=src, kernel=kernel,
                                   grid=(grid, 1, 1), block=(block, 1, 1),
                                   params={"kind": kind, "block": block, **params}, **common))

        if n <= ATOMIC_MAX_N:
            for bs in (256, 1024):
                add("atomic", f"atomic_b{bs}", atomic_src, "reduce_atomic", cdiv(n, bs), bs)
        for kind in _TREES:
            for bs in TREE_BLOCKS:
                src, kernel = _template_source(_TREE_KERNEL, kind, bs)
                add(kind, f"{kind}_b{bs}", src, kernel, cdiv(n, bs), bs)
        for bs in TREE_BLOCKS:
            src, kernel = _template_source(_ADD2, "add2", bs)
            add("add2", f"add2_b{bs}", src, kernel, cdiv(n, 2 * bs), bs, per_thread=2)
        for bs in SHFL_BLOCKS:
            src, kernel = _template_source(_SHFL, "shfl", bs)
            add("shfl", f"shfl_b{bs}", src, kernel, cdiv(n, bs), bs)
        for bs in GRID_STRIDE_BLOCKS:
            # one block per SM, or as many as fit (full occupancy by threads)
            for per_sm in sorted({1, THREADS_PER_SM // bs}):
                grid = SM_COUNT * per_sm
                src, kernel = _template_source(_GRID_STRIDE, "grid_stride", bs)
                add("grid_stride", f"grid_stride_b{bs}_g{grid}", src, kernel, grid, bs, grid_blocks=grid)
            grid = SM_COUNT * (THREADS_PER_SM // bs)
            src, kernel = _template_source(_GRID_STRIDE_VEC4, "grid_stride_vec4", bs)
            add("grid_stride_vec4", f"grid_stride_vec4_b{bs}_g{grid}", src, kernel, grid, bs,
                grid_blocks=grid, vec=4)
    return out
