"""The handwritten task groups and, for each .cu file, how to launch it.

Launch rules are small closures of (size kwargs, block) -> (grid, smem) built
by the helpers below; they encode each kernel's work decomposition (one thread
per element, one warp per row, a capped grid-stride grid, ...).
"""
from __future__ import annotations

import math
from typing import Callable

from analyzer.profile.spec import Buffer, Scalar

from . import problems as P
from .spec import Group, KernelSpec, Kw, LaunchRule, Size

# ---------------------------------------------------------------- launch helpers

SmemRule = int | Callable[[Kw, tuple[int, int, int]], int]


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def _smem(smem: SmemRule, kw: Kw, block) -> int:
    return smem(kw, block) if callable(smem) else smem


def _threads(block) -> int:
    return block[0] * block[1] * block[2]


def flat(count: Callable[[Kw], int], per_thread: int = 1, smem: SmemRule = 0) -> LaunchRule:
    """A 1-D grid with one thread for every `per_thread` work items."""
    return lambda kw, b: ((cdiv(count(kw), _threads(b) * per_thread), 1, 1), _smem(smem, kw, b))


def capped(count: Callable[[Kw], int], cap: int, smem: SmemRule = 0) -> LaunchRule:
    """A grid-stride kernel: enough blocks for one item per thread, at most `cap`."""
    return lambda kw, b: ((min(cdiv(count(kw), _threads(b)), cap), 1, 1), _smem(smem, kw, b))


def block_per(count: Callable[[Kw], int], smem: SmemRule = 0) -> LaunchRule:
    """One block per row (or token)."""
    return lambda kw, b: ((count(kw), 1, 1), _smem(smem, kw, b))


