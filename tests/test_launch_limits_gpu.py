"""The launch limits that OC603, OC604 and the reward's launch gate state, on a real GPU: a block of
more threads than the kernel's `__launch_bounds__`, and more than 48 KB of shared memory a block
without the kernel's opt-in, fail the launch. Skipped without a GPU."""
from __future__ import annotations

import ctypes

import pytest

from analyzer.profile import toolkit

pytestmark = pytest.mark.gpu

if not toolkit.has_gpu() or not toolkit.have_nvrtc():
    pytest.skip("needs an NVIDIA GPU and cuda-bindings", allow_module_level=True)

from analyzer.profile import build  # noqa: E402
from analyzer.profile.runner import Device, ck  # noqa: E402

SOURCE = r"""
extern "C" __global__ void __launch_bounds__(128) bounded(float* y) { y[threadIdx.x] = 1.0f; }
extern "C" __global__ void tiled(float* y) {
    extern __shared__ float t[];
    t[threadIdx.x] = 1.0f;
    __syncthreads();
    y[threadIdx.x] = t[threadIdx.x];
}
"""


@pytest.fixture(scope="module")
def gpu(tmp_path_factory):
    from cuda.bindings import driver as cu

    device = Device(with_check=False)
    functions = {}
    for name in ("bounded", "tiled"):
        built = build.build(SOURCE, name, arch=device.info["arch"], cache_dir=str(tmp_path_factory.mktemp(name)))
        assert built.ok, built.log
        functions[name] = ck("cuModuleGetFunction", cu.cuModuleGetFunction(device._load_module(built.cubin_path),
                                                                          built.lowered_name.encode()))
    y = ck("cuMemAlloc", cu.cuMemAlloc(4 * 1024))
    yield cu, functions, y
    cu.cuMemFree(y)


def _launch(cu, fn, y, threads: int, smem: int = 0):
    """The CUresult of one launch of `threads` threads and `smem` bytes of dynamic shared memory
    (and of the synchronization after it, where the launch was taken)."""
    arg = ctypes.c_uint64(int(y))
    params = (ctypes.c_void_p * 1)(ctypes.addressof(arg))
    (err,) = cu.cuLaunchKernel(fn, 1, 1, 1, threads, 1, 1, smem, 0, ctypes.addressof(params), 0)
    if err == cu.CUresult.CUDA_SUCCESS:
        (err,) = cu.cuCtxSynchronize()
    return err


def test_a_block_over_the_launch_bounds_does_not_launch(gpu):
    cu, fn, y = gpu
    assert _launch(cu, fn["bounded"], y, 128) == cu.CUresult.CUDA_SUCCESS
    assert _launch(cu, fn["bounded"], y, 256) != cu.CUresult.CUDA_SUCCESS


def test_more_than_48_kb_of_shared_memory_needs_the_opt_in(gpu):
    cu, fn, y = gpu
    assert _launch(cu, fn["tiled"], y, 256, 48 * 1024) == cu.CUresult.CUDA_SUCCESS
    assert _launch(cu, fn["tiled"], y, 256, 64 * 1024) == cu.CUresult.CUDA_ERROR_INVALID_VALUE
    attr = cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
    ck("cuFuncSetAttribute", cu.cuFuncSetAttribute(fn["tiled"], attr, 64 * 1024))
    assert _launch(cu, fn["tiled"], y, 256, 64 * 1024) == cu.CUresult.CUDA_SUCCESS
