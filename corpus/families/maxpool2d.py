"""Max pooling over NCHW float32, window KxK (2 or 3), stride 2, no padding.

y[n, c, oy, ox] = max over ky, kx < K of x[n, c, 2*oy + ky, 2*ox + kx], with
Ho = (H - K) // 2 + 1 and Wo likewise. The task is (N, C, H, W, K). Variants:
one output per thread from a flat 1-D index, 2-D blocks over (ox, oy) with
blockIdx.z = n*C + c, the same with the x/y roles swapped (threadIdx.x walks
output rows: uncoalesced), and a grid-stride loop over a fixed 1-D grid.
"""
from __future__ import annotations

import numpy as np

from ._render import SM_COUNT, make_sample, render, uniform
from .base import Buffer, Problem, Sample, Scalar, cdiv

NAME = "maxpool2d"
BASELINE = "thread_1d_b256"
DESCRIPTION = "NCHW max pooling 2x2/3x3 stride 2: 1-D vs 2-D blocks, swapped x/y roles, grid-stride"

# (N, C, H, W): 16 MB (L2), 128 MB, 256 MB of large images, 512 MB of input
SIZES = ((8, 32, 128, 128), (8, 64, 256, 256), (4, 16, 1024, 1024), (32, 64, 256, 256))
WINDOWS = (2, 3)
STRIDE = 2
BLOCKS_1D = (32, 64, 128, 256, 512, 1024)
BLOCKS_2D = ((16, 16), (32, 8), (32, 4), (8, 8), (32, 32), (64, 4))
GRID_BLOCKS_PER_SM = 8
SEED = 18

_HEAD = """
    #define KSIZE $K
    #define STRIDE $S"""

# -FLT_MAX written out: NVRTC has no <cfloat>. Every window is inside the image, so it is never the answer.
_WINDOW = "\n".join(line for line in (
    "float m = -3.402823466e+38f;",
    "#pragma unroll",
    "for (int ky = 0; ky < KSIZE; ++ky)",
    "#pragma unroll",
    "    for (int kx = 0; kx < KSIZE; ++kx)",
    "        m = fmaxf(m, x[(size_t)nc * H * W + (oy * STRIDE + ky) * W + ox * STRIDE + kx]);",
))

_THREAD_1D = _HEAD + """
    #define BLOCK $B
    extern "C" __global__ void __launch_bounds__(BLOCK)
    maxpool_thread_1d(const float* __restrict__ x, float* __restrict__ y, int N, int C, int H, int W, int Ho, int Wo)
    {
        int idx = blockIdx.x * BLOCK + threadIdx.x;
        if (idx >= N * C * Ho * Wo) return;
        int ox = idx % Wo;
        int oy = (idx / Wo) % Ho;
        int nc = idx / (Wo * Ho);
    $WINDOW
        y[idx] = m;
    }
"""

_THREAD_2D = _HEAD + """
    #define BX $BX
    #define BY $BY
    extern "C" __global__ void __launch_bounds__(BX * BY)
    maxpool_thread_2d(const float* __restrict__ x, float* __restrict__ y, int N, int C, int H, int W, int Ho, int Wo)
    {
        int ox = blockIdx.x * BX + threadIdx.x;
        int oy = blockIdx.y * BY + threadIdx.y;
        int nc = blockIdx.z;
        if (ox >= Wo || oy >= Ho) return;
    $WINDOW
        y[((size_t)nc * Ho + oy) * Wo + ox] = m;
    }
"""

# threadIdx.x picks the output row: neighbouring lanes are 2*W floats apart.
_THREAD_2D_SWAPPED = _HEAD + """
    #define BX $BX
    #define BY $BY
    extern "C" __global__ void __launch_bounds__(BX * BY)
    maxpool_thread_2d_swapped(const float* __restrict__ x, float* __restrict__ y, int N, int C, int H, int W,
                              int Ho, int Wo)
    {
        int oy = blockIdx.x * BX + threadIdx.x;
        int ox = blockIdx.y * BY + threadIdx.y;
        int nc = blockIdx.z;
        if (ox >= Wo || oy >= Ho) return;
    $WINDOW
        y[((size_t)nc * Ho + oy) * Wo + ox] = m;
    }
"""