def group_per(count: Callable[[Kw], int], group: int, items: int = 1, smem: SmemRule = 0) -> LaunchRule:
    """`items` rows per `group`-thread group (a warp, a cg tile), several groups per block."""
    return lambda kw, b: ((cdiv(count(kw), (_threads(b) // group) * items), 1, 1), _smem(smem, kw, b))


def grid2d(gx: Callable[[Kw, tuple], int], gy: Callable[[Kw, tuple], int], smem: SmemRule = 0) -> LaunchRule:
    return lambda kw, b: ((gx(kw, b), gy(kw, b), 1), _smem(smem, kw, b))


def _k(*names: str) -> Callable[[Kw], int]:
    """Product of size kwargs, e.g. _k("rows", "cols")."""
    return lambda kw: math.prod(kw[n] for n in names)


def _div(f: Callable[[Kw], int], d: int) -> Callable[[Kw], int]:
    return lambda kw: cdiv(f(kw), d)


ROWS, COLS, N = _k("rows"), _k("cols"), _k("n")
RC = _k("rows", "cols")
B1 = lambda *xs: tuple((x, 1, 1) for x in xs)  # noqa: E731  1-D block shapes
WARP_SMEM = lambda kw, b: (_threads(b) // 32) * 4  # noqa: E731  one float per warp


def _red_atol(key: str) -> Callable[[Kw], float]:
    """fp32 sums of `kw[key]` terms of magnitude <= 1: allow float reassociation."""
    return lambda kw: 1e-4 * math.sqrt(kw[key])


def _const(v: float) -> Callable[[Kw], float]:
    return lambda kw: v


# ---------------------------------------------------------------- arguments


def _rows_args(in_dtype: str, out: str, out_dtype: str, out_size: str):
    def args(kw):
        r, c = kw["rows"], kw["cols"]
        size = {"rows": r, "cols": c, "all": r * c}[out_size]
        return (Buffer("x", in_dtype, r * c), Buffer(out, out_dtype, size, "out"),
                Scalar("rows", "int32", r), Scalar("cols", "int32", c))
    return args


def _vec_args(kw):
    n = kw["n"]
    return Buffer("x", "float32", n), Buffer("y", "float32", n, "out"), Scalar("n", "int32", n)


def _dot_args(kw):
    n = kw["n"]
    return (Buffer("x", "float32", n), Buffer("y", "float32", n), Buffer("out", "float32", 1, "zero"),
            Scalar("n", "int32", n))


def _gemv_args(kw):
    r, c = kw["rows"], kw["cols"]
    return (Buffer("A", "float32", r * c), Buffer("x", "float32", c), Buffer("y", "float32", r, "out"),
            Scalar("rows", "int32", r), Scalar("cols", "int32", c))


def _hist_args(kw):
    n = kw["n"]
    return Buffer("data", "uint8", n), Buffer("hist", "uint32", 256, "zero"), Scalar("n", "int32", n)


def _particle_scalars(n):
    return (Scalar("n", "int32", n), Scalar("dt", "float32", P.PARTICLE_DT),
            Scalar("ex", "float32", P.E_FIELD[0]), Scalar("ey", "float32", P.E_FIELD[1]),
            Scalar("ez", "float32", P.E_FIELD[2]))


def _aos_args(kw):
    n = kw["n"]
    return (Buffer("p_in", "float32", 8 * n), Buffer("p_out", "float32", 8 * n, "out")) + _particle_scalars(n)


def _soa_args(kw):
    n = kw["n"]
    return (Buffer("soa_in", "float32", 8 * n), Buffer("soa_out", "float32", 6 * n, "out")) + _particle_scalars(n)


def _rmsnorm_args(kw):
    r, c = kw["rows"], kw["cols"]
    return (Buffer("x", "float16", r * c), Buffer("w", "float16", c), Buffer("y", "float16", r * c, "out"),
            Scalar("rows", "int32", r), Scalar("cols", "int32", c), Scalar("eps", "float32", P.RMS_EPS))


def _axpy_args(kw):
    n = kw["n"]
    return (Buffer("x", "float16", n), Buffer("y", "float16", n), Buffer("out", "float16", n, "out"),
            Scalar("a", "float32", P.AXPY_A), Scalar("n", "int32", n))


def _bias_relu_args(kw):
    r, c = kw["rows"], kw["cols"]
    return (Buffer("x", "bfloat16", r * c), Buffer("bias", "bfloat16", c), Buffer("y", "bfloat16", r * c, "out"),
            Scalar("rows", "int32", r), Scalar("cols", "int32", c))


def _embedding_args(kw):
    t, d, v = kw["tokens"], kw["dim"], kw["vocab"]
    return (Buffer("ids", "int32", t), Buffer("table", "bfloat16", v * d), Buffer("out", "bfloat16", t * d, "out"),
            Scalar("tokens", "int32", t), Scalar("dim", "int32", d))


def _hgemm_args(kw):
    m, n, k = kw["m"], kw["n"], kw["k"]
    return (Buffer("A", "float16", m * k), Buffer("B", "float16", k * n), Buffer("C", "float32", m * n, "out"),
            Scalar("m", "int32", m), Scalar("n", "int32", n), Scalar("k", "int32", k))


def _mnk(m: int, n: int, k: int) -> Size:
    return Size(f"m{m}_n{n}_k{k}", {"m": m, "n": n, "k": k})


def _swiglu_args(kw):
    r, d = kw["rows"], kw["d"]
    return (Buffer("x", "bfloat16", r * 2 * d), Buffer("out", "bfloat16", r * d, "out"),
            Scalar("rows", "int32", r), Scalar("d", "int32", d))


def _rc(r: int, c: int) -> Size:
    return Size(f"r{r}_c{c}", {"rows": r, "cols": c})


def _n(n: int) -> Size:
    label = f"n{n >> 20}M" if n % (1 << 20) == 0 else f"n{n >> 10}K"
    return Size(label, {"n": n})


M = 1 << 20

# ---------------------------------------------------------------- task groups

GROUPS: dict[str, Group] = {g.family: g for g in (
    Group("hw_rowsum", "rowsum", "fp32 row sums of a rows x cols matrix",
          (_rc(4096, 1024), _rc(65536, 512), _rc(32768, 4096)),
          _rows_args("float32", "y", "float32", "rows"),
          bytes=lambda kw: 4 * (kw["rows"] * kw["cols"] + kw["rows"]), flops=RC,
          atol=_red_atol("cols"), rtol=1e-4),
    Group("hw_colsum", "colsum", "fp32 column sums of a rows x cols matrix",
          (_rc(4096, 1024), _rc(8192, 4096), _rc(32768, 4096)),
          _rows_args("float32", "y", "float32", "cols"),
          bytes=lambda kw: 4 * (kw["rows"] * kw["cols"] + kw["cols"]), flops=RC,
          atol=_red_atol("rows"), rtol=1e-4),
    Group("hw_argmax", "argmax", "first index of each row's maximum (fp32 -> int32)",
          (_rc(4096, 1024), _rc(32768, 1024), _rc(32768, 4096)),
          _rows_args("float32", "idx", "int32", "rows"),
          bytes=lambda kw: 4 * (kw["rows"] * kw["cols"] + kw["rows"]), flops=RC,
          atol=_const(0.0), rtol=0.0),
    Group("hw_softmax", "softmax", "fp32 row softmax",
          (_rc(2048, 1024), _rc(8192, 2048), _rc(16384, 4096)),
          _rows_args("float32", "y", "float32", "all"),
          bytes=lambda kw: 8 * kw["rows"] * kw["cols"], flops=lambda kw: 5 * kw["rows"] * kw["cols"],
          atol=_const(1e-6), rtol=1e-4),
    Group("hw_gemv", "gemv", "fp32 matrix-vector product y = A x",
          (_rc(2048, 2048), _rc(8192, 4096), _rc(16384, 8192)),
          _gemv_args,
          bytes=lambda kw: 4 * (kw["rows"] * kw["cols"] + kw["cols"] + kw["rows"]),
          flops=lambda kw: 2 * kw["rows"] * kw["cols"],
          atol=_red_atol("cols"), rtol=1e-4),
    Group("hw_gelu", "gelu", "fp32 GELU, tanh approximation",
          (_n(2 * M), _n(16 * M), _n(64 * M)), _vec_args,
          bytes=lambda kw: 8 * kw["n"], flops=lambda kw: 10 * kw["n"],
          atol=_const(1e-5), rtol=1e-4),
    Group("hw_dot", "dot", "fp32 dot product into one zeroed scalar",
          (_n(2 * M), _n(16 * M), _n(64 * M)), _dot_args,
          bytes=lambda kw: 8 * kw["n"] + 4, flops=lambda kw: 2 * kw["n"],
          atol=_red_atol("n"), rtol=1e-4),
    Group("hw_stencil1d", "stencil1d", "fp32 7-point 1-D stencil, ends copied",
          (_n(2 * M), _n(16 * M), _n(64 * M)), _vec_args,
          bytes=lambda kw: 8 * kw["n"], flops=lambda kw: 13 * kw["n"],
          atol=_const(1e-5), rtol=1e-4),
    Group("hw_histogram256", "histogram256", "256-bin histogram of bytes",
          (_n(8 * M), _n(32 * M), _n(128 * M)), _hist_args,
          bytes=lambda kw: kw["n"] + 1024, flops=_const(0),
          atol=_const(0.0), rtol=0.0),
    Group("hw_particles_aos", "particles_aos", "Euler step of charged particles, array of structs",
          (_n(256 * 1024), _n(2 * M), _n(8 * M)), _aos_args,
          bytes=lambda kw: 64 * kw["n"], flops=lambda kw: 16 * kw["n"],
          atol=_const(1e-5), rtol=1e-5),
    Group("hw_particles_soa", "particles_soa", "Euler step of charged particles, structure of arrays",
          (_n(256 * 1024), _n(2 * M), _n(8 * M)), _soa_args,
          bytes=lambda kw: 56 * kw["n"], flops=lambda kw: 16 * kw["n"],
          atol=_const(1e-5), rtol=1e-5),
    Group("hw_rmsnorm", "rmsnorm_half", "RMSNorm of half rows with a half weight",
          (_rc(4096, 1024), _rc(8192, 4096), _rc(32768, 4096)), _rmsnorm_args,
          bytes=lambda kw: 2 * (2 * kw["rows"] * kw["cols"] + kw["cols"]),
          flops=lambda kw: 4 * kw["rows"] * kw["cols"],
          atol=_const(1e-2), rtol=1e-2),
    Group("hw_axpy_half", "axpy_half", "out = a*x + y on half vectors",
          (_n(2 * M), _n(24 * M), _n(64 * M)), _axpy_args,
          bytes=lambda kw: 6 * kw["n"], flops=lambda kw: 2 * kw["n"],
          atol=_const(1e-2), rtol=1e-2),
    Group("hw_bias_relu_bf16", "bias_relu_bf16", "relu(x + bias[col]) on a bf16 matrix",
          (_rc(4096, 1024), _rc(16384, 4096), _rc(24576, 4096)), _bias_relu_args,
          bytes=lambda kw: 2 * (2 * kw["rows"] * kw["cols"] + kw["cols"]),
          flops=lambda kw: 2 * kw["rows"] * kw["cols"],
          atol=_const(1e-2), rtol=1e-2),
    Group("hw_embedding_bf16", "embedding_bf16", "embedding lookup of int32 ids in a bf16 table",
          (Size("t2048_d1024", {"tokens": 2048, "dim": 1024, "vocab": 4096}),
           Size("t16384_d2048", {"tokens": 16384, "dim": 2048, "vocab": 8192}),
           Size("t32768_d4096", {"tokens": 32768, "dim": 4096, "vocab": 16384})),
          _embedding_args,
          bytes=lambda kw: 4 * kw["tokens"] + 4 * kw["tokens"] * kw["dim"], flops=_const(0),
          atol=_const(0.0), rtol=0.0),
    Group("hw_swiglu_bf16", "swiglu_bf16", "silu(gate) * up on a fused bf16 projection",
          (Size("r1024_d2048", {"rows": 1024, "d": 2048}), Size("r4096_d4096", {"rows": 4096, "d": 4096}),
           Size("r8192_d8192", {"rows": 8192, "d": 8192})),
          _swiglu_args,
          bytes=lambda kw: 6 * kw["rows"] * kw["d"], flops=lambda kw: 6 * kw["rows"] * kw["d"],
          atol=_const(1e-2), rtol=1e-2),
    Group("hw_hgemm", "hgemm", "half matrix product C = A B, float accumulation and output",
          (_mnk(1024, 1024, 1024), _mnk(4096, 4096, 2048), _mnk(8192, 8192, 4096)), _hgemm_args,
          bytes=lambda kw: 2 * (kw["m"] * kw["k"] + kw["k"] * kw["n"]) + 4 * kw["m"] * kw["n"],
          flops=lambda kw: 2 * kw["m"] * kw["n"] * kw["k"],
          # k products summed in float32 (the tensor cores' adder truncates: a few units a step)
          atol=lambda kw: 16 * 2.0**-24 * kw["k"], rtol=1e-3),
)}

# ---------------------------------------------------------------- kernels

K = KernelSpec
_ZERO_Y = {"y": "zero"}

KERNELS: tuple[KernelSpec, ...] = (
    # hw_rowsum
    K("rowsum_thread_per_row", "hw_rowsum", "thread_per_row", "rowsum_thread_per_row", "naive",
      flat(ROWS), B1(128, 256), ("naive", "uncoalesced"), baseline=True),
    K("rowsum_smem_tree", "hw_rowsum", "smem_tree", "rowsum_smem<{bx}>", "template",
      block_per(ROWS), B1(128, 512), ("template", "static_smem", "unroll", "restrict")),
    K("rowsum_warp_shfl", "hw_rowsum", "warp_shfl", "rowsum_warp", "warp_shuffle",
      group_per(ROWS, 32), B1(128, 256), ("warp_shuffle", "device_helper", "macro", "restrict")),
    K("rowsum_cg", "hw_rowsum", "cg_tile", "rowsum_cg", "coop_groups",
      group_per(ROWS, 32), B1(256), ("coop_groups",)),
    K("rowsum_interleaved", "hw_rowsum", "interleaved_divergent", "rowsum_interleaved", "divergent",
      block_per(ROWS, smem=lambda kw, b: b[0] * 4), B1(256, 512), ("divergent", "bank_conflict", "dynamic_smem")),
    K("rowsum_vec4", "hw_rowsum", "vec4_block", "rowsum_vec4", "float4",
      block_per(ROWS, smem=WARP_SMEM), B1(256, 512),
      ("float4", "warp_shuffle", "dynamic_smem", "launch_bounds", "device_helper", "restrict")),

    # hw_gelu
    K("gelu_naive", "hw_gelu", "naive", "gelu_naive", "naive",
      flat(N), B1(256, 1024), ("naive",), baseline=True),
    K("gelu_kernel_loop", "hw_gelu", "kernel_loop_macro", "gelu_kernel_loop", "macro",
      capped(N, cap=4096), B1(128, 256), ("macro", "grid_stride", "launch_bounds", "restrict")),
    K("gelu_vec4", "hw_gelu", "vec4", "gelu_vec4", "float4",
      flat(_div(N, 4)), B1(256), ("float4", "device_helper", "restrict")),
    K("gelu_unroll", "hw_gelu", "unroll", "gelu_unroll<{bx},{items}>", "template",
      lambda kw, b: flat(N, per_thread=1024 // b[0])(kw, b), B1(128, 256),
      ("template", "unroll", "launch_bounds", "restrict"),
      template_args=lambda kw, b: {"items": 1024 // b[0]}),
    K("gelu_fast_exp", "hw_gelu", "fast_exp_ldg", "gelu_fast_exp", "intrinsics",
      flat(N), B1(512), ("intrinsics", "ldg", "device_helper", "restrict")),
    K("gelu_chunked", "hw_gelu", "chunked_uncoalesced", "gelu_chunked", "uncoalesced",
      flat(N, per_thread=16), B1(256), ("uncoalesced", "naive", "macro")),

    # hw_dot
    K("dot_block_tree", "hw_dot", "block_tree", "dot_block_tree", "static_smem",
      flat(N), B1(256), ("static_smem", "macro", "launch_bounds", "atomics"), baseline=True),
    K("dot_strided_index", "hw_dot", "strided_index_conflicts", "dot_strided_index", "bank_conflict",
      flat(N, smem=lambda kw, b: b[0] * 4), B1(256, 512), ("bank_conflict", "dynamic_smem", "atomics")),
    K("dot_grid_stride_shfl", "hw_dot", "grid_stride_shfl", "dot_shfl", "warp_shuffle",
      capped(N, cap=2048), B1(256, 1024), ("warp_shuffle", "grid_stride", "device_helper", "restrict", "atomics")),
    K("dot_cg", "hw_dot", "cg_reduce", "dot_cg", "coop_groups",
      capped(N, cap=1024, smem=WARP_SMEM), B1(256, 512), ("coop_groups", "grid_stride", "dynamic_smem", "atomics")),
    K("dot_vec4", "hw_dot", "vec4_ldg", "dot_vec4<{bx}>", "float4",
      capped(_div(N, 4), cap=1024), B1(256, 512),
      ("float4", "template", "ldg", "grid_stride", "warp_shuffle", "launch_bounds", "unroll", "restrict", "atomics")),

    # hw_rmsnorm
    K("rmsnorm_thread_per_row", "hw_rmsnorm", "thread_per_row", "rmsnorm_thread_per_row", "naive",
      flat(ROWS), B1(64, 128), ("naive", "uncoalesced", "half"), baseline=True),
    K("rmsnorm_block_smem", "hw_rmsnorm", "block_smem", "rmsnorm_block", "dynamic_smem",
      block_per(ROWS, smem=lambda kw, b: b[0] * 4), B1(256, 512), ("dynamic_smem", "half", "restrict")),
    K("rmsnorm_warp_half2", "hw_rmsnorm", "warp_half2", "rmsnorm_warp_h2", "half_vector",
      group_per(ROWS, 32), B1(128, 256), ("half_vector", "warp_shuffle", "device_helper", "restrict")),
    K("rmsnorm_cg", "hw_rmsnorm", "cg_block", "rmsnorm_cg<{bx}>", "coop_groups",
      block_per(ROWS), B1(256, 512), ("coop_groups", "template", "launch_bounds", "static_smem", "half")),
    K("rmsnorm_vec8", "hw_rmsnorm", "int4_registers", "rmsnorm_vec8<{bx},{iters}>", "int4_vector",
      block_per(ROWS), B1(128, 256),
      ("int4_vector", "half_vector", "template", "unroll", "ldg", "launch_bounds", "device_helper", "restrict"),
      template_args=lambda kw, b: {"iters": cdiv(kw["cols"], b[0] * 8)}),

    # hw_bias_relu_bf16
    K("bias_relu_bf16_naive", "hw_bias_relu_bf16", "naive", "bias_relu_naive", "naive",
      flat(RC), B1(256), ("naive", "bf16"), baseline=True),
    K("bias_relu_bf16_rowfast", "hw_bias_relu_bf16", "rows_on_x_uncoalesced", "bias_relu_rowfast", "uncoalesced",
      grid2d(lambda kw, b: cdiv(kw["rows"], b[0]), lambda kw, b: cdiv(kw["cols"], b[1])),
      ((32, 8, 1), (16, 16, 1)), ("uncoalesced", "bf16")),
    K("bias_relu_bf162", "hw_bias_relu_bf16", "bf162", "bias_relu_bf162", "bf16_vector",
      flat(_div(RC, 2)), B1(256, 512), ("bf16_vector", "restrict")),
    K("bias_relu_bf16_vec8", "hw_bias_relu_bf16", "int4_grid_stride", "bias_relu_vec8", "int4_vector",
      capped(_div(RC, 8), cap=2048), B1(256), ("int4_vector", "bf16_vector", "macro", "grid_stride", "unroll", "restrict")),
    K("bias_relu_bf16_tiled", "hw_bias_relu_bf16", "tiled_smem_bias", "bias_relu_tiled<{bx},{rows_per}>", "template",
      grid2d(lambda kw, b: cdiv(kw["cols"], b[0]), lambda kw, b: cdiv(kw["rows"], 2048 // b[0])),
      B1(256, 128), ("template", "static_smem", "launch_bounds", "unroll", "bf16"),
      template_args=lambda kw, b: {"rows_per": 2048 // b[0]}),

    # hw_argmax
    K("argmax_thread_per_row", "hw_argmax", "thread_per_row", "argmax_thread_per_row", "naive",
      flat(ROWS), B1(128, 256), ("naive", "uncoalesced"), baseline=True),
    K("argmax_block_smem", "hw_argmax", "block_smem_pairs", "argmax_block", "static_smem",
      block_per(ROWS), B1(256), ("static_smem", "macro", "launch_bounds")),
    K("argmax_warp_shfl", "hw_argmax", "warp_shfl_pairs", "argmax_warp", "warp_shuffle",
      group_per(ROWS, 32), B1(128, 256), ("warp_shuffle", "device_helper", "macro", "restrict")),
    K("argmax_tile16", "hw_argmax", "cg_tile16", "argmax_tile16", "coop_groups",
      group_per(ROWS, 16), B1(128, 256), ("coop_groups",)),
    K("argmax_vec4", "hw_argmax", "vec4_block", "argmax_vec4", "float4",
      block_per(ROWS, smem=256), B1(128, 256), ("float4", "dynamic_smem", "warp_shuffle", "device_helper", "restrict")),

    # hw_softmax
    K("softmax_thread_per_row", "hw_softmax", "thread_per_row", "softmax_thread_per_row", "naive",
      flat(ROWS), B1(128), ("naive", "uncoalesced"), baseline=True),
    K("softmax_block", "hw_softmax", "block_smem", "softmax_block<{bx}>", "template",
      block_per(ROWS), B1(128, 256), ("template", "static_smem", "restrict")),
    K("softmax_warp_online", "hw_softmax", "warp_online", "softmax_warp_online", "warp_shuffle",
      group_per(ROWS, 32), B1(128, 256), ("warp_shuffle", "device_helper", "macro", "restrict")),
    K("softmax_cg", "hw_softmax", "cg_block", "softmax_cg", "coop_groups",
      block_per(ROWS, smem=WARP_SMEM), B1(256, 512), ("coop_groups", "dynamic_smem")),
    K("softmax_smem_row", "hw_softmax", "row_in_smem", "softmax_smem_row", "dynamic_smem",
      block_per(ROWS, smem=lambda kw, b: (kw["cols"] + 32) * 4), B1(256, 512),
      ("dynamic_smem", "warp_shuffle", "device_helper", "intrinsics", "macro", "restrict")),

    # hw_particles_aos
    K("particles_aos_naive", "hw_particles_aos", "struct_copy", "push_particles_aos", "aos",
      flat(N), B1(128, 256), ("aos", "naive", "macro"), baseline=True),
    K("particles_aos_float4", "hw_particles_aos", "float4_pairs", "push_particles_aos_vec", "float4",
      flat(N), B1(256), ("float4", "aos", "restrict")),
    K("particles_aos_staged", "hw_particles_aos", "smem_staged", "push_particles_staged", "bank_conflict",
      flat(N), B1(128), ("bank_conflict", "static_smem", "aos", "macro", "launch_bounds", "restrict")),
    K("particles_aos_shfl", "hw_particles_aos", "thread_per_float_shfl", "push_particles_shfl", "warp_shuffle",
      flat(lambda kw: 8 * kw["n"]), B1(256, 512),
      ("warp_shuffle", "aos", "divergent", "restrict")),

    # hw_particles_soa
    K("particles_soa_naive", "hw_particles_soa", "thread_per_particle", "push_particles_soa", "soa",
      flat(N), B1(256), ("soa", "naive", "macro"), baseline=True),
    K("particles_soa_float4", "hw_particles_soa", "float4_fields", "push_particles_soa_vec4", "float4",
      flat(_div(N, 4)), B1(128, 256), ("float4", "soa", "device_helper", "restrict")),
    K("particles_soa_view", "hw_particles_soa", "view_struct_grid_stride", "push_particles_soa_view", "struct_view",
      capped(N, cap=1024), B1(256), ("struct_view", "soa", "device_helper", "grid_stride", "ldg", "restrict")),
    K("particles_soa_ilp", "hw_particles_soa", "ilp_registers", "push_particles_soa_ilp<{bx},{items}>", "template",
      lambda kw, b: flat(N, per_thread=512 // b[0])(kw, b), B1(128, 256),
      ("template", "soa", "unroll", "launch_bounds", "restrict"),
      template_args=lambda kw, b: {"items": 512 // b[0]}),

    # hw_axpy_half
    K("axpy_half_naive", "hw_axpy_half", "naive", "axpy_half_naive", "naive",
      flat(N), B1(256, 1024), ("naive", "half"), baseline=True),
    K("axpy_half2", "hw_axpy_half", "half2_hfma2", "axpy_half2", "half_vector",
      flat(_div(N, 2)), B1(256), ("half_vector", "restrict")),
    K("axpy_half_vec8", "hw_axpy_half", "int4_grid_stride", "axpy_half_vec8", "int4_vector",
      capped(_div(N, 8), cap=2048), B1(256, 512),
      ("int4_vector", "half_vector", "macro", "grid_stride", "launch_bounds", "unroll", "restrict")),
    K("axpy_half_tiled", "hw_axpy_half", "typed_template", "axpy_tiled<__half,{bx},{items}>", "template",
      lambda kw, b: flat(N, per_thread=1024 // b[0])(kw, b), B1(256, 512),
      ("template", "unroll", "launch_bounds", "half", "restrict"),
      template_args=lambda kw, b: {"items": 1024 // b[0]}),
    K("axpy_half_blocked", "hw_axpy_half", "contiguous_chunks", "axpy_half_blocked", "uncoalesced",
      lambda kw, b: ((min(264, cdiv(kw["n"], b[0])), 1, 1), 0), B1(256), ("uncoalesced", "naive", "half")),

    # hw_histogram256
    K("hist_global_atomic", "hw_histogram256", "global_atomics", "hist_global", "naive",
      flat(N), B1(256, 512), ("naive", "atomics"), baseline=True),
    K("hist_shared", "hw_histogram256", "shared_private", "hist_shared", "static_smem",
      capped(N, cap=1024), B1(256, 1024), ("static_smem", "atomics", "grid_stride", "macro", "restrict")),
    K("hist_shared_vec16", "hw_histogram256", "shared_int4_loads", "hist_shared_vec16", "int4_vector",
      capped(_div(N, 16), cap=1024), B1(256), ("int4_vector", "static_smem", "atomics", "grid_stride", "unroll", "restrict")),
    K("hist_per_warp", "hw_histogram256", "per_warp_private", "hist_per_warp", "dynamic_smem",
      capped(N, cap=1024, smem=lambda kw, b: (b[0] // 32) * 256 * 4), B1(256, 512),
      ("dynamic_smem", "atomics", "grid_stride", "macro", "restrict")),
    K("hist_match_any", "hw_histogram256", "warp_aggregated", "hist_match_any", "warp_intrinsics",
      flat(N), B1(256), ("warp_intrinsics", "atomics")),

    # hw_colsum
    K("colsum_thread_per_col", "hw_colsum", "thread_per_col", "colsum_thread_per_col", "naive",
      flat(COLS), B1(128, 256), ("naive",), baseline=True),
    K("colsum_split_rows", "hw_colsum", "split_rows_atomic", "colsum_split_rows", "atomics",
      grid2d(lambda kw, b: cdiv(kw["cols"], b[0]), lambda kw, b: 64), B1(128, 256),
      ("atomics", "restrict"), roles=_ZERO_Y),
    K("colsum_block2d", "hw_colsum", "block2d_smem", "colsum_block2d", "static_smem",
      grid2d(lambda kw, b: cdiv(kw["cols"], 32), lambda kw, b: cdiv(kw["rows"], 256)), ((32, 8, 1), (32, 16, 1)),
      ("static_smem", "atomics", "macro", "restrict"), roles=_ZERO_Y),
    K("colsum_vec4", "hw_colsum", "vec4_split_rows", "colsum_vec4", "float4",
      grid2d(lambda kw, b: cdiv(kw["cols"] // 4, b[0]), lambda kw, b: 64), B1(128, 256),
      ("float4", "atomics", "restrict"), roles=_ZERO_Y),
    K("colsum_transpose_conflict", "hw_colsum", "smem_transpose_conflicts", "colsum_transpose_conflict",
      "bank_conflict",
      grid2d(lambda kw, b: cdiv(kw["cols"], 32), lambda kw, b: cdiv(kw["rows"], 256)), ((32, 8, 1),),
      ("bank_conflict", "static_smem", "warp_shuffle", "atomics", "macro", "launch_bounds"), roles=_ZERO_Y),

    # hw_stencil1d
    K("stencil1d_naive", "hw_stencil1d", "naive", "stencil1d_naive", "naive",
      flat(N), B1(256, 512), ("naive", "constant_memory", "macro"), baseline=True),
    K("stencil1d_smem", "hw_stencil1d", "smem_halo", "stencil1d_smem<{bx},3>", "template",
      flat(N), B1(256, 512), ("template", "static_smem", "constant_memory", "unroll", "launch_bounds", "restrict")),
    K("stencil1d_dyn_smem", "hw_stencil1d", "dyn_smem_items4", "stencil1d_dyn_smem", "dynamic_smem",
      flat(N, per_thread=4, smem=lambda kw, b: (b[0] * 4 + 6) * 4), B1(128, 256),
      ("dynamic_smem", "constant_memory", "macro", "unroll", "restrict")),
    K("stencil1d_regs", "hw_stencil1d", "register_window_ldg", "stencil1d_regs", "ldg",
      flat(N, per_thread=4), B1(128, 256), ("ldg", "unroll", "macro", "restrict")),
    K("stencil1d_shfl", "hw_stencil1d", "warp_shfl_window", "stencil1d_shfl", "warp_shuffle",
      flat(N), B1(256), ("warp_shuffle", "constant_memory", "unroll", "restrict")),

    # hw_gemv
    K("gemv_thread_per_row", "hw_gemv", "thread_per_row", "gemv_thread_per_row", "naive",
      flat(ROWS), B1(128, 256), ("naive", "uncoalesced"), baseline=True),
    K("gemv_warp_per_row", "hw_gemv", "warp_per_row", "gemv_warp_per_row", "warp_shuffle",
      group_per(ROWS, 32), B1(128, 256), ("warp_shuffle", "ldg", "restrict")),
    K("gemv_block_vec4", "hw_gemv", "block_vec4", "gemv_block_vec4<{bx}>", "template",
      block_per(ROWS), B1(128, 256), ("template", "float4", "ldg", "static_smem", "launch_bounds", "unroll", "restrict")),
    K("gemv_cg_multirow", "hw_gemv", "cg_tile_4rows", "gemv_cg_multirow", "coop_groups",
      group_per(ROWS, 32, items=4), B1(128, 256), ("coop_groups", "macro", "unroll", "restrict")),

    # hw_embedding_bf16
    K("embedding_naive", "hw_embedding_bf16", "naive", "embedding_naive", "naive",
      flat(_k("tokens", "dim")), B1(256), ("naive", "bf16"), baseline=True),
    K("embedding_vec8", "hw_embedding_bf16", "int4_per_thread", "embedding_vec8", "int4_vector",
      flat(_div(_k("tokens", "dim"), 8)), B1(128, 256), ("int4_vector", "ldg", "restrict")),
    K("embedding_block_per_token", "hw_embedding_bf16", "block_per_token", "embedding_block_per_token", "bf16_vector",
      block_per(_k("tokens")), B1(128, 256), ("bf16_vector", "ldg", "restrict")),
    K("embedding_warp_gridstride", "hw_embedding_bf16", "warp_grid_stride", "embedding_warp_gridstride", "grid_stride",
      lambda kw, b: ((min(cdiv(kw["tokens"], b[0] // 32), 1024), 1, 1), 0), B1(256),
      ("grid_stride", "warp_shuffle", "int4_vector", "macro", "restrict")),

    # hw_swiglu_bf16
    K("swiglu_naive", "hw_swiglu_bf16", "naive", "swiglu_naive", "naive",
      flat(_k("rows", "d")), B1(256), ("naive", "bf16"), baseline=True),
    K("swiglu_bf162", "hw_swiglu_bf16", "bf162_pairs", "swiglu_bf162", "bf16_vector",
      flat(_div(_k("rows", "d"), 2)), B1(256, 512), ("bf16_vector", "device_helper", "restrict")),
    K("swiglu_vec8", "hw_swiglu_bf16", "int4_grid2d", "swiglu_vec8<{bx}>", "template",
      grid2d(lambda kw, b: cdiv(kw["d"] // 8, b[0]), lambda kw, b: kw["rows"]), B1(128, 256),
      ("template", "int4_vector", "bf16_vector", "launch_bounds", "unroll", "restrict")),
    K("swiglu_fast", "hw_swiglu_bf16", "grid_stride_fast_math", "swiglu_fast", "macro",
      capped(_k("rows", "d"), cap=4096), B1(256), ("macro", "grid_stride", "intrinsics", "restrict")),

    # hw_hgemm: C's columns along x, its rows along y; the tensor-core kernels' block tiles
    K("hgemm_naive", "hw_hgemm", "naive", "hgemm_naive", "naive",
      grid2d(lambda kw, b: cdiv(kw["n"], b[0]), lambda kw, b: cdiv(kw["m"], b[1])), ((16, 16, 1), (32, 8, 1)),
      ("naive", "restrict"), baseline=True),
    K("hgemm_wmma_warp", "hw_hgemm", "wmma_warp_global", "hgemm_wmma_warp", "tensor_core",
      grid2d(lambda kw, b: cdiv(kw["n"], 64), lambda kw, b: cdiv(kw["m"], 16)), B1(128),
      ("tensor_core", "macro", "launch_bounds", "restrict")),
    K("hgemm_wmma_smem", "hw_hgemm", "wmma_smem_skew", "hgemm_wmma_smem", "device_helper",
      grid2d(lambda kw, b: cdiv(kw["n"], 64), lambda kw, b: cdiv(kw["m"], 64)), B1(128),
      ("device_helper", "tensor_core", "macro", "half_vector", "static_smem", "launch_bounds", "restrict")),
    K("hgemm_wmma_t", "hw_hgemm", "wmma_template_unpadded", "hgemm_wmma_t<128, 128>", "template",
      grid2d(lambda kw, b: cdiv(kw["n"], 128), lambda kw, b: cdiv(kw["m"], 128)), B1(256),
      ("template", "tensor_core", "bank_conflict", "int4_vector", "static_smem", "launch_bounds", "unroll",
       "restrict")),
)
