"""Small known kernels for the profiler's own tests, the first device check and the benchmark.

Each is a Job whose outcome is known in advance: correct, wrong, an unwritten
element, out of bounds, a hang, a compile error, coalesced and strided loads.
"""
from __future__ import annotations

import numpy as np

from .records import Job
from .spec import Buffer, Problem, Scalar

PROBLEM = "analyzer.profile.selftest:gather_problem"


def gather_problem(n: int, stride: int = 1, seed: int = 0) -> Problem:
    """y[i] = x[i * stride] for i < n."""
    x = np.random.default_rng(seed).uniform(-1, 1, n * stride).astype(np.float32)
    return Problem(inputs={"x": x}, expected={"y": np.ascontiguousarray(x[::stride])})


_GATHER = r'''
extern "C" __global__ void gather(const float* __restrict__ x, float* __restrict__ y, int n, int stride) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = BODY;
}
'''

BODIES = {
    "ok": "x[(long long)i * stride]",
    "wrong": "2.0f * x[(long long)i * stride]",
    # the last element is never written: only the NaN poison can reveal it
    "skip_last": "(i == n - 1) ? y[i] : x[(long long)i * stride]",
    "oob": "x[(long long)i * stride + (1LL << 40)]",
}
HANG = r'''
extern "C" __global__ void gather(const float* __restrict__ x, float* __restrict__ y, int n, int stride) {
    // spins on a volatile global load that never changes (inputs are in [-1, 1]):
    // a real side effect, so the compiler cannot drop the loop
    const volatile float* vx = x;
    while (vx[0] < 2.0f) { }
    y[0] = x[0];
}
'''
BROKEN = 'extern "C" __global__ void gather(const float* x, float* y, int n, int stride) { y[0] = undefined_name; }'


def gather_job(kind: str, n: int = 1 << 20, stride: int = 1, block: int = 256, seed: int = 0) -> Job:
    if kind == "hang":
        source = HANG
    elif kind == "compile_error":
        source = BROKEN
    else:
        source = _GATHER.replace("BODY", BODIES[kind])
    args = (Buffer("x", "float32", n * stride, "in"), Buffer("y", "float32", n, "out"),
            Scalar("n", "int32", n), Scalar("stride", "int32", stride))
    return Job(id=f"{kind}_n{n}_s{stride}_b{block}", source=source, kernel="gather",
               grid=((n + block - 1) // block, 1, 1), block=(block, 1, 1), args=args, problem=PROBLEM,
               problem_kwargs={"n": n, "stride": stride, "seed": seed}, atol=0.0, rtol=0.0)