_GRID_STRIDE = _HEAD + """
    #define BLOCK $B
    extern "C" __global__ void __launch_bounds__(BLOCK)
    maxpool_grid_stride(const float* __restrict__ x, float* __restrict__ y, int N, int C, int H, int W, int Ho, int Wo)
    {
        int total = N * C * Ho * Wo;
        for (int idx = blockIdx.x * BLOCK + threadIdx.x; idx < total; idx += gridDim.x * BLOCK) {
            int ox = idx % Wo;
            int oy = (idx / Wo) % Ho;
            int nc = idx / (Wo * Ho);
    $WINDOW
            y[idx] = m;
        }
    }
"""

_TEMPLATES = {"thread_1d": _THREAD_1D, "thread_2d": _THREAD_2D, "thread_2d_swapped": _THREAD_2D_SWAPPED,
              "grid_stride": _GRID_STRIDE}


def out_dims(h: int, w: int, k: int) -> tuple[int, int]:
    return (h - k) // STRIDE + 1, (w - k) // STRIDE + 1


def problem(N: int, C: int, H: int, W: int, K: int, seed: int = SEED) -> Problem:
    rng = np.random.default_rng(seed)
    x = uniform(rng, N * C * H * W)
    ho, wo = out_dims(H, W, K)
    img = x.reshape(N * C, H, W)
    # max is exact, so float32 throughout; one strided slice per window offset
    y = np.full((N * C, ho, wo), -np.inf, dtype=np.float32)
    for ky in range(K):
        for kx in range(K):
            np.maximum(y, img[:, ky:ky + STRIDE * (ho - 1) + 1:STRIDE, kx:kx + STRIDE * (wo - 1) + 1:STRIDE], out=y)
    return Problem(inputs={"x": x}, expected={"y": y.reshape(-1)})


def source(kind: str, k: int, block: tuple[int, int]) -> tuple[str, str]:
    """(CUDA source, kernel name) of one variant; block is (BLOCK, 1) for the 1-D kinds."""
    indent = " " * (8 if kind == "grid_stride" else 4)   # the loop body sits one level deeper
    window = "\n".join(indent + line for line in _WINDOW.split("\n"))
    src = render(_TEMPLATES[kind], K=k, S=STRIDE, B=block[0], BX=block[0], BY=block[1], WINDOW=window)
    return src, f"maxpool_{kind}"


def task_samples(N: int, C: int, H: int, W: int, K: int) -> list[Sample]:
    """Every variant of one task."""
    ho, wo = out_dims(H, W, K)
    size = f"n{N}c{C}h{H}w{W}_k{K}"
    kw = {"N": N, "C": C, "H": H, "W": W, "K": K, "seed": SEED}
    nx, ny = N * C * H * W, N * C * ho * wo
    args = (Buffer("x", "float32", nx), Buffer("y", "float32", ny, "out"),
            Scalar("N", "int32", N), Scalar("C", "int32", C), Scalar("H", "int32", H),
            Scalar("W", "int32", W), Scalar("Ho", "int32", ho), Scalar("Wo", "int32", wo))
    common = dict(args=args, problem_kwargs=kw, bytes=4 * (nx + ny), flops=ny * (K * K - 1),
                  atol=0.0, rtol=0.0)   # max of stored values is exact
    out: list[Sample] = []

    def add(kind: str, variant: str, grid: tuple[int, int, int], shape: tuple[int, int], **params: int) -> None:
        src, kernel = source(kind, K, shape)
        out.append(make_sample(
            NAME, BASELINE, variant=variant, size=size, source=src, kernel=kernel, grid=grid,
            block=(shape[0], shape[1], 1), params={"kind": kind, "window": K, **params}, **common))

    for bs in BLOCKS_1D:
        add("thread_1d", f"thread_1d_b{bs}", (cdiv(ny, bs), 1, 1), (bs, 1), block=bs)
        g = min(cdiv(ny, bs), SM_COUNT * GRID_BLOCKS_PER_SM)
        add("grid_stride", f"grid_stride_b{bs}_g{g}", (g, 1, 1), (bs, 1), block=bs, grid_blocks=g)
    for bx, by in BLOCKS_2D:
        add("thread_2d", f"thread_2d_b{bx}x{by}", (cdiv(wo, bx), cdiv(ho, by), N * C), (bx, by),
            block_x=bx, block_y=by)
        add("thread_2d_swapped", f"thread_2d_swapped_b{bx}x{by}", (cdiv(ho, bx), cdiv(wo, by), N * C),
            (bx, by), block_x=bx, block_y=by)
    return out


def samples() -> list[Sample]:
    return [s for n, c, h, w in SIZES for k in WINDOWS for s in task_samples(n, c, h, w, k)]
