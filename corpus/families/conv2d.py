"""Direct 2-D convolution, NCHW float32, stride 1, zero 'same' padding.

y[n, k, oy, ox] = sum_{c, ky, kx} w[k, c, ky, kx] * x[n, c, oy + ky - P, ox + kx - P], P = KS // 2.

The task is (N, C, K, H, W, KS) with 3x3 and 5x5 kernels. Variants: one output
per thread reading x and w from global memory (`naive`), the same with the
weights in __constant__ memory (`naive_const`), an input tile with halo staged in
shared memory per input channel (`tiled`), and tiled + __constant__ weights.

The profiler passes buffers only, so the __constant__ variants carry the
weights in the source as an initializer; the weights are therefore fixed per
(C, K, KS) by `weights()`, not drawn from the problem's seed, and those
variants still take the `w` buffer so every variant has the same signature.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ._render import chunks, f32_literal, make_sample, render, uniform
from .base import Buffer, Problem, Sample, Scalar, cdiv

NAME = "conv2d"
BASELINE = "naive_b16x16"
DESCRIPTION = "direct NCHW conv 3x3/5x5: naive vs shared input tile, weights in global vs __constant__ memory"

# (N, C, K, H, W, KS): from 8 MB (L2) through 128 MB to 512 MB of traffic; every
# configuration's weights fit the 64 KB of __constant__ memory.
CONFIGS = (
    (1, 16, 16, 256, 256, 3),
    (1, 16, 16, 256, 256, 5),
    (2, 32, 32, 256, 256, 3),
    (4, 16, 16, 512, 512, 3),
    (4, 16, 16, 512, 512, 5),
    (8, 3, 32, 512, 512, 3),
    (4, 16, 16, 1024, 1024, 3),
    (2, 16, 16, 1024, 1024, 5),
)
BLOCKS = ((16, 16), (32, 8), (32, 4), (8, 8), (32, 32), (64, 4))
KINDS = ("naive", "naive_const", "tiled", "tiled_const")
CONST_LIMIT = 64 * 1024
SEED = 15

_NAIVE = """
    #define KS $KS
    #define P (KS / 2)
    #define BX $BX
    #define BY $BY
    $CONST
    // One output per thread; blockIdx.z is (n, k).
    extern "C" __global__ void __launch_bounds__(BX * BY)
    conv2d_$KIND(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y,
                 int N, int C, int K, int H, int W)
    {
        int ox = blockIdx.x * BX + threadIdx.x;
        int oy = blockIdx.y * BY + threadIdx.y;
        int n = blockIdx.z / K;
        int k = blockIdx.z % K;
        if (ox >= W || oy >= H) return;
        float acc = 0.0f;
        for (int c = 0; c < C; ++c) {
            size_t plane = (size_t)(n * C + c) * H * W;
    #pragma unroll
            for (int ky = 0; ky < KS; ++ky) {
                int iy = oy + ky - P;
                if (iy < 0 || iy >= H) continue;
    #pragma unroll
                for (int kx = 0; kx < KS; ++kx) {
                    int ix = ox + kx - P;
                    if (ix >= 0 && ix < W)
                        acc += x[plane + iy * W + ix] * $WREAD;
                }
            }
        }
        y[((size_t)blockIdx.z * H + oy) * W + ox] = acc;
    }
"""

_TILED = """
    #define KS $KS
    #define P (KS / 2)
    #define BX $BX
    #define BY $BY
    #define TW (BX + KS - 1)
    #define TH (BY + KS - 1)
    $CONST
    // Per input channel, the block stages its (BY+KS-1) x (BX+KS-1) input tile (zero
    // outside the image) in shared memory, then each thread does its KS*KS products.
    extern "C" __global__ void __launch_bounds__(BX * BY)
    conv2d_$KIND(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y,
                 int N, int C, int K, int H, int W)
    {
        __shared__ float tile[TH][TW];
        int ox = blockIdx.x * BX + threadIdx.x;
        int oy = blockIdx.y * BY + threadIdx.y;
        int n = blockIdx.z / K;
        int k = blockIdx.z % K;
        int row0 = blockIdx.y * BY - P;
        int col0 = blockIdx.x * BX - P;
        float acc = 0.0f;
        for (int c = 0; c < C; ++c) {
            size_t plane = (size_t)(n * C + c) * H * W;
            for (int t = threadIdx.y * BX + threadIdx.x; t < TH * TW; t += BX * BY) {
                int tr = t / TW;
                int tc = t % TW;
                int gy = row0 + tr;
                int gx = col0 + tc;
                tile[tr][tc] = (gy >= 0 && gy < H && gx >= 0 && gx < W) ? x[plane + gy * W + gx] : 0.0f;
            }
            __syncthreads();
    #pragma unroll
            for (int ky = 0; ky < KS; ++ky)
    #pragma unroll
                for (int kx = 0; kx < KS; ++kx)
                    acc += tile[threadIdx.y + ky][threadIdx.x + kx] * $WREAD;
            __syncthreads();   // the tile is overwritten by the next channel
        }
        if (ox < W && oy < H) y[((size_t)blockIdx.z * H + oy) * W + ox] = acc;
    }
