"""The builder: CUDA source -> cubin with NVRTC, cached on disk, in CPU worker processes.

No GPU is needed here (NVRTC is a library), so compilation runs on every core
while the single GPU worker measures: TVM's builder/runner split.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from . import toolkit
from ..cache import cache_root

DEFAULT_ARCH = "sm_90"


@dataclass(frozen=True)
class BuildResult:
    ok: bool
    key: str
    cubin_path: str = ""        # on-disk cubin (in the cache)
    lowered_name: str = ""      # the symbol to look up in the module
    log: str = ""
    compile_s: float = 0.0
    cached: bool = False
    resources: dict[str, int] = field(default_factory=dict)  # from the ptxas -v lines


def default_cache_dir() -> Path:
    return cache_root() / "cubins"


def compile_options(arch: str, include_dir: str | None, verbose_ptxas: bool = True, extra: tuple[str, ...] = ()) -> list[str]:
    """NVRTC options: a real arch (so NVRTC emits a cubin), C++17, the CUDA headers."""
    if not re.fullmatch(r"sm_\d+[a-z]?", arch):
        raise ValueError(f"arch must look like sm_90, got {arch!r}")
    opts = [f"--gpu-architecture={arch}", "--std=c++17"]
    if include_dir:
        opts.append(f"--include-path={include_dir}")
        # CUDA 13 keeps libcu++ (cuda/std/...), which cooperative_groups.h needs, in include/cccl
        cccl = os.path.join(include_dir, "cccl")
        if os.path.isdir(cccl):
            opts.append(f"--include-path={cccl}")
    if verbose_ptxas:
        opts.append("--ptxas-options=-v")
    opts.extend(extra)
    return opts


def cache_key(source: str, kernel: str, options: list[str], nvrtc: str) -> str:
    """sha256 of everything that changes the cubin: source, name expression, options, NVRTC version."""
    h = hashlib.sha256()
    for part in (source, kernel, "\x1f".join(options), nvrtc):
        h.update(part.encode())
        h.update(b"\x00")
    return h.hexdigest()


_FUNC = re.compile(r"Compiling entry function '([^']+)'")
_PROPS = re.compile(r"Function properties for (\S+)")
_STACK = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers")
_SMEM = re.compile(r"(\d+) bytes smem")


def parse_ptxas_log(log: str) -> dict[str, dict[str, int]]:
    """Per entry function: registers, spill stores/loads, stack and static shared bytes.

    ptxas -v prints, per function, a 'Compiling entry function' or 'Function
    properties for' header and then 'N bytes stack frame, ...' and 'Used N
    registers, ... M bytes smem'. Device functions get properties but no 'Used'.
    """
    out: dict[str, dict[str, int]] = {}
    current: str | None = None
    for line in log.splitlines():
        m = _FUNC.search(line) or _PROPS.search(line)
        if m:
            current = m.group(1)
            out.setdefault(current, {})
            continue
        if current is None:
            continue
        m = _STACK.search(line)
        if m:
            out[current].update(stack_bytes=int(m.group(1)), spill_stores=int(m.group(2)), spill_loads=int(m.group(3)))
        m = _USED.search(line)
        if m:
            out[current]["registers"] = int(m.group(1))
            sm = _SMEM.search(line)
            out[current]["static_smem"] = int(sm.group(1)) if sm else 0
    return {name: res for name, res in out.items() if res}


def _log(nvrtc, prog) -> str:
    err, size = nvrtc.nvrtcGetProgramLogSize(prog)
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS or size <= 1:
        return ""
    buf = b" " * size
    nvrtc.nvrtcGetProgramLog(prog, buf)
    return buf.rstrip(b"\x00").decode(errors="replace")


def _nvrtc_compile(source: str, kernel: str, options: list[str]) -> tuple[bool, bytes, str, str]:
    """(ok, cubin, lowered name, log). The name expression is registered for every
    kernel: for extern "C" kernels NVRTC lowers it to the name itself."""
    from cuda.bindings import nvrtc

    ok_code = nvrtc.nvrtcResult.NVRTC_SUCCESS
    err, prog = nvrtc.nvrtcCreateProgram(source.encode(), b"kernel.cu", 0, [], [])
    if err != ok_code:
        return False, b"", "", f"nvrtcCreateProgram failed: {err}"
    try:
        named = nvrtc.nvrtcAddNameExpression(prog, kernel.encode())[0] == ok_code
        (err,) = nvrtc.nvrtcCompileProgram(prog, len(options), [o.encode() for o in options])
        log = _log(nvrtc, prog)
        if err != ok_code:
            return False, b"", "", log or f"NVRTC error {err}"
        lowered = kernel
        if named:
            err, name = nvrtc.nvrtcGetLoweredName(prog, kernel.encode())
            if err == ok_code and name:
                lowered = name.decode() if isinstance(name, bytes) else str(name)
        err, size = nvrtc.nvrtcGetCUBINSize(prog)
        if err != ok_code or size == 0:
            return False, b"", "", log + f"\nno cubin (is the arch a real sm_XX?): {err}"
        cubin = b" " * size
        nvrtc.nvrtcGetCUBIN(prog, cubin)
        return True, cubin, lowered, log
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


def build(source: str, kernel: str, arch: str = DEFAULT_ARCH, cache_dir: str | os.PathLike | None = None,
          include_dir: str | None = "auto", extra: tuple[str, ...] = ()) -> BuildResult:
    """Compile one kernel (or take it from the cache). Safe to call in a worker process.

    Compile failures are cached too: they are as deterministic as successes.
    """
    inc = toolkit.cuda_include_dir() if include_dir == "auto" else include_dir
    options = compile_options(arch, inc, extra=extra)
    key = cache_key(source, kernel, options, toolkit.nvrtc_version())
    cache = Path(cache_dir) if cache_dir else default_cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    meta_path, cubin_path = cache / f"{key}.json", cache / f"{key}.cubin"
    if meta_path.is_file():
        try:
            meta = json.loads(meta_path.read_text())
            if not meta["ok"] or cubin_path.is_file():
                meta.update(cached=True, cubin_path=str(cubin_path) if meta["ok"] else "")
                return BuildResult(**meta)
        except (OSError, ValueError, KeyError, TypeError):
            pass  # a damaged cache entry is rebuilt
    start = time.perf_counter()
    ok, cubin, lowered, log = _nvrtc_compile(source, kernel, options)
    if not ok and "--ptxas-options=-v" in options and "ptxas-options" in log:
        # an NVRTC too old for ptxas options: build without the resource report
        options = [o for o in options if o != "--ptxas-options=-v"]
        ok, cubin, lowered, log = _nvrtc_compile(source, kernel, options)
    seconds = time.perf_counter() - start
    resources = parse_ptxas_log(log).get(lowered, {}) if ok else {}
    result = BuildResult(ok=ok, key=key, cubin_path=str(cubin_path) if ok else "", lowered_name=lowered,
                         log=log, compile_s=seconds, cached=False, resources=resources)
    # write cubin first, then the metadata that marks the entry complete (atomic renames)
    if ok:
        tmp = cubin_path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(cubin)
        os.replace(tmp, cubin_path)
    tmp = meta_path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps({k: v for k, v in asdict(result).items() if k not in ("cached", "cubin_path")}))
    os.replace(tmp, meta_path)
    return result
