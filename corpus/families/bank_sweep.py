"""Shared-memory bank-conflict probe: out[i] = ITERS * in[i], computed through shared memory.

Each kernel loops ITERS times over a shared-memory write and read whose address
is affine in threadIdx, so shared-memory time dominates and the measured time
follows the bank-conflict degree that the analyzer estimates:

- `stride`: thread t writes and reads smem[t * STRIDE], STRIDE 1..33. With
  4-byte elements the conflict degree is gcd(STRIDE, 32); with 8-byte elements
  every odd STRIDE is conflict-free.
- `tile`: a [32][32 + PAD] tile written row-wise (tile[ty][tx]) and read
  column-wise (tile[tx][ty]); PAD 0 is the classic 32-way conflict, PAD 1 removes
  it (for 4-byte elements), PAD 2 leaves 2-way.

Element types float (4 bytes) and double (8 bytes). The shared arrays are
volatile so every access in the loop really happens; inputs are integers, so
ITERS * in is exact in either type and the check is exact.

- `wide`: 8- and 16-byte loads (float2, float4: LDS.64, LDS.128) of a pattern of
  chunks within each warp: lane l reads chunk (l / G) * A + (l % G) * C of a
  shared array filled once (G lanes per group, groups A chunks apart, lanes in
  a group C apart): broadcasts, halves and quarters of a warp reading alike,
  strides, the rows and columns of a register tile. How the hardware splits a
  wide request into wavefronts, which the analyzer models. The load's index is
  `c ^ (it & z)` with z = 0 at launch: the same chunk in every iteration, which
  the compiler cannot hoist out of the loop.
"""
from __future__ import annotations

import numpy as np

from ._render import count_label, make_sample, render
from .base import Buffer, Problem, Sample, Scalar, cdiv

NAME = "bank_sweep"
BASELINE = "stride_s1_b128"
DESCRIPTION = "shared-memory bank conflicts: smem[tid*STRIDE] for STRIDE 1..33 and [32][32+PAD] column reads, 4/8-byte"

ITERS = 256
SIZES = (256 << 10, 1 << 20, 4 << 20)        # elements (= threads) per launch
FULL_SWEEP_SIZE = 1 << 20                    # every STRIDE 1..33 here; a subset at the other sizes
SUBSET_STRIDES = (1, 2, 3, 4, 8, 16, 31, 32, 33)
STRIDES = tuple(range(1, 34))
ELEMS = {"f32": ("float32", "float", 4), "f64": ("float64", "double", 8)}
STRIDE_BLOCKS = {"f32": (128, 256), "f64": (64, 128)}   # BLOCK*33*elem stays under 48 KB of static shared
PADS = (0, 1, 2)
TILE_ROWS = (8, 32)                           # blockDim.y of the tile kernel
WIDE_SIZE = 1 << 20
WIDE_BLOCK = 128
WIDE_TYPES = {"v2": ("float2", 8), "v4": ("float4", 16)}
# (G, A, C): lane l reads chunk (l / G) * A + (l % G) * C
WIDE_PATTERNS = ((32, 0, 0), (16, 1, 0), (16, 2, 0), (16, 8, 0), (32, 0, 1), (16, 0, 1), (8, 0, 1),
                 (8, 16, 0), (8, 0, 2), (8, 1, 0), (4, 1, 0), (2, 1, 0), (32, 0, 2), (32, 0, 8),
                 (8, 0, 4), (16, 4, 1), (16, 32, 2), (8, 2, 1))
WIDE_CHUNKS = 512
VALUE_RANGE = 1000                            # inputs are integers in [-1000, 1000]
SEED = 16

