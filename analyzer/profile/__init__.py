"""The dynamic half of the analyzer: compile, run, check, time and count on a real GPU.

Importing this package is cheap; the CUDA bindings load only when a builder or
runner is used, so machines without a GPU can still read the launch specs.
"""
from .spec import Arg, Buffer, Problem, Scalar

__all__ = ["Arg", "Buffer", "Problem", "Scalar"]
