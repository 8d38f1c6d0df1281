"""Floating point: double precision sneaking into float kernels."""
from __future__ import annotations

import re

from ..fix import Edit
from . import KernelContext, rule

_ARITH_PARENTS = re.compile(r"[-+*/<>]")


@rule("FP501", "double-in-float-kernel", "warning",
      "Double-precision arithmetic in a kernel that works in float.",
      """
      What it does
          In kernels that use float and declare no double data, flags unsuffixed floating literals
          (`1.0`, `0.5`, `1e-5`) used in arithmetic, and double math calls (`sqrt`, `exp`, ...)
          whose argument is promoted to double by such a literal. Arithmetic on numbers alone
          whose value is stored (`float third = 1.0 / 3;`) is folded by the compiler and left
          alone; combined with a variable (`x * (1.0 / 3)`) it is not. So is one operation of a
          float with a literal that float holds exactly whose result is a float at once: nvcc
          does it in FP32 (`y = x / 2.0;`, `x > .5`, `y *= 0.5;`, `return x > 0 ? 1 : .01;` in a
          float function, `expf(x * 0.5)`, `(float)(x * 0.5)`, `(x > 0) + .1`). It does not
          for a chain (`0.5 * x * y`, `y += x * 0.5`), an int operand (`i * 0.5`) or an inexact
          literal (`x * 0.1`). tests/test_fp501_nvcc.py checks these against nvcc's PTX.

          math.h's constants (`M_PI`, `M_SQRT1_2`) are doubles too: `2.f * M_PI * k` is FP64
          (write `(float)M_PI`). A CUDA float vector's arithmetic (`v * 0.7071` of a float2) is an
          operator the file defines, whose float parameter takes the constant converted once:
          not reported.

      Why is this bad?
          `x * 0.5` with float x converts x to double, multiplies in FP64 and converts back.
          FP64 throughput is 1/2 of FP32 on an H100/H200 and 1/64 on consumer GPUs, and the
          conversions cost instructions too.

      Example
          y[i] = 0.5 * x[i] * (1.0 + tanhf(x[i]));

      Use instead
          y[i] = 0.5f * x[i] * (1.0f + tanhf(x[i]));

      `lint --fix` writes the `f` (`1.0` -> `1.0f`, `2.0L` -> `2.0f`).
      """, fixable=True)
def double_in_float(ctx: KernelContext, r):
    acc = ctx.accesses
    if acc.uses_double or not acc.uses_float:
        return
    if any(p.type in ("double", "double2") for p in ctx.kernel.params):
        return
    # `float y = 0.0;`, `real div = 1.0 / 3;` and `y = x / 2.0` compile to no FP64
    fp64 = [lit for lit in acc.float_literals if not (lit.folded or lit.narrowed)
            and _ARITH_PARENTS.search(lit.context.replace(lit.text, "", 1))]
    for lit in fp64:
        constant = _MATH_CONSTANT.fullmatch(lit.text) is not None     # math.h's `M_PI` itself
        # `2.0L` (long double: FP64 on the GPU) -> `2.0f`; `M_PI` -> `(float)M_PI`
        single = f"(float){lit.text}" if constant else lit.text.rstrip("lL") + "f"
        # math.h's constants are doubles too: `2.0f * M_PI` still computes in FP64
        if constant and any(o is not lit and o.line == lit.line and lit.text in o.context
                            and not _MATH_CONSTANT.fullmatch(o.text) for o in fp64):
            continue    # `2.0 * M_PI`: the literal's finding names `(float)M_PI` already
        constants = sorted(set(_MATH_CONSTANT.findall(lit.context)) - {lit.text})
        also = f", and `(float){constants[0]}` ({constants[0]} is a double too)" if constants else ""
        what = "math.h's double constant" if constant else "double literal"
        yield ctx.finding(r, lit.line, lit.col,
                          f"{what} `{lit.text}` in `{lit.context[:60]}` makes the arithmetic FP64; "
                          f"write `{single}`{also}", fix=(Edit(lit.line, lit.col, lit.text, single),), literal=lit.text)


_MATH_CONSTANT = re.compile(r"\bM_[A-Z0-9_]+\b")
