"""The runner: load a cubin, set up buffers, launch, check and time, through the driver API.

Runs inside the GPU worker process (worker.py) or the ncu child (counters.py),
never in the parent. One `Device` per process: CUDA is initialised once and
reused for thousands of samples; a sample that kills the context ("sticky"
errors such as an illegal address) is reported with `context_dead=True` and
the parent starts a fresh worker.
"""
from __future__ import annotations

import ctypes
import os
import tempfile
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from . import build, checkkernel, problems
from .records import Job
from .spec import Buffer, Scalar

_SCALAR_CTYPES = {
    "float32": ctypes.c_float, "float64": ctypes.c_double, "int32": ctypes.c_int32,
    "uint32": ctypes.c_uint32, "int64": ctypes.c_int64, "uint8": ctypes.c_uint8, "int8": ctypes.c_int8,
}
_ITEMSIZE = {"float32": 4, "float64": 8, "float16": 2, "bfloat16": 2, "int32": 4, "uint32": 4,
             "int64": 8, "uint8": 1, "int8": 1}


@dataclass(frozen=True)
class Timing:
    """How one sample is timed. reps adapts: short kernels get up to max_reps,
    long ones no fewer than min_reps (about target_s of kernel time in all)."""

    warmup: int = 2
    min_reps: int = 20
    max_reps: int = 50
    target_s: float = 0.02
    cold_l2: bool = True
    flush_bytes: int = 256 << 20    # > 60 MB of L2 on an H200

    def reps_for(self, estimate_ms: float) -> int:
        if not estimate_ms > 0:
            return self.max_reps
        return int(min(self.max_reps, max(self.min_reps, self.target_s * 1e3 / estimate_ms)))


class CudaError(RuntimeError):
    def __init__(self, call: str, code: Any):
        self.call, self.code = call, code
        super().__init__(f"{call}: {getattr(code, 'name', code)}")


def _cu():
    from cuda.bindings import driver
    return driver


def ck(call: str, result: Any) -> Any:
    """Unpack a cuda-bindings (err, value...) tuple, raising CudaError on failure."""
    cu = _cu()
    err = result[0]
    if err != cu.CUresult.CUDA_SUCCESS:
        raise CudaError(call, err)
    if len(result) == 1:
        return None
    return result[1] if len(result) == 2 else result[1:]


def poison_pattern(dtype: str) -> tuple[int, int]:
    """(memset width in bytes, value) that fills an output with NaN (floats) or 0xFF bytes (ints).

    float64 gets 0x7FF80000 repeated, which reads as a NaN double."""
    return {
        "float32": (4, 0x7FC00000), "float64": (4, 0x7FF80000),
        "float16": (2, 0x7E00), "bfloat16": (2, 0x7FC0),
    }.get(dtype, (1, 0xFF))


class _Pool:
    """Free device allocations by size, so variants of one size reuse their buffers."""

    def __init__(self) -> None:
        self.free: dict[int, list[Any]] = {}
        self.live: list[Any] = []

    def take(self, nbytes: int) -> Any:
        stack = self.free.get(nbytes)
        if stack:
            return stack.pop()
        ptr = ck("cuMemAlloc", _cu().cuMemAlloc(nbytes))
        self.live.append(ptr)
        return ptr

    def give(self, nbytes: int, ptr: Any) -> None:
        self.free.setdefault(nbytes, []).append(ptr)

    def release(self) -> None:
        cu = _cu()
        for ptr in self.live:
            cu.cuMemFree(ptr)
        self.free.clear()
        self.live.clear()


@dataclass
class _DeviceProblem:
    key: str
    dir: str
    arrays: dict[tuple[str, str], Any]  # (kind, name) -> device pointer of the pristine copy
    nbytes: int
    pool: _Pool


