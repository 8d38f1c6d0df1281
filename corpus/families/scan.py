"""Segmented inclusive scan: out[i] = sum of in[s*SEG .. i] within each segment of SEG elements.

One block scans one segment (SEG = elements per block, 256..2048), so the whole
scan is one launch; float32 and int32. Variants: naive Hillis-Steele with
double-buffered shared memory (SEG/BLOCK elements per thread), Blelloch's
work-efficient up-sweep/down-sweep (two elements per thread) with and without
bank-conflict-avoiding padding, and a warp-shuffle scan (__shfl_up_sync) whose
warp totals are scanned by the first warp, over chunks of BLOCK elements.
"""
from __future__ import annotations

import numpy as np

from ._render import chunks, count_label, make_sample, render, uniform
from .base import Buffer, Problem, Sample, Scalar, cdiv

NAME = "scan"
BASELINE = "hillis_steele_e2"
DESCRIPTION = "per-block segmented inclusive scan (float32/int32): Hillis-Steele vs Blelloch (padded) vs warp shuffles"

SIZES = (2 << 20, 16 << 20, 64 << 20)     # 16 MB (L2) .. 512 MB of traffic
SEGMENTS = (256, 512, 1024, 2048)
DTYPES = {"f32": ("float32", "float"), "i32": ("int32", "int")}
HS_ITEMS = (1, 2, 4)                      # Hillis-Steele elements per thread
WARP_BLOCKS = (128, 256, 1024)
INT_RANGE = 100                           # int32 inputs in [-100, 100]: segment sums stay far from overflow
SEED = 14

_HILLIS_STEELE = """
    #define SEG $SEG
    #define BLOCK $B
    typedef $T T;
    // log2(SEG) steps; step d adds the element 2^d to the left. Reads come from one
    // buffer and writes go to the other, so a step needs no read-before-write care.
    extern "C" __global__ void __launch_bounds__(BLOCK)
    scan_hillis_steele(const T* __restrict__ in, T* __restrict__ out, int n)
    {
        __shared__ T buf[2][SEG];
        int base = blockIdx.x * SEG;
        for (int t = threadIdx.x; t < SEG; t += BLOCK) {
            int i = base + t;
            buf[0][t] = i < n ? in[i] : (T)0;
        }
        __syncthreads();
        int src = 0;
        for (int offset = 1; offset < SEG; offset <<= 1) {
            for (int t = threadIdx.x; t < SEG; t += BLOCK) {
                T v = buf[src][t];
                if (t >= offset) v += buf[src][t - offset];
                buf[1 - src][t] = v;
            }
            __syncthreads();
            src = 1 - src;
        }
        for (int t = threadIdx.x; t < SEG; t += BLOCK) {
            int i = base + t;
            if (i < n) out[i] = buf[src][t];
        }
    }
"""

# GPU Gems 3, ch. 39: exclusive scan in place, then add each element back for the
# inclusive result. Thread t owns elements t and t + SEG/2.
_BLELLOCH = """
    #define SEG $SEG
    #define BLOCK (SEG / 2)
    $PADDING
    typedef $T T;
    extern "C" __global__ void __launch_bounds__(BLOCK)
    scan_blelloch$SUFFIX(const T* __restrict__ in, T* __restrict__ out, int n)
    {
        __shared__ T temp[SEG + PAD_TOTAL];
        int base = blockIdx.x * SEG;
        int t = threadIdx.x;
        int ai = t;
        int bi = t + SEG / 2;
        T xa = base + ai < n ? in[base + ai] : (T)0;
        T xb = base + bi < n ? in[base + bi] : (T)0;
        temp[ai + OFFSET(ai)] = xa;
        temp[bi + OFFSET(bi)] = xb;
        int offset = 1;
        for (int d = SEG >> 1; d > 0; d >>= 1) {     // up-sweep: partial sums up the tree
            __syncthreads();
            if (t < d) {
                int i = offset * (2 * t + 1) - 1;
                int j = offset * (2 * t + 2) - 1;
                temp[j + OFFSET(j)] += temp[i + OFFSET(i)];
            }
            offset <<= 1;
        }
        if (t == 0) temp[SEG - 1 + OFFSET(SEG - 1)] = (T)0;
        for (int d = 1; d < SEG; d <<= 1) {          // down-sweep: prefixes down the tree
            offset >>= 1;
            __syncthreads();
            if (t < d) {
                int i = offset * (2 * t + 1) - 1;
                int j = offset * (2 * t + 2) - 1;
                T left = temp[i + OFFSET(i)];
                temp[i + OFFSET(i)] = temp[j + OFFSET(j)];
                temp[j + OFFSET(j)] += left;
            }
        }
        __syncthreads();
        if (base + ai < n) out[base + ai] = temp[ai + OFFSET(ai)] + xa;
        if (base + bi < n) out[base + bi] = temp[bi + OFFSET(bi)] + xb;
    }
"""

_NO_PADDING = "#define OFFSET(i) 0\n#define PAD_TOTAL 0"

# One padding word per 32 elements moves the tree's power-of-two strides off a single bank.
_PADDING = "#define LOG_NUM_BANKS 5\n#define OFFSET(i) ((i) >> LOG_NUM_BANKS)\n#define PAD_TOTAL (SEG >> LOG_NUM_BANKS)"