"""

_W_GLOBAL = "w[((k * C + c) * KS + ky) * KS + kx]"
_W_CONST = "c_w[((k * C + c) * KS + ky) * KS + kx]"


@lru_cache(maxsize=None)
def weights(c: int, k: int, ks: int) -> np.ndarray:
    """Fixed weights for a (C, K, KS) shape: multiples of 1/256 (short exact literals),
    scaled so every output is O(1) whatever the fan-in."""
    rng = np.random.default_rng(1000 * ks + 100 * c + k)
    fan_in = c * ks * ks
    step = max(1, round(256 / np.sqrt(fan_in)))
    w = rng.integers(-step, step + 1, k * c * ks * ks) / 256.0
    return w.astype(np.float32)


def _const_block(c: int, k: int, ks: int) -> str:
    w = weights(c, k, ks)
    lines = []
    per_line = c * ks * ks if c * ks * ks <= 32 else ks * ks
    for lo in range(0, w.size, per_line):
        lines.append("    " + ", ".join(f32_literal(v) for v in w[lo:lo + per_line]) + ",")
    return (f"#define CIN {c}\n#define KOUT {k}\n"
            f"// weights[k][c][ky][kx], fixed for this (C, K, KS): see conv2d.weights()\n"
            f"__constant__ float c_w[KOUT * CIN * KS * KS] = {{\n" + "\n".join(lines) + "\n};")


def source(kind: str, c: int, k: int, ks: int, bx: int, by: int) -> tuple[str, str]:
    """(CUDA source, kernel name) of one variant; C and K matter only to the __constant__ kinds."""
    const = kind.endswith("_const")
    template = _TILED if kind.startswith("tiled") else _NAIVE
    src = render(template, KS=ks, BX=bx, BY=by, KIND=kind,
                 CONST="$CONST", WREAD=_W_CONST if const else _W_GLOBAL)
    # substituted after dedent so the initializer's own layout survives
    src = src.replace("$CONST\n", (_const_block(c, k, ks) + "\n") if const else "")
    return src, f"conv2d_{kind}"


def reference(x: np.ndarray, w: np.ndarray, n_: int, c: int, k: int, h: int, wd: int, ks: int) -> np.ndarray:
    """The convolution in float64, cast to float32.

    Each image is zero-padded into planes of width Wp = W + 2P and flattened; a
    tap (ky, kx) is then a plain offset ky*Wp + kx into the flat planes. The KS*KS
    shifted views are stacked into one (KS*KS*C) x (rows*Wp) matrix, so a chunk of
    rows is a single (K x KS*KS*C) product (few large BLAS calls). The 2P garbage
    columns per row are dropped at the end."""
    p = ks // 2
    wp = wd + 2 * p
    xs = x.reshape(n_, c, h, wd)
    # [k][ky][kx][c], matching the stacking order of the shifted views below
    taps = w.reshape(k, c, ks, ks).astype(np.float64).transpose(0, 2, 3, 1).reshape(k, ks * ks * c)
    y = np.empty((n_, k, h, wd), dtype=np.float32)
    rows = max(1, (1 << 14) // wp)
    for img in range(n_):
        for r0, r1 in chunks(h, rows):
            nr = r1 - r0
            # rows r0-P .. r1+P of the padded image, plus one spare row the last taps run into
            pad = np.zeros((c, nr + 2 * p + 1, wp), dtype=np.float64)
            s0, s1 = max(r0 - p, 0), min(r1 + p, h)
            pad[:, s0 - (r0 - p):s1 - (r0 - p), p:p + wd] = xs[img, :, s0:s1, :]
            flat = pad.reshape(c, -1)
            length = nr * wp
            stacked = np.empty((ks * ks, c, length), dtype=np.float64)
            for ky in range(ks):
                for kx in range(ks):
                    off = ky * wp + kx
                    stacked[ky * ks + kx] = flat[:, off:off + length]
            acc = taps @ stacked.reshape(ks * ks * c, length)
            y[img, :, r0:r1, :] = acc.reshape(k, nr, wp)[:, :, :wd]
    return y.reshape(-1)


def problem(N: int, C: int, K: int, H: int, W: int, KS: int, seed: int = SEED) -> Problem:
    rng = np.random.default_rng(seed)
    x = uniform(rng, N * C * H * W)
    w = weights(C, K, KS)
    return Problem(inputs={"x": x, "w": w}, expected={"y": reference(x, w, N, C, K, H, W, KS)})


def task_samples(N: int, C: int, K: int, H: int, W: int, KS: int) -> list[Sample]:
    """Every variant of one task."""
    if K * C * KS * KS * 4 > CONST_LIMIT:
        raise ValueError(f"conv2d C={C} K={K} KS={KS}: weights exceed the 64 KB of __constant__ memory")
    size = f"n{N}c{C}k{K}h{H}w{W}_k{KS}"
    kw = {"N": N, "C": C, "K": K, "H": H, "W": W, "KS": KS, "seed": SEED}
    nx, nw, ny = N * C * H * W, K * C * KS * KS, N * K * H * W
    args = (Buffer("x", "float32", nx), Buffer("w", "float32", nw), Buffer("y", "float32", ny, "out"),
            Scalar("N", "int32", N), Scalar("C", "int32", C), Scalar("K", "int32", K),
            Scalar("H", "int32", H), Scalar("W", "int32", W))
    fan_in = C * KS * KS
    out = []
    for kind in KINDS:
        for bx, by in BLOCKS:
            src, kernel = source(kind, C, K, KS, bx, by)
            out.append(make_sample(
                NAME, BASELINE, variant=f"{kind}_b{bx}x{by}", size=size, source=src, kernel=kernel,
                grid=(cdiv(W, bx), cdiv(H, by), N * K), block=(bx, by, 1), args=args, problem_kwargs=kw,
                params={"kind": kind, "block_x": bx, "block_y": by, "ks": KS, "c": C, "k": K},
                bytes=4 * (nx + nw + ny), flops=2 * ny * fan_in,
                # |y| = O(1); up to 400 products summed in float32 in various orders
                atol=1e-4 * max(1.0, fan_in / 100), rtol=1e-4,
            ))
    return out


def samples() -> list[Sample]:
    return [s for cfg in CONFIGS for s in task_samples(*cfg)]
