"""CUDA files shaped like the public ones: the project's kernels with the host code that runs them.

bench/lint_speed.py's first set packs kernels alone into ~150-line files: ~5.8 kernels a file and
no host code. The 106 public files of 100-200 lines that bench/real_code.py linted (3 sets, 53
projects; bench/results/real_code*.json) hold 1.8 kernels a file, and the rest is host code:
launchers, allocation, copies, checks. This builds files of that shape from the same kernels:

- the number of kernels per file follows those 106 files' counts (49 files with 1 kernel, 40
  with 2, 11 with 3, 4 with 4, 2 with 6), in a fixed shuffled order;
- each kernel is a corpus sample's source (a distinct source each time, until they run out), and
  gets a host function that allocates its buffers, fills and copies the inputs, launches it with
  the sample's grid, block and shared memory, checks the launch, copies the outputs back and
  prints a checksum, as a test driver does;
- a license-style comment, the includes, an error-check macro and a `main` that calls each
  host function frame the file.

Nothing here is timed: the files are data for bench/lint_speed.py.
"""
from __future__ import annotations

import random

from analyzer.profile.spec import Buffer

# kernels per file in the public files of 100-200 lines (bench/results/real_code*.json, per_file)
REAL_KERNELS_PER_FILE = {1: 49, 2: 40, 3: 11, 4: 4, 6: 2}

C_TYPES = {"float32": "float", "float16": "__half", "bfloat16": "__nv_bfloat16", "float64": "double",
           "int32": "int", "uint32": "unsigned int", "uint8": "unsigned char", "int64": "long long"}

HEADER = """\
/*
 * Copyright (c) the cudaperf authors. Generated for the lint-speed benchmark.
 *
 * Licensed under the Apache License, Version 2.0 (the "License"); you may not use this
 * file except in compliance with the License. Unless required by applicable law or agreed
 * to in writing, software distributed under the License is distributed on an "AS IS"
 * BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 */
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#define CUDA_CHECK(call)                                                          \\
    do {                                                                          \\
        cudaError_t err_ = (call);                                                \\
        if (err_ != cudaSuccess) {                                                \\
            fprintf(stderr, "%s:%d: %s\\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \\
            exit(1);                                                              \\
        }                                                                         \\
    } while (0)
"""


def _host_value(dtype: str, expr: str) -> str:
    """A C expression of type `dtype` from a float expression (the half types need a conversion)."""
    if dtype == "float16":
        return f"__float2half({expr})"
    if dtype == "bfloat16":
        return f"__float2bfloat16({expr})"
    return f"({C_TYPES.get(dtype, 'float')})({expr})"


def _literal(dtype: str, value) -> str:
    if dtype in ("float32", "float16", "bfloat16"):
        return f"{float(value)!r}f"
    if dtype == "float64":
        return f"{float(value)!r}"
    return str(int(value))


def host_function(sample, index: int) -> str:
    """The host code that runs one sample's kernel, as a test driver writes it."""
    name = f"run_{index}"
    lines = [f"// runs {sample.kernel} on one input ({sample.family}, {sample.size})",
             f"static double {name}(cudaStream_t stream)", "{"]
    call_args = []
    buffers = []
    for a in sample.args:
        ctype = C_TYPES.get(a.dtype, "float")
        if isinstance(a, Buffer):
            n = f"n_{a.name}"
            lines += [f"    const size_t {n} = {int(a.size)};",
                      f"    {ctype} *d_{a.name} = nullptr;",
                      f"    CUDA_CHECK(cudaMalloc(&d_{a.name}, {n} * sizeof({ctype})));"]
            if a.role != "out":
                lines += [f"    std::vector<{ctype}> h_{a.name}({n});",
                          f"    for (size_t i = 0; i < {n}; ++i) h_{a.name}[i] = {_host_value(a.dtype, '(i % 17) * 0.25f')};",
                          f"    CUDA_CHECK(cudaMemcpyAsync(d_{a.name}, h_{a.name}.data(), {n} * sizeof({ctype}), "
                          f"cudaMemcpyHostToDevice, stream));"]
            else:
                lines.append(f"    CUDA_CHECK(cudaMemsetAsync(d_{a.name}, 0, {n} * sizeof({ctype}), stream));")
            buffers.append(a)
            call_args.append(f"d_{a.name}")
        else:
            lines.append(f"    const {ctype} {a.name} = {_literal(a.dtype, a.value)};")
            call_args.append(a.name)
    (gx, gy, gz), (bx, by, bz) = sample.grid, sample.block
    lines += [f"    dim3 grid({gx}, {gy}, {gz});",
              f"    dim3 block({bx}, {by}, {bz});",
              f"    {sample.kernel}<<<grid, block, {int(sample.smem or 0)}, stream>>>({', '.join(call_args)});",
              "    CUDA_CHECK(cudaGetLastError());",
              "    CUDA_CHECK(cudaStreamSynchronize(stream));",
              "    double checksum = 0.0;"]
    for a in buffers:
        ctype = C_TYPES.get(a.dtype, "float")
        if a.role != "in":
            lines += [f"    std::vector<{ctype}> out_{a.name}(n_{a.name});",
                      f"    CUDA_CHECK(cudaMemcpy(out_{a.name}.data(), d_{a.name}, n_{a.name} * sizeof({ctype}), "
                      f"cudaMemcpyDeviceToHost));",
                      f"    for (size_t i = 0; i < n_{a.name}; ++i) checksum += (double)out_{a.name}[i];"]
    lines += [f"    CUDA_CHECK(cudaFree(d_{a.name}));" for a in buffers]
    lines += [f"    printf(\"%s: %g\\n\", \"{sample.kernel}\", checksum);", "    return checksum;", "}"]
    return "\n".join(lines)


def kernel_counts(n_files: int, seed: int = 0) -> list[int]:
    """Kernels per file for `n_files` files, in the proportions of the public files."""
    pool = [k for k, n in REAL_KERNELS_PER_FILE.items() for _ in range(n)]
    rng = random.Random(seed)
    out: list[int] = []
    while len(out) < n_files:
        rng.shuffle(pool)
        out += pool
    return out[:n_files]


def build(samples, n_files: int = 200, seed: int = 0) -> list[str]:
    """`n_files` files, each of some of `samples` (one per distinct source, taken in order and
    reused when they run out) with their host code."""
    files = []
    i = 0
    for count in kernel_counts(n_files, seed):
        parts = [HEADER]
        calls = []
        for j in range(count):
            s = samples[i % len(samples)]
            i += 1
            parts += [s.source.rstrip("\n"), host_function(s, j)]
            calls.append(f"    total += run_{j}(stream);")
        parts.append("int main()\n{\n    cudaStream_t stream;\n    CUDA_CHECK(cudaStreamCreate(&stream));\n"
                     "    double total = 0.0;\n" + "\n".join(calls) +
                     "\n    CUDA_CHECK(cudaStreamDestroy(stream));\n    printf(\"total %g\\n\", total);\n"
                     "    return 0;\n}\n")
        files.append("\n\n".join(parts))
    return files
