"""Code the parser could not read."""
from __future__ import annotations

from . import FileContext, Finding, rule


@rule("PA001", "parse-error", "info",
      "Code the CUDA parser could not read; the analysis skipped it.",
      """
      What it does
          Reports regions of the file that tree-sitter-cuda could not parse (often macros it
          cannot expand, or code that does not compile). Everything else is still analyzed.

      Why is this bad?
          Findings inside the region are missing, so a clean result there means less.

      Example
          MY_MACRO_THAT_EXPANDS_TO_A_FUNCTION_HEADER(kernel) { ... }

      Use instead
          Nothing to change if the code compiles; suppress with `// cudaperf: ignore-file[PA001]`,
          or write the qualifiers out where the macro hides them.
      """, scope="file")
def parse_errors(ctx: FileContext, r):
    for e in ctx.program.errors:
        span = f"line {e.line}" if e.end_line == e.line else f"lines {e.line}-{e.end_line}"
        yield Finding(r.code, r.name, r.severity, f"{e.message} ({span}) was skipped by the analysis",
                      ctx.program.path, e.line, e.col, "", {"end_line": e.end_line})
