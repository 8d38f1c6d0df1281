"""cudaperf's analyzer: static performance analysis of CUDA source.

`python -m analyzer lint PATH...` is the command-line entry point; the
library entry point is `analyzer.lint.lint_source`.
"""
from . import _fresh

_fresh.install()   # an edited source runs, not a compiled module built before the edit


class ParserUnavailable(RuntimeError):
    """The tree-sitter CUDA grammar cannot be loaded (missing or incompatible install)."""


__all__ = ["ParserUnavailable"]