_WARP_SHUFFLE = """
    #define SEG $SEG
    #define BLOCK $B
    #define WARPS (BLOCK / 32)
    typedef $T T;
    // The segment is scanned in SEG/BLOCK chunks of BLOCK elements: a shuffle scan per
    // warp, the first warp scans the warp totals, and a running carry joins the chunks.
    extern "C" __global__ void __launch_bounds__(BLOCK)
    scan_warp_shuffle(const T* __restrict__ in, T* __restrict__ out, int n)
    {
        __shared__ T warp_sums[WARPS];
        int lane = threadIdx.x & 31;
        int warp = threadIdx.x >> 5;
        int base = blockIdx.x * SEG;
        T carry = (T)0;
        for (int c = 0; c < SEG; c += BLOCK) {
            int i = base + c + threadIdx.x;
            T v = i < n ? in[i] : (T)0;
    #pragma unroll
            for (int o = 1; o < 32; o <<= 1) {
                T u = __shfl_up_sync(0xffffffffu, v, o);
                if (lane >= o) v += u;
            }
            if (lane == 31) warp_sums[warp] = v;
            __syncthreads();
            if (warp == 0) {
                T s = lane < WARPS ? warp_sums[lane] : (T)0;
    #pragma unroll
                for (int o = 1; o < 32; o <<= 1) {
                    T u = __shfl_up_sync(0xffffffffu, s, o);
                    if (lane >= o) s += u;
                }
                if (lane < WARPS) warp_sums[lane] = s;
            }
            __syncthreads();
            T prefix = carry + (warp > 0 ? warp_sums[warp - 1] : (T)0);
            if (i < n) out[i] = v + prefix;
            carry += warp_sums[WARPS - 1];
            __syncthreads();   // warp_sums is rewritten by the next chunk
        }
    }
"""


def problem(n: int, seg: int, dtype: str, seed: int = SEED) -> Problem:
    rng = np.random.default_rng(seed)
    if dtype == "float32":
        x, acc = uniform(rng, n), np.float64
    elif dtype == "int32":
        x, acc = rng.integers(-INT_RANGE, INT_RANGE + 1, n, dtype=np.int32), np.int64
    else:
        raise ValueError(f"unsupported dtype {dtype!r}; expected float32 or int32")
    y = np.empty_like(x)
    step = seg * max(1, (1 << 18) // seg)
    for lo, hi in chunks(n, step):
        part = np.zeros(cdiv(hi - lo, seg) * seg, dtype=acc)   # a partial last segment is padded
        part[:hi - lo] = x[lo:hi]
        part = part.reshape(-1, seg)
        np.cumsum(part, axis=1, out=part)
        y[lo:hi] = part.reshape(-1)[:hi - lo]
    return Problem(inputs={"x": x}, expected={"y": y})


def source(kind: str, seg: int, block: int, ctype: str) -> tuple[str, str]:
    """(CUDA source, kernel name) of one variant."""
    if kind == "hillis_steele":
        return render(_HILLIS_STEELE, SEG=seg, B=block, T=ctype), "scan_hillis_steele"
    if kind in ("blelloch", "blelloch_padded"):
        padded = kind == "blelloch_padded"
        suffix = "_padded" if padded else ""
        src = render(_BLELLOCH, SEG=seg, T=ctype, SUFFIX=suffix, PADDING=_PADDING if padded else _NO_PADDING)
        return src, f"scan_blelloch{suffix}"
    return render(_WARP_SHUFFLE, SEG=seg, B=block, T=ctype), "scan_warp_shuffle"


def _variants(seg: int) -> list[tuple[str, str, int]]:
    """(kind, variant name, block) for one segment length."""
    out = []
    for items in HS_ITEMS:
        block = seg // items
        if 64 <= block <= 1024:
            out.append(("hillis_steele", f"hillis_steele_e{items}", block))
    out.append(("blelloch", "blelloch", seg // 2))
    out.append(("blelloch_padded", "blelloch_padded", seg // 2))
    for block in WARP_BLOCKS:
        if block <= seg:
            out.append(("warp_shuffle", f"warp_shuffle_b{block}", block))
    return out


def tolerance(dtype: str, seg: int) -> tuple[float, float]:
    """(atol, rtol). Integer sums are exact. Float prefix sums of up to SEG values in
    [-1, 1) are O(sqrt(SEG)) in size and each scan order rounds them O(log SEG) times;
    a missed or doubled element is off by ~0.5 on average, far above this."""
    if dtype == "int32":
        return 0.0, 0.0
    return 1e-4 * max(1.0, (seg / 1024) ** 0.5), 1e-5


def task_samples(n: int, seg: int, dtype: str) -> list[Sample]:
    """Every variant of one task."""
    tag = next(t for t, (d, _) in DTYPES.items() if d == dtype)
    ctype = DTYPES[tag][1]
    size = f"n{count_label(n)}_s{seg}_{tag}"
    kw = {"n": n, "seg": seg, "dtype": dtype, "seed": SEED}
    args = (Buffer("x", dtype, n), Buffer("y", dtype, n, "out"), Scalar("n", "int32", n))
    atol, rtol = tolerance(dtype, seg)
    out = []
    for kind, variant, block in _variants(seg):
        src, kernel = source(kind, seg, block, ctype)
        out.append(make_sample(
            NAME, BASELINE, variant=variant, size=size, source=src, kernel=kernel,
            grid=(cdiv(n, seg), 1, 1), block=(block, 1, 1), args=args, problem_kwargs=kw,
            params={"kind": kind, "block": block, "seg": seg, "items": seg // block, "dtype": dtype},
            bytes=8 * n, flops=n if dtype == "float32" else 0,
            atol=atol, rtol=rtol,
        ))
    return out


def samples() -> list[Sample]:
    return [s for n in SIZES for seg in SEGMENTS for dtype, _ in DTYPES.values() for s in task_samples(n, seg, dtype)]