_STRIDE = """
    #define BLOCK $B
    #define STRIDE $STRIDE
    #define ITERS $ITERS
    typedef $T T;
    extern "C" __global__ void __launch_bounds__(BLOCK)
    bank_stride(const T* __restrict__ in, T* __restrict__ out, int n)
    {
        __shared__ volatile T smem[BLOCK * STRIDE];
        int i = blockIdx.x * BLOCK + threadIdx.x;
        T v = i < n ? in[i] : (T)0;
        T acc = (T)0;
        for (int it = 0; it < ITERS; ++it) {
            smem[threadIdx.x * STRIDE] = v;
            acc += smem[threadIdx.x * STRIDE];
        }
        if (i < n) out[i] = acc;
    }
"""

_TILE = """
    #define TILE 32
    #define PAD $PAD
    #define ROWS $ROWS
    #define ITERS $ITERS
    typedef $T T;
    // Block (TILE, ROWS) owns TILE*TILE consecutive elements, seen as a TILE x TILE
    // matrix; thread (tx, ty) handles rows ty, ty+ROWS, ... Writes are row-wise,
    // reads column-wise; the result goes back where the read element came from.
    extern "C" __global__ void __launch_bounds__(TILE * ROWS)
    bank_tile(const T* __restrict__ in, T* __restrict__ out, int n)
    {
        __shared__ volatile T tile[TILE][TILE + PAD];
        int base = blockIdx.x * TILE * TILE;
        int tx = threadIdx.x;
        int ty = threadIdx.y;
        T v[TILE / ROWS];
        T acc[TILE / ROWS];
    #pragma unroll
        for (int j = 0; j < TILE / ROWS; ++j) {
            int i = base + (ty + j * ROWS) * TILE + tx;
            v[j] = i < n ? in[i] : (T)0;
            acc[j] = (T)0;
        }
        for (int it = 0; it < ITERS; ++it) {
    #pragma unroll
            for (int j = 0; j < TILE / ROWS; ++j) tile[ty + j * ROWS][tx] = v[j];
            __syncthreads();
    #pragma unroll
            for (int j = 0; j < TILE / ROWS; ++j) acc[j] += tile[tx][ty + j * ROWS];
            __syncthreads();
        }
    #pragma unroll
        for (int j = 0; j < TILE / ROWS; ++j) {
            int i = base + tx * TILE + ty + j * ROWS;
            if (i < n) out[i] = acc[j];
        }
    }
"""


_WIDE = """
    #define BLOCK $B
    #define ITERS $ITERS
    #define G $G
    #define A $A
    #define C $C
    #define CHUNKS $CHUNKS
    typedef $V V;
    extern "C" __global__ void __launch_bounds__(BLOCK)
    bank_wide(const float* __restrict__ in, float* __restrict__ out, int n, int z)
    {
        __shared__ V smem[CHUNKS];
        const float part = 1.0f / (sizeof(V) / sizeof(float));   // a chunk's parts add up to 1
        for (int k = threadIdx.x; k < CHUNKS; k += BLOCK) {
            V fill;
            float* f = reinterpret_cast<float*>(&fill);
            for (int q = 0; q < (int)(sizeof(V) / sizeof(float)); ++q) f[q] = part;
            smem[k] = fill;
        }
        __syncthreads();
        int i = blockIdx.x * BLOCK + threadIdx.x;
        int lane = threadIdx.x % 32;
        int c = (lane / G) * A + (lane % G) * C;
        float v = i < n ? in[i] : 0.0f;
        float acc = 0.0f;
        for (int it = 0; it < ITERS; ++it) {
            V r = smem[c ^ (it & z)];
            const float* f = reinterpret_cast<const float*>(&r);
            float sum = 0.0f;
    #pragma unroll
            for (int q = 0; q < (int)(sizeof(V) / sizeof(float)); ++q) sum += f[q];
            acc += sum * v;
        }
        if (i < n) out[i] = acc;
    }
"""


def problem(n: int, dtype: str, seed: int = SEED) -> Problem:
    if dtype not in ("float32", "float64"):
        raise ValueError(f"unsupported dtype {dtype!r}; expected float32 or float64")
    rng = np.random.default_rng(seed)
    x = rng.integers(-VALUE_RANGE, VALUE_RANGE + 1, n).astype(dtype)
    return Problem(inputs={"x": x}, expected={"y": (x * ITERS).astype(dtype)})


