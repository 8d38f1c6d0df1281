"""Strided copy: dst[i] = src[i * STRIDE], for elements of 4, 8 and 16 bytes.

The stride is a compile-time constant (what the coalescing model must read off
the source); the task is (stride, element type, n), so stride is part of the
size label. Only the strided elements of src carry random values: the gaps are
filled with a constant outside their range, so a kernel that reads a wrong
element fails the check, and a 1 GB span builds in well under a second.
"""
from __future__ import annotations

import numpy as np

from ._render import SM_COUNT, THREADS_PER_SM, count_label, make_sample, render, uniform
from .base import Buffer, Problem, Sample, Scalar, cdiv

NAME = "strided_copy"
BASELINE = "direct_b256"
DESCRIPTION = "dst[i] = src[i*STRIDE] for float/float2/float4 elements: a stride sweep for coalescing"

STRIDES = {
    1: (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64, 256),   # float
    2: (1, 2, 4, 8, 16, 32),                          # float2
    4: (1, 2, 4, 8, 16, 32),                          # float4
}
# (bytes of dst, most bytes the src span may take): L2-resident, ~128 MB, DRAM-bound
SIZE_CLASSES = ((4 << 20, 32 << 20), (32 << 20, 256 << 20), (128 << 20, 1 << 30))
BLOCKS = (32, 256, 1024)
GRID_STRIDE_BLOCK = 256
SEED = 2
GAP_FILL = 1.0e4   # never equal to a copied value (those lie in [-1, 1))

_DIRECT = """
    #define STRIDE $STRIDE
    typedef $ET elem_t;
    extern "C" __global__ void strided_copy(const elem_t* __restrict__ src, elem_t* __restrict__ dst, int n)
    {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) dst[i] = src[(size_t)i * STRIDE];
    }
"""

_GRID_STRIDE = """
    #define STRIDE $STRIDE
    typedef $ET elem_t;
    extern "C" __global__ void strided_copy_gs(const elem_t* __restrict__ src, elem_t* __restrict__ dst, int n)
    {
        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
            dst[i] = src[(size_t)i * STRIDE];
    }
"""

_ETYPE = {1: "float", 2: "float2", 4: "float4"}


def problem(n: int, stride: int, vec: int, seed: int = SEED) -> Problem:
    """n elements of `vec` floats each, read every `stride` elements from src."""
    rng = np.random.default_rng(seed)
    src = np.full(n * stride * vec, GAP_FILL, dtype=np.float32)
    view = src.reshape(n, stride, vec)
    vals = uniform(rng, n * vec).reshape(n, vec)
    view[:, 0, :] = vals
    return Problem(inputs={"src": src}, expected={"dst": vals.ravel()})


def sizes_for(stride: int, vec: int) -> list[int]:
    """Element counts of the three size classes for this stride and element type."""
    esize = 4 * vec
    return [min(dst_bytes // esize, span // (stride * esize)) for dst_bytes, span in SIZE_CLASSES]


def samples() -> list[Sample]:
    out: list[Sample] = []
    for vec, strides in STRIDES.items():
        etype = _ETYPE[vec]
        for stride in strides:
            direct = render(_DIRECT, STRIDE=stride, ET=etype)
            gs = render(_GRID_STRIDE, STRIDE=stride, ET=etype)
            for n in sizes_for(stride, vec):
                size = f"s{stride}_{etype}_n{count_label(n)}"
                kw = {"n": n, "stride": stride, "vec": vec, "seed": SEED}
                args = (
                    Buffer("src", "float32", n * stride * vec),
                    Buffer("dst", "float32", n * vec, "out"),
                    Scalar("n", "int32", n),
                )
                common = dict(size=size, args=args, problem_kwargs=kw,
                              bytes=2 * n * 4 * vec, flops=0, atol=0.0, rtol=0.0)
                base_params = {"stride": stride, "elem_bytes": 4 * vec}
                for bs in BLOCKS:
                    out.append(make_sample(
                        NAME, BASELINE, variant=f"direct_b{bs}", source=direct, kernel="strided_copy",
                        grid=(cdiv(n, bs), 1, 1), block=(bs, 1, 1),
                        params={"kind": "direct", "block": bs, **base_params}, **common))
                bs = GRID_STRIDE_BLOCK
                grid = min(cdiv(n, bs), SM_COUNT * THREADS_PER_SM // bs)
                out.append(make_sample(
                    NAME, BASELINE, variant=f"grid_stride_b{bs}", source=gs, kernel="strided_copy_gs",
                    grid=(grid, 1, 1), block=(bs, 1, 1),
                    params={"kind": "grid_stride", "block": bs, "grid_blocks": grid, **base_params}, **common))
    return out
