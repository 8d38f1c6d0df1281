"""Where the CUDA pieces live on this machine: headers, NVRTC, ncu, the GPU's arch.

Everything here is cheap and touches no GPU context, so the parent process can
call it before it spawns the GPU worker.
"""
from __future__ import annotations

import glob
import os
import shutil
import subprocess
from functools import lru_cache
from pathlib import Path


class ToolkitError(RuntimeError):
    """A CUDA component this run needs is missing."""


def _has_cuda_headers(path: Path) -> bool:
    return (path / "cuda_fp16.h").is_file() and (path / "cuda_runtime.h").is_file()


@lru_cache(maxsize=1)
def cuda_include_dir() -> str | None:
    """The CUDA toolkit's include folder (for cuda_fp16.h, cuda_bf16.h, cooperative_groups.h).

    Tried in order: $CUDA_HOME / $CUDA_PATH, the folder above the nvcc on PATH,
    cuda-pathfinder (pip-installed headers), /usr/local/cuda. None when absent:
    NVRTC still compiles sources that include nothing.
    """
    candidates: list[Path] = []
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            candidates.append(Path(os.environ[var]) / "include")
    nvcc = shutil.which("nvcc")
    if nvcc:
        candidates.append(Path(nvcc).resolve().parent.parent / "include")
        # nvcc from a targets/ layout
        candidates.append(Path(nvcc).resolve().parent.parent / "targets" / "x86_64-linux" / "include")
    try:
        from cuda import pathfinder  # type: ignore

        found = pathfinder.find_nvidia_header_directory("cudart")
        if found:
            candidates.append(Path(found))
    except Exception:  # pathfinder absent or too old: the other candidates still apply
        pass
    candidates.append(Path("/usr/local/cuda/include"))
    for path in candidates:
        if _has_cuda_headers(path):
            return str(path)
    return None


@lru_cache(maxsize=1)
def nvrtc_version() -> str:
    """NVRTC's version as "major.minor"; raises ToolkitError without cuda-bindings."""
    try:
        from cuda.bindings import nvrtc
    except ImportError as exc:
        raise ToolkitError("cuda-bindings is not installed (pip install 'cuda-bindings>=12.8' nvidia-cuda-nvrtc)") from exc
    err, major, minor = nvrtc.nvrtcVersion()
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise ToolkitError(f"nvrtcVersion failed: {err}")
    return f"{major}.{minor}"


def have_nvrtc() -> bool:
    try:
        nvrtc_version()
        return True
    except Exception:
        return False


def ncu_path() -> str | None:
    """The Nsight Compute CLI: $NCU, ncu on PATH, the CUDA toolkit's, or /opt/nvidia."""
    if os.environ.get("NCU") and Path(os.environ["NCU"]).is_file():
        return os.environ["NCU"]
    found = shutil.which("ncu")
    if found:
        return found
    for pattern in ("/usr/local/cuda/bin/ncu", "/usr/local/cuda*/bin/ncu", "/opt/nvidia/nsight-compute/*/ncu"):
        hits = sorted(glob.glob(pattern))
        if hits:
            return hits[-1]
    return None


def nvidia_smi(query: str) -> list[str] | None:
    """One nvidia-smi --query-gpu row for GPU 0, split on commas; None without a GPU."""
    exe = shutil.which("nvidia-smi")
    if not exe:
        return None
    try:
        out = subprocess.run(
            [exe, f"--query-gpu={query}", "--format=csv,noheader,nounits", "-i", "0"],
            capture_output=True, text=True, timeout=20,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0 or not out.stdout.strip():
        return None
    return [part.strip() for part in out.stdout.strip().splitlines()[0].split(",")]


def gpu_arch() -> str | None:
    """'sm_90' for the GPU 0 (from nvidia-smi, no CUDA context); None without one."""
    row = nvidia_smi("compute_cap")
    if not row or not row[0] or "." not in row[0]:
        return None
    major, minor = row[0].split(".", 1)
    return f"sm_{major}{minor}"


def has_gpu() -> bool:
    return gpu_arch() is not None