def source(kind: str, ctype: str, block: int = 0, stride: int = 0, pad: int = 0, rows: int = 0) -> tuple[str, str]:
    """(CUDA source, kernel name) of one variant."""
    if kind == "stride":
        return render(_STRIDE, B=block, STRIDE=stride, ITERS=ITERS, T=ctype), "bank_stride"
    return render(_TILE, PAD=pad, ROWS=rows, ITERS=ITERS, T=ctype), "bank_tile"


def wide_samples(n: int = WIDE_SIZE) -> list[Sample]:
    """The `wide` kernels: each pattern of WIDE_PATTERNS with 8- and 16-byte loads."""
    size = f"n{count_label(n)}_f32"
    kw = {"n": n, "dtype": "float32", "seed": SEED}
    args = (Buffer("x", "float32", n), Buffer("y", "float32", n, "out"), Scalar("n", "int32", n),
            Scalar("z", "int32", 0))
    out = []
    for tag, (vtype, width) in WIDE_TYPES.items():
        for g, a, c in WIDE_PATTERNS:
            src = render(_WIDE, B=WIDE_BLOCK, ITERS=ITERS, G=g, A=a, C=c, CHUNKS=WIDE_CHUNKS, V=vtype)
            out.append(make_sample(
                NAME, BASELINE, variant=f"wide_{tag}_g{g}_a{a}_c{c}", size=size, source=src, kernel="bank_wide",
                grid=(cdiv(n, WIDE_BLOCK), 1, 1), block=(WIDE_BLOCK, 1, 1), args=args, problem_kwargs=kw,
                params={"kind": "wide", "block": WIDE_BLOCK, "group": g, "group_step": a, "lane_step": c,
                        "elem_bytes": width, "iters": ITERS},
                bytes=8 * n, flops=ITERS * n, atol=0.0, rtol=0.0,
            ))
    return out


def task_samples(n: int, dtype: str, strides: tuple[int, ...] = STRIDES) -> list[Sample]:
    """The variants of one task: the stride kernel at `strides` and every tile kernel."""
    tag = next(t for t, (d, _, _) in ELEMS.items() if d == dtype)
    _, ctype, esize = ELEMS[tag]
    size = f"n{count_label(n)}_{tag}"
    kw = {"n": n, "dtype": dtype, "seed": SEED}
    args = (Buffer("x", dtype, n), Buffer("y", dtype, n, "out"), Scalar("n", "int32", n))
    common = dict(args=args, problem_kwargs=kw, bytes=2 * esize * n, flops=ITERS * n, atol=0.0, rtol=0.0)
    out = []
    for block in STRIDE_BLOCKS[tag]:
        for stride in strides:
            src, kernel = source("stride", ctype, block=block, stride=stride)
            out.append(make_sample(
                NAME, BASELINE, variant=f"stride_s{stride}_b{block}", size=size, source=src,
                kernel=kernel, grid=(cdiv(n, block), 1, 1), block=(block, 1, 1),
                params={"kind": "stride", "block": block, "stride": stride, "elem_bytes": esize, "iters": ITERS},
                **common,
            ))
    for pad in PADS:
        for rows in TILE_ROWS:
            src, kernel = source("tile", ctype, pad=pad, rows=rows)
            out.append(make_sample(
                NAME, BASELINE, variant=f"tile_p{pad}_r{rows}", size=size, source=src,
                kernel=kernel, grid=(cdiv(n, 32 * 32), 1, 1), block=(32, rows, 1),
                params={"kind": "tile", "block_x": 32, "block_y": rows, "pad": pad, "elem_bytes": esize,
                        "iters": ITERS},
                **common,
            ))
    return out


def samples() -> list[Sample]:
    return [s for n in SIZES for dtype, _, _ in ELEMS.values()
            for s in task_samples(n, dtype, STRIDES if n == FULL_SWEEP_SIZE else SUBSET_STRIDES)] + wide_samples()
