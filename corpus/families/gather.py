"""Gather: out[i] = src[idx[i]] with int32 indices, for float and float4 elements.

The index pattern is part of the task (it is data the kernel cannot see):
a random permutation, sorted random indices (with repeats), and permutations
shuffled only within blocks of 32 or 4096 consecutive elements.
"""
from __future__ import annotations

import numpy as np

from ._render import SM_COUNT, THREADS_PER_SM, count_label, make_sample, render, uniform
from .base import Buffer, Problem, Sample, Scalar, cdiv

NAME = "gather"
BASELINE = "direct_b256"
DESCRIPTION = "out[i] = src[idx[i]] (int32 idx: random, sorted, locally shuffled) for float and float4"

SIZES = (1 << 20, 4 << 20, 16 << 20)
PATTERNS = ("random", "sorted", "local32", "local4096")
VECS = (1, 4)
BLOCKS = (32, 64, 128, 256, 512, 1024)
SEED = 3

_DIRECT = """
    typedef $ET elem_t;
    extern "C" __global__ void gather(const elem_t* __restrict__ src, const int* __restrict__ idx,
                                      elem_t* __restrict__ out, int n)
    {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) out[i] = src[idx[i]];
    }
"""

_GRID_STRIDE = """
    typedef $ET elem_t;
    extern "C" __global__ void gather_gs(const elem_t* __restrict__ src, const int* __restrict__ idx,
                                         elem_t* __restrict__ out, int n)
    {
        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
            out[i] = src[idx[i]];
    }
"""

# All index loads first, then all dependent loads: four gathers in flight per thread.
_ILP = """
    typedef $ET elem_t;
    constexpr int ILP = 4;
    extern "C" __global__ void gather_ilp4(const elem_t* __restrict__ src, const int* __restrict__ idx,
                                           elem_t* __restrict__ out, int n)
    {
        int base = blockIdx.x * blockDim.x * ILP + threadIdx.x;
        int j[ILP];
    #pragma unroll
        for (int k = 0; k < ILP; ++k) {
            int i = base + k * blockDim.x;
            j[k] = (i < n) ? idx[i] : 0;
        }
    #pragma unroll
        for (int k = 0; k < ILP; ++k) {
            int i = base + k * blockDim.x;
            if (i < n) out[i] = src[j[k]];
        }
    }
"""

_ETYPE = {1: "float", 4: "float4"}


def make_indices(rng: np.random.Generator, n: int, pattern: str) -> np.ndarray:
    if pattern == "random":
        return rng.permutation(n).astype(np.int32)
    if pattern == "sorted":
        return np.sort(rng.integers(0, n, size=n, dtype=np.int32))
    if pattern.startswith("local"):
        w = int(pattern[len("local"):])
        if n % w:
            raise ValueError(f"gather: n={n} is not a multiple of the shuffle window {w}")
        rows = np.arange(n, dtype=np.int32).reshape(n // w, w)
        return rng.permuted(rows, axis=1).ravel()
    raise ValueError(f"gather: unknown index pattern {pattern!r}")


def problem(n: int, vec: int, pattern: str, seed: int = SEED) -> Problem:
    rng = np.random.default_rng(seed)
    src = uniform(rng, n * vec)
    idx = make_indices(rng, n, pattern)
    expected = src.reshape(n, vec)[idx].ravel()
    return Problem(inputs={"src": src, "idx": idx}, expected={"out": expected})


def samples() -> list[Sample]:
    out: list[Sample] = []
    for vec in VECS:
        et = _ETYPE[vec]
        direct = render(_DIRECT, ET=et)
        gs = render(_GRID_STRIDE, ET=et)
        ilp = render(_ILP, ET=et)
        for pattern in PATTERNS:
            for n in SIZES:
                size = f"{pattern}_{et}_n{count_label(n)}"
                kw = {"n": n, "vec": vec, "pattern": pattern, "seed": SEED}
                args = (
                    Buffer("src", "float32", n * vec), Buffer("idx", "int32", n),
                    Buffer("out", "float32", n * vec, "out"), Scalar("n", "int32", n),
                )
                common = dict(size=size, args=args, problem_kwargs=kw,
                              bytes=n * 4 * (2 * vec + 1), flops=0, atol=0.0, rtol=0.0)
                base_params = {"pattern": pattern, "elem_bytes": 4 * vec}
                for bs in BLOCKS:
                    out.append(make_sample(
                        NAME, BASELINE, variant=f"direct_b{bs}", source=direct, kernel="gather",
                        grid=(cdiv(n, bs), 1, 1), block=(bs, 1, 1),
                        params={"kind": "direct", "block": bs, **base_params}, **common))
                bs = 256
                grid = min(cdiv(n, bs), SM_COUNT * THREADS_PER_SM // bs)
                out.append(make_sample(
                    NAME, BASELINE, variant=f"grid_stride_b{bs}", source=gs, kernel="gather_gs",
                    grid=(grid, 1, 1), block=(bs, 1, 1),
                    params={"kind": "grid_stride", "block": bs, "grid_blocks": grid, **base_params}, **common))
                out.append(make_sample(
                    NAME, BASELINE, variant=f"ilp4_b{bs}", source=ilp, kernel="gather_ilp4",
                    grid=(cdiv(n, 4 * bs), 1, 1), block=(bs, 1, 1),
                    params={"kind": "ilp4", "block": bs, "per_thread": 4, **base_params}, **common))
    return out
