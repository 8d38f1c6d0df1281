"""The CUDA source of the on-GPU output check, one extern "C" kernel per dtype.

Checking on the GPU keeps gigabyte outputs off the PCIe bus and out of numpy:
each thread compares a grid-stride slice with the rule of the corpus contract,
|out - exp| <= atol + rtol * |exp| and out not NaN, and one lane per warp folds
its counts and maxima into res[4] with atomics: bad, nan, max |out-exp|, max
|out-exp|/|exp| (non-negative doubles order like their bit patterns).
"""
from __future__ import annotations

# dtype -> (C type, expression turning element i of p into a double)
_LOADERS = {
    "float32": ("float", "(double)p[i]"),
    "float64": ("double", "p[i]"),
    "float16": ("__half", "(double)__half2float(p[i])"),
    "bfloat16": ("unsigned short", "(double)__uint_as_float(((unsigned int)p[i]) << 16)"),
    "int32": ("int", "(double)p[i]"),
    "uint32": ("unsigned int", "(double)p[i]"),
    "int64": ("long long", "(double)p[i]"),
    "uint8": ("unsigned char", "(double)p[i]"),
    "int8": ("signed char", "(double)p[i]"),
}


def kernel_name(dtype: str) -> str:
    return f"cudaperf_check_{dtype}"


def source() -> str:
    parts = [
        "#include <cuda_fp16.h>",
        "",
        "__device__ __forceinline__ void cudaperf_fold(unsigned long long bad, unsigned long long nan,",
        "                                              double mabs, double mrel, unsigned long long* res) {",
        "    for (int off = 16; off > 0; off >>= 1) {",
        "        bad += __shfl_down_sync(0xffffffffu, bad, off);",
        "        nan += __shfl_down_sync(0xffffffffu, nan, off);",
        "        mabs = fmax(mabs, __shfl_down_sync(0xffffffffu, mabs, off));",
        "        mrel = fmax(mrel, __shfl_down_sync(0xffffffffu, mrel, off));",
        "    }",
        "    if ((threadIdx.x & 31) == 0) {",
        "        if (bad) atomicAdd(&res[0], bad);",
        "        if (nan) atomicAdd(&res[1], nan);",
        "        atomicMax(&res[2], (unsigned long long)__double_as_longlong(mabs));",
        "        atomicMax(&res[3], (unsigned long long)__double_as_longlong(mrel));",
        "    }",
        "}",
    ]
    for dtype, (ctype, load) in _LOADERS.items():
        parts += [
            "",
            f'extern "C" __global__ void {kernel_name(dtype)}(const {ctype}* __restrict__ out, const {ctype}* __restrict__ exp,',
            "        unsigned long long n, double atol, double rtol, unsigned long long* res) {",
            "    unsigned long long bad = 0, nan = 0; double mabs = 0.0, mrel = 0.0;",
            "    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;",
            "    // lanes leave the loop at different trips but all meet at the shuffles (block = 256)",
            "    unsigned long long start = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;",
            "    for (unsigned long long i = start; i < n; i += stride) {",
            f"        const {ctype}* p = out; double o = {load};",
            f"        p = exp; double e = {load};",
            "        if (o != o) { ++nan; ++bad; continue; }",
            "        double d = fabs(o - e);",
            "        if (!(d <= atol + rtol * fabs(e))) ++bad;",
            "        mabs = fmax(mabs, d);",
            "        if (e != 0.0) mrel = fmax(mrel, d / fabs(e));",
            "    }",
            "    cudaperf_fold(bad, nan, mabs, mrel, res);",
            "}",
        ]
    return "\n".join(parts) + "\n"
