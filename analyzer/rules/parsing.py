"""Code the parser could not read."""
from __future__ import annotations

import re

from . import FileContext, Finding, rule

# what an unreadable region outside any function must hold to hide something the analysis reads
_DEVICE_CODE = re.compile(rb"__global__|__device__|__shared__|__launch_bounds__|threadIdx|blockIdx|<<<|cudaLaunch")


@rule("PA001", "parse-error", "info",
      "Code the CUDA parser could not read; the analysis skipped it.",
      """
      What it does
          Reports regions of the file that tree-sitter-cuda could not parse (often macros it
          cannot expand, or code that does not compile: a missing `;` or `)` in a kernel) and
          tokens it had to assume. Everything else is still analyzed.
          A region inside a host function that holds no kernel launch is not reported (a
          statement macro without `;`, `TORCH_CHECK(...)` say), nor one outside every function
          that holds no launch and no device code (`SPECIALIZED_IMPL(float)` instantiating a
          template, a framework's `PD_REGISTER_KERNEL(...) {...}`): it hides nothing the
          analysis reads.

      Why is this bad?
          Findings inside the region are missing, so a clean result there means less.

      Example
          MY_MACRO_THAT_EXPANDS_TO_A_FUNCTION_HEADER(kernel) { ... }

      Use instead
          Nothing to change if the code compiles; suppress with `// cudaperf: ignore-file[PA001]`,
          or write the qualifiers out where the macro hides them.
      """, scope="file")
def parse_errors(ctx: FileContext, r):
    for e in hiding_errors(ctx.program):
        span = f"line {e.line}" if e.end_line == e.line else f"lines {e.line}-{e.end_line}"
        if e.message.startswith("missing "):     # a token tree-sitter assumed: nothing skipped, the code is read on
            message = f"`{e.message[8:]}` expected ({span}): the analysis read on as if it were there"
        else:
            message = f"{e.message} ({span}) was skipped by the analysis"
        yield Finding(r.code, r.name, r.severity, message, ctx.program.path, e.line, e.col, "", {"end_line": e.end_line})


def hiding_errors(program) -> list:
    """The parse errors that may hide what the analysis reads (PA001's, and the reward's parse gate's):
    those in or just before a kernel or device function, and those elsewhere whose region holds a
    launch or device code."""
    out = []
    lines = None
    fns = program.functions
    for e in program.errors:
        # inside a kernel or device function, or just before one (its template, qualifiers, bounds)
        if not any(f.kind != "host" and f.line - 1 <= e.end_line and e.line <= f.end_line for f in fns):
            in_host = any(f.kind == "host" and f.line < e.line and e.end_line <= f.end_line for f in fns)
            # a function whose head is unreadable is read with its body: a kernel behind an
            # unknown qualifier macro looks like host code, and its body tells
            end = max([e.end_line] + [f.end_line for f in fns if e.line <= f.line <= e.end_line])
            lines = lines if lines is not None else program.source.split(b"\n")
            text = b"\n".join(lines[e.line - 1:end])
            if b"<<<" not in text and b"cudaLaunch" not in text and (in_host or not _DEVICE_CODE.search(text)):
                continue
        out.append(e)
    return out


@rule("PA002", "unused-launch-annotation", "warning",
      "A `// cudaperf: launch` annotation that could not be read or names no kernel; its launch is not used.",
      """
      What it does
          Reports a launch annotation (`// cudaperf: launch block=16,16 n=4096`, see
          analyzer/annotations.py) that the analyzer could not use: a value that is not a
          constant, a block beyond CUDA's limits, a parameter the kernel does not have, a pointer
          given a value, a name that is no kernel of the file, an unnamed annotation whose next
          function is not a kernel, a second annotation for one kernel.

      Why is this bad?
          The kernel is estimated at the launch the file shows or at defaults (256 threads, sizes
          of 4096), not at the one the annotation meant, and nothing else says so.

      Example
          // cudaperf: launch block=16,16 nn=4096
          __global__ void scale(float* x, int n) { ... }

      Use instead
          // cudaperf: launch block=16,16 n=4096
          __global__ void scale(float* x, int n) { ... }
      """, scope="file")
def unused_launch_annotations(ctx: FileContext, r):
    for p in ctx.launch_problems:
        yield Finding(r.code, r.name, r.severity, p.message, ctx.program.path, p.line, p.col)
