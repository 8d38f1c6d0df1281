"""Transpose of a row-major [rows, cols] float32 matrix into [cols, rows].

Variants: naive with coalesced reads (strided writes) and the reverse, a shared
memory tile (bank conflicts on the column read), the tile padded to TILE+1,
and an XOR-swizzled tile; each tile variant with several block-row counts
(each thread moves TILE / BLOCK_ROWS elements).
"""
from __future__ import annotations

import numpy as np

from ._render import count_label, make_sample, render, uniform
from .base import Buffer, Problem, Sample, Scalar, cdiv

NAME = "transpose"
BASELINE = "naive_row_b32x8"
DESCRIPTION = "out = in^T for a float32 matrix: naive, shared tiles, padded and swizzled, tile and block rows"

# (rows, cols): L2-resident, ~128 MB of traffic (square and wide), DRAM-bound, and a ragged one
SIZES = ((1024, 1024), (4096, 4096), (2048, 8192), (8192, 8192), (3000, 7000))
NAIVE_BLOCKS = ((32, 8), (16, 16), (32, 32), (256, 1))
# (TILE, BLOCK_ROWS)
TILES = ((16, 4), (16, 8), (16, 16), (32, 4), (32, 8), (32, 16), (32, 32), (64, 4), (64, 8), (64, 16))
SEED = 4

_NAIVE_ROW = """
    // thread x walks the columns of `in`: reads coalesced, writes `rows` floats apart
    extern "C" __global__ void transpose_naive_row(const float* __restrict__ in, float* __restrict__ out,
                                                   int rows, int cols)
    {
        int c = blockIdx.x * blockDim.x + threadIdx.x;
        int r = blockIdx.y * blockDim.y + threadIdx.y;
        if (r < rows && c < cols) out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
    }
"""

_NAIVE_COL = """
    // thread x walks the rows of `in`: writes coalesced, reads `cols` floats apart
    extern "C" __global__ void transpose_naive_col(const float* __restrict__ in, float* __restrict__ out,
                                                   int rows, int cols)
    {
        int r = blockIdx.x * blockDim.x + threadIdx.x;
        int c = blockIdx.y * blockDim.y + threadIdx.y;
        if (r < rows && c < cols) out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
    }
"""

# $WIDTH is TILE, or TILE + 1 when padded; $SW_W / $SW_R index the stored column on write / read.
_TILED = """
    #define TILE $TILE
    #define BLOCK_ROWS $BLOCK_ROWS
    $SWIZZLE
    extern "C" __global__ void $KERNEL(const float* __restrict__ in, float* __restrict__ out, int rows, int cols)
    {
        __shared__ float tile[TILE][$WIDTH];
        int c = blockIdx.x * TILE + threadIdx.x;
        int r = blockIdx.y * TILE + threadIdx.y;
        for (int j = 0; j < TILE; j += BLOCK_ROWS) {
            if (r + j < rows && c < cols)
                tile[threadIdx.y + j][$SW_W] = in[(size_t)(r + j) * cols + c];
        }
        __syncthreads();
        // the block now writes the transposed tile: its rows are input columns
        int oc = blockIdx.y * TILE + threadIdx.x;   // output column = input row
        int orow = blockIdx.x * TILE + threadIdx.y; // output row = input column
        for (int j = 0; j < TILE; j += BLOCK_ROWS) {
            if (orow + j < cols && oc < rows)
                out[(size_t)(orow + j) * rows + oc] = tile[threadIdx.x][$SW_R];
        }
    }
"""

_SWIZZLE_DEF = "#define SWZ(row, col) ((col) ^ ((row) & 31))   // TILE is a multiple of 32: stays in the tile"


def problem(rows: int, cols: int, seed: int = SEED) -> Problem:
    rng = np.random.default_rng(seed)
    a = uniform(rng, rows * cols)
    expected = np.ascontiguousarray(a.reshape(rows, cols).T).ravel()
    return Problem(inputs={"in": a}, expected={"out": expected})


def _tiled_source(kind: str, tile: int, brows: int) -> tuple[str, str]:
    kernel = f"transpose_{kind}"
    if kind == "swizzled":
        sw = dict(SWIZZLE=_SWIZZLE_DEF, WIDTH="TILE",
                  SW_W="SWZ(threadIdx.y + j, threadIdx.x)", SW_R="SWZ(threadIdx.x, threadIdx.y + j)")
    else:
        sw = dict(SWIZZLE="", WIDTH="TILE + 1" if kind == "padded" else "TILE",
                  SW_W="threadIdx.x", SW_R="threadIdx.y + j")
    return render(_TILED, TILE=tile, BLOCK_ROWS=brows, KERNEL=kernel, **sw), kernel


def _size_label(rows: int, cols: int) -> str:
    return f"r{count_label(rows)}_c{count_label(cols)}"


def samples() -> list[Sample]:
    naive_row = render(_NAIVE_ROW)
    naive_col = render(_NAIVE_COL)
    tiled = {}
    for kind in ("tiled", "padded", "swizzled"):
        for tile, brows in TILES:
            if kind == "swizzled" and tile % 32:
                continue
            tiled[(kind, tile, brows)] = _tiled_source(kind, tile, brows)

    out: list[Sample] = []
    for rows, cols in SIZES:
        n = rows * cols
        kw = {"rows": rows, "cols": cols, "seed": SEED}
        args = (Buffer("in", "float32", n), Buffer("out", "float32", n, "out"),
                Scalar("rows", "int32", rows), Scalar("cols", "int32", cols))
        common = dict(size=_size_label(rows, cols), args=args, problem_kwargs=kw,
                      bytes=8 * n, flops=0, atol=0.0, rtol=0.0)
        for bx, by in NAIVE_BLOCKS:
            out.append(make_sample(
                NAME, BASELINE, variant=f"naive_row_b{bx}x{by}", source=naive_row, kernel="transpose_naive_row",
                grid=(cdiv(cols, bx), cdiv(rows, by), 1), block=(bx, by, 1),
                params={"kind": "naive_row", "block_x": bx, "block_y": by}, **common))
            out.append(make_sample(
                NAME, BASELINE, variant=f"naive_col_b{bx}x{by}", source=naive_col, kernel="transpose_naive_col",
                grid=(cdiv(rows, bx), cdiv(cols, by), 1), block=(bx, by, 1),
                params={"kind": "naive_col", "block_x": bx, "block_y": by}, **common))
        for (kind, tile, brows), (src, kernel) in tiled.items():
            out.append(make_sample(
                NAME, BASELINE, variant=f"{kind}_t{tile}_b{tile}x{brows}", source=src, kernel=kernel,
                grid=(cdiv(cols, tile), cdiv(rows, tile), 1), block=(tile, brows, 1),
                params={"kind": kind, "tile": tile, "block_x": tile, "block_y": brows,
                        "pad": int(kind == "padded")}, **common))
    return out
