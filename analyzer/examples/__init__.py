"""Example kernels shipped with the package: `make demo` lints them."""
from pathlib import Path

DIR = Path(__file__).resolve().parent