class Device:
    """One CUDA context with a stream, events, an L2-flush buffer and the check kernels."""

    def __init__(self, with_check: bool = True, keep_problems: int = 2, cache_dir: str | None = None) -> None:
        cu = _cu()
        ck("cuInit", cu.cuInit(0))
        self.dev = ck("cuDeviceGet", cu.cuDeviceGet(0))
        self.ctx = ck("cuDevicePrimaryCtxRetain", cu.cuDevicePrimaryCtxRetain(self.dev))
        ck("cuCtxSetCurrent", cu.cuCtxSetCurrent(self.ctx))
        self.stream = ck("cuStreamCreate", cu.cuStreamCreate(int(cu.CUstream_flags.CU_STREAM_NON_BLOCKING)))
        attr = cu.CUdevice_attribute
        major = ck("attr", cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, self.dev))
        minor = ck("attr", cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, self.dev))
        name = ck("cuDeviceGetName", cu.cuDeviceGetName(256, self.dev))
        self.info = {
            "gpu": name.split(b"\x00")[0].decode(errors="replace"),
            "arch": f"sm_{major}{minor}",
            "driver_cuda": ck("cuDriverGetVersion", cu.cuDriverGetVersion()),
            "sms": ck("attr", cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, self.dev)),
        }
        self.cache_dir = cache_dir
        self.keep_problems = keep_problems
        self.problems: OrderedDict[str, _DeviceProblem] = OrderedDict()
        self.events: list[Any] = []
        self.flush_ptr = None
        self.flush_bytes = 0
        self.check_fns: dict[str, Any] = {}
        self.res_ptr = None
        if with_check:
            self._load_check_kernels()

    # ---- set-up -------------------------------------------------------------
    def _load_check_kernels(self) -> None:
        cu = _cu()
        built = build.build(checkkernel.source(), checkkernel.kernel_name("float32"), arch=self.info["arch"],
                            cache_dir=self.cache_dir)
        if not built.ok:
            raise RuntimeError("the output-check kernels do not compile: " + built.log[:500])
        module = self._load_module(built.cubin_path)
        for dtype in _ITEMSIZE:
            self.check_fns[dtype] = ck("cuModuleGetFunction",
                                       cu.cuModuleGetFunction(module, checkkernel.kernel_name(dtype).encode()))
        self.res_ptr = ck("cuMemAlloc", cu.cuMemAlloc(32))

    def _load_module(self, cubin_path: str) -> Any:
        with open(cubin_path, "rb") as f:
            image = np.frombuffer(f.read(), dtype=np.uint8).copy()
        return ck("cuModuleLoadData", _cu().cuModuleLoadData(image.ctypes.data))

    def _flush_buffer(self, nbytes: int) -> Any:
        if self.flush_bytes < nbytes:
            cu = _cu()
            if self.flush_ptr is not None:
                cu.cuMemFree(self.flush_ptr)
            self.flush_ptr = ck("cuMemAlloc", cu.cuMemAlloc(nbytes))
            self.flush_bytes = nbytes
        return self.flush_ptr

    def _event_pairs(self, n: int) -> list[Any]:
        cu = _cu()
        while len(self.events) < 2 * n:
            self.events.append(ck("cuEventCreate", cu.cuEventCreate(int(cu.CUevent_flags.CU_EVENT_DEFAULT))))
        return self.events

    def problem(self, key: str, dir: str) -> _DeviceProblem:
        """The problem's pristine inputs and expected outputs on the device (LRU)."""
        if key in self.problems:
            self.problems.move_to_end(key)
            return self.problems[key]
        while len(self.problems) >= self.keep_problems:
            self._drop(next(iter(self.problems)))
        cu = _cu()
        arrays: dict[tuple[str, str], Any] = {}
        total = 0
        for fname in sorted(os.listdir(dir)):
            if not fname.endswith(".npy"):
                continue
            kind, _, name = fname[:-4].partition("__")
            host = np.load(os.path.join(dir, fname), mmap_mode="r")
            nbytes = max(int(host.nbytes), 1)
            ptr = ck("cuMemAlloc", cu.cuMemAlloc(nbytes))
            if host.nbytes:
                ck("cuMemcpyHtoD", cu.cuMemcpyHtoD(ptr, np.ascontiguousarray(host).ctypes.data, host.nbytes))
            arrays[(kind, name)] = ptr
            total += nbytes
        entry = _DeviceProblem(key, dir, arrays, total, _Pool())
        self.problems[key] = entry
        return entry

    def _drop(self, key: str) -> None:
        entry = self.problems.pop(key)
        cu = _cu()
        for ptr in entry.arrays.values():
            cu.cuMemFree(ptr)
        entry.pool.release()

    # ---- one sample ---------------------------------------------------------
    def prepare_buffers(self, job: Job, prob: _DeviceProblem) -> tuple[dict[str, Any], list[Any]]:
        """Allocate the job's buffers and fill inputs; returns (name -> ptr, kernel arg objects)."""
        ptrs: dict[str, Any] = {}
        cargs: list[Any] = []
        for arg in job.args:
            if isinstance(arg, Buffer):
                ptr = prob.pool.take(arg.size * _ITEMSIZE[arg.dtype])
                ptrs[arg.name] = ptr
                cargs.append(ctypes.c_uint64(int(ptr)))
            elif isinstance(arg, Scalar):
                cargs.append(scalar_ctype(arg))
            else:
                raise TypeError(f"unknown argument {arg!r}")
        return ptrs, cargs

    def fill(self, job: Job, prob: _DeviceProblem, ptrs: dict[str, Any], poison: bool) -> None:
        """Inputs from their pristine copies, outputs poisoned, zero buffers zeroed."""
        cu = _cu()
        for buf in job.buffers:
            nbytes = buf.size * _ITEMSIZE[buf.dtype]
            ptr = ptrs[buf.name]
            if buf.role in ("in", "inout"):
                ck("cuMemcpyDtoDAsync", cu.cuMemcpyDtoDAsync(ptr, prob.arrays[("in", buf.name)], nbytes, self.stream))
            elif buf.role == "zero":
                ck("cuMemsetD8Async", cu.cuMemsetD8Async(ptr, 0, nbytes, self.stream))
            elif buf.role == "out" and poison:
                width, value = poison_pattern(buf.dtype)
                fn = {1: cu.cuMemsetD8Async, 2: cu.cuMemsetD16Async, 4: cu.cuMemsetD32Async}[width]
                ck("cuMemset", fn(ptr, value, nbytes // width, self.stream))

    def zero(self, job: Job, ptrs: dict[str, Any]) -> None:
        cu = _cu()
        for buf in job.buffers:
            if buf.role == "zero":
                ck("cuMemsetD8Async", cu.cuMemsetD8Async(ptrs[buf.name], 0, buf.size * _ITEMSIZE[buf.dtype], self.stream))

    def launch(self, fn: Any, job: Job, params: Any) -> None:
        cu = _cu()
        ck("cuLaunchKernel", cu.cuLaunchKernel(fn, *job.grid, *job.block, job.smem, self.stream,
                                               ctypes.addressof(params), 0))

    def sync(self) -> None:
        ck("cuStreamSynchronize", _cu().cuStreamSynchronize(self.stream))

    def check(self, job: Job, prob: _DeviceProblem, ptrs: dict[str, Any]) -> dict[str, float]:
        """Compare every out/inout/zero buffer with its expected values on the GPU."""
        cu = _cu()
        bad = nan = total = 0
        mabs = mrel = 0.0
        host = np.zeros(4, dtype=np.uint64)
        for buf in job.buffers:
            if buf.role not in ("out", "inout", "zero"):
                continue
            ck("cuMemsetD8Async", cu.cuMemsetD8Async(self.res_ptr, 0, 32, self.stream))
            cargs = [ctypes.c_uint64(int(ptrs[buf.name])), ctypes.c_uint64(int(prob.arrays[("exp", buf.name)])),
                     ctypes.c_uint64(buf.size), ctypes.c_double(job.atol), ctypes.c_double(job.rtol),
                     ctypes.c_uint64(int(self.res_ptr))]
            params = _param_array(cargs)
            blocks = max(1, min((buf.size + 255) // 256, self.info["sms"] * 8))
            ck("cuLaunchKernel(check)", cu.cuLaunchKernel(self.check_fns[buf.dtype], blocks, 1, 1, 256, 1, 1, 0,
                                                          self.stream, ctypes.addressof(params), 0))
            self.sync()
            ck("cuMemcpyDtoH", cu.cuMemcpyDtoH(host.ctypes.data, self.res_ptr, 32))
            bad += int(host[0])
            nan += int(host[1])
            total += buf.size
            mabs = max(mabs, float(host[2:3].view(np.float64)[0]))
            mrel = max(mrel, float(host[3:4].view(np.float64)[0]))
        return {"bad": bad, "nan": nan, "total": total, "max_abs_err": mabs, "max_rel_err": mrel,
                "frac_wrong": bad / total if total else 0.0}

    def load_kernel(self, cubin_path: str, lowered: str, smem: int) -> tuple[Any, Any, dict[str, int]]:
        cu = _cu()
        module = self._load_module(cubin_path)
        fn = ck("cuModuleGetFunction", cu.cuModuleGetFunction(module, lowered.encode()))
        fa = cu.CUfunction_attribute
        if smem > 48 * 1024:
            ck("cuFuncSetAttribute(max dynamic smem)",
               cu.cuFuncSetAttribute(fn, fa.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem))
        attrs = {
            "registers": ck("attr", cu.cuFuncGetAttribute(fa.CU_FUNC_ATTRIBUTE_NUM_REGS, fn)),
            "static_smem": ck("attr", cu.cuFuncGetAttribute(fa.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn)),
            "local_bytes": ck("attr", cu.cuFuncGetAttribute(fa.CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fn)),
        }
        return module, fn, attrs

    def context_alive(self) -> bool:
        try:
            ck("cuCtxSynchronize", _cu().cuCtxSynchronize())
            return True
        except CudaError:
            return False

    def run(self, job: Job, cubin_path: str, lowered: str, problem_dir: str, timing: Timing,
            started: Callable[[], None] = lambda: None) -> dict[str, Any]:
        """Check then time one job. Returns the Measurement fields as a dict, plus context_dead."""
        cu = _cu()
        t0 = time.perf_counter()
        out: dict[str, Any] = {"status": "ok", "message": "", "context_dead": False}
        phase = "load"
        module = None
        ptrs: dict[str, Any] = {}
        prob = None
        try:
            problem_error = problems.validate(problem_dir, job.buffers)
            if problem_error:
                return {**out, "status": "input_error", "message": problem_error, "run_s": time.perf_counter() - t0}
            prob = self.problem(job.problem_key, problem_dir)
            module, fn, attrs = self.load_kernel(cubin_path, lowered, job.smem)
            out.update(attrs)
            phase = "setup"
            ptrs, cargs = self.prepare_buffers(job, prob)
            params = _param_array(cargs)
            self.fill(job, prob, ptrs, poison=True)
            self.sync()
            started()
            phase = "launch"
            self.launch(fn, job, params)
            phase = "sync"
            self.sync()
            phase = "check"
            result = self.check(job, prob, ptrs)
            out.update(max_abs_err=result["max_abs_err"], max_rel_err=result["max_rel_err"],
                       frac_wrong=result["frac_wrong"])
            if result["bad"]:
                out.update(status="wrong_result",
                           message=f"{result['bad']} of {result['total']} elements wrong ({result['nan']} NaN/unwritten), "
                                   f"max abs err {result['max_abs_err']:.3g}, max rel err {result['max_rel_err']:.3g}")
                return out
            phase = "time"
            out.update(self.time(fn, job, ptrs, params, timing))
            return out
        except CudaError as exc:
            dead = not self.context_alive()
            status = "crash" if dead or phase in ("sync", "time", "check") else "launch_error"
            out.update(status=status, message=f"{phase}: {exc}", context_dead=dead)
            return out
        except Exception as exc:  # a bug of ours or a bad job: costs this sample only
            out.update(status="launch_error", message=f"{phase}: {type(exc).__name__}: {exc}".splitlines()[0],
                       context_dead=not self.context_alive())
            return out
        finally:
            out["run_s"] = time.perf_counter() - t0
            if not out["context_dead"]:
                if module is not None:
                    cu.cuModuleUnload(module)
                if prob is not None:
                    for buf in job.buffers:
                        if buf.name in ptrs:
                            prob.pool.give(buf.size * _ITEMSIZE[buf.dtype], ptrs[buf.name])

    def time(self, fn: Any, job: Job, ptrs: dict[str, Any], params: Any, timing: Timing) -> dict[str, Any]:
        """Median/p10/p90 of event-timed launches, each after a cold-L2 flush (outside the events)."""
        cu = _cu()
        flush = self._flush_buffer(timing.flush_bytes) if timing.cold_l2 else None

        def timed(n: int) -> np.ndarray:
            events = self._event_pairs(n)
            for i in range(n):
                self.zero(job, ptrs)
                if flush is not None:
                    ck("cuMemsetD32Async", cu.cuMemsetD32Async(flush, i + 1, timing.flush_bytes // 4, self.stream))
                ck("cuEventRecord", cu.cuEventRecord(events[2 * i], self.stream))
                self.launch(fn, job, params)
                ck("cuEventRecord", cu.cuEventRecord(events[2 * i + 1], self.stream))
            self.sync()
            return np.array([ck("cuEventElapsedTime", cu.cuEventElapsedTime(events[2 * i], events[2 * i + 1]))
                             for i in range(n)], dtype=np.float64)

        estimate = float(np.min(timed(max(1, timing.warmup))))
        reps = timing.reps_for(estimate)
        times = timed(reps)
        return {"time_ms": float(np.median(times)), "p10_ms": float(np.percentile(times, 10)),
                "p90_ms": float(np.percentile(times, 90)), "mean_ms": float(np.mean(times)), "reps": reps}

    def launch_once(self, job: Job, cubin_path: str, lowered: str, problem_dir: str) -> None:
        """Set up and launch once (for the ncu child): no check, no timing, no other kernels."""
        prob = self.problem(job.problem_key, problem_dir)
        module, fn, _ = self.load_kernel(cubin_path, lowered, job.smem)
        ptrs, cargs = self.prepare_buffers(job, prob)
        try:
            params = _param_array(cargs)
            self.fill(job, prob, ptrs, poison=True)
            self.sync()
            self.launch(fn, job, params)
            self.sync()
        finally:
            _cu().cuModuleUnload(module)
            for buf in job.buffers:
                prob.pool.give(buf.size * _ITEMSIZE[buf.dtype], ptrs[buf.name])


def scalar_ctype(arg: Scalar) -> Any:
    if arg.dtype in _SCALAR_CTYPES:
        return _SCALAR_CTYPES[arg.dtype](arg.value)
    if arg.dtype == "float16":
        return ctypes.c_uint16(int(np.array(arg.value, dtype=np.float16).view(np.uint16)))
    if arg.dtype == "bfloat16":
        from .spec import f32_to_bf16
        return ctypes.c_uint16(int(f32_to_bf16(np.array([arg.value], dtype=np.float32))[0]))
    raise ValueError(f"scalar {arg.name}: unsupported dtype {arg.dtype}")


def _param_array(cargs: list[Any]) -> Any:
    """The void*[] cuLaunchKernel wants; it keeps the argument objects alive."""
    arr = (ctypes.c_void_p * max(1, len(cargs)))(*[ctypes.addressof(c) for c in cargs])
    arr._keep = cargs  # type: ignore[attr-defined]
    return arr


def default_work_dir() -> str:
    return os.environ.get("CUDAPERF_WORK") or tempfile.gettempdir()
