"""Measure the throughput of the GPU's pipes that the analytic time estimate uses (runs on a GPU).

`analyzer.models.time_estimate` bounds a launch's time by the slowest pipe it must go through:
DRAM, L2, the global-memory request pipe, the shared-memory wavefront pipe, global atomics,
FP32, the tensor cores (wmma half products), plus the fixed cost of an event-timed launch. This script measures each of those rates
with a microbenchmark kernel per pipe, timed as the corpus times kernels (CUDA events around
each launch, median of many), and prints them per SM and clock so they can be set in
`analyzer.models.ARCHS`. Writes bench/results/gpu_pipes.json (or --out).

    python bench/gpu_pipes.py            # on the GPU machine (needs CuPy)
"""
from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
from pathlib import Path

SRC = r"""
extern "C" __global__ void empty() {}

// float4 reads of a buffer small enough to stay in L2, many passes
extern "C" __global__ void l2_read(const float4* __restrict__ p, int n4, int passes, float* out) {
    float acc = 0.f;
    int t = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;
    for (int k = 0; k < passes; ++k)
        for (int i = t; i < n4; i += stride) { float4 v = __ldcg(p + i); acc += v.x + v.y + v.z + v.w; }
    if (acc == 1234.5f) out[0] = acc;
}

// float4 reads of a buffer far larger than L2, once
extern "C" __global__ void dram_read(const float4* __restrict__ p, long n4, float* out) {
    float acc = 0.f;
    long stride = (long)gridDim.x * blockDim.x;
    for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 v = p[i]; acc += v.x + v.y + v.z + v.w;
    }
    if (acc == 1234.5f) out[0] = acc;
}

// global load requests that hit L1: each warp reads one 4-byte word per request (one sector)
extern "C" __global__ void ld_requests(const float* __restrict__ p, int iters, float* out) {
    float a0 = 0.f, a1 = 0.f, a2 = 0.f, a3 = 0.f;
    for (int k = 0; k < iters; k += 4) {
        a0 += p[(k + 0) & 255]; a1 += p[(k + 1) & 255]; a2 += p[(k + 2) & 255]; a3 += p[(k + 3) & 255];
    }
    float acc = a0 + a1 + a2 + a3;
    if (acc == 1234.5f) out[0] = acc;
}

// shared-memory loads, conflict free (ways=1) or `ways`-way conflicted
extern "C" __global__ void shared_ld(int iters, int ways, float* out) {
    __shared__ float s[32 * 33 * 4];
    for (int i = threadIdx.x; i < 32 * 33 * 4; i += blockDim.x) s[i] = i;
    __syncthreads();
    int lane = threadIdx.x & 31;
    int base = (lane % ways) * 32 + lane / ways;   // `ways` lanes share a bank, distinct words
    volatile float* vs = s;   // every load is issued (nothing hoisted out of the loop)
    float a0 = 0.f, a1 = 0.f, a2 = 0.f, a3 = 0.f;
    for (int k = 0; k < iters; k += 4) {
        a0 += vs[base]; a1 += vs[base + 1024]; a2 += vs[base + 2048]; a3 += vs[base + 3072];
    }
    float acc = a0 + a1 + a2 + a3;
    if (acc == 1234.5f) out[0] = acc;
}

// global atomics: each thread to its own word (no contention), or to `bins` words
extern "C" __global__ void atomics(int* p, int iters, int bins) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    for (int k = 0; k < iters; ++k) atomicAdd(p + ((t + k * 7919) % bins), 1);
}

// FP32 FMAs, 8 independent chains
extern "C" __global__ void fma_chain(int iters, float* out) {
    float a[8];
    for (int j = 0; j < 8; ++j) a[j] = threadIdx.x + j;
    for (int k = 0; k < iters; ++k)
        for (int j = 0; j < 8; ++j) a[j] = fmaf(a[j], 0.999f, 0.5f);
    float acc = 0.f;
    for (int j = 0; j < 8; ++j) acc += a[j];
    if (acc == 1234.5f) out[0] = acc;
}
"""

# tensor cores through wmma: 16x16x16 half products into float, 4 independent accumulators a warp
# (a module of its own: mma.h needs the toolkit's headers, which the other pipes do not)
TENSOR_SRC = r"""
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;
extern "C" __global__ void hmma(int iters, float* out) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c[4];
    wmma::fill_fragment(a, __float2half(0.001f * threadIdx.x));
    wmma::fill_fragment(b, __float2half(0.5f));
    for (int j = 0; j < 4; ++j) wmma::fill_fragment(c[j], 0.0f);
    for (int k = 0; k < iters; ++k)
        for (int j = 0; j < 4; ++j) wmma::mma_sync(c[j], a, b, c[j]);
    float acc = 0.f;
    for (int j = 0; j < 4; ++j)
        for (int i = 0; i < c[j].num_elements; ++i) acc += c[j].x[i];
    if (acc == 1234.5f) out[0] = acc;
}
"""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "results" / "gpu_pipes.json"))
    ap.add_argument("--reps", type=int, default=30)
    args = ap.parse_args(argv)
    import cupy as cp

    dev = cp.cuda.Device(0)
    props = cp.cuda.runtime.getDeviceProperties(0)
    sms = props["multiProcessorCount"]
    clock_hz = props["clockRate"] * 1e3
    mod = cp.RawModule(code=SRC, options=("-std=c++17",))
    out = cp.zeros(1, dtype=cp.float32)

    def timed(fn) -> float:
        """Median seconds of `fn()` (one launch) over CUDA events, after warm-up."""
        for _ in range(3):
            fn()
        times = []
        for _ in range(args.reps):
            a, b = cp.cuda.Event(), cp.cuda.Event()
            a.record()
            fn()
            b.record()
            b.synchronize()
            times.append(cp.cuda.get_elapsed_time(a, b) * 1e-3)
        return statistics.median(times)

    rows = {}
    blocks, threads = sms * 8, 256
    k = mod.get_function("empty")
    rows["launch_s"] = timed(lambda: k((1,), (32,), ()))

    # L2: 16 MB read 64 times
    n4 = (16 << 20) // 16
    buf = cp.ones(n4 * 4, dtype=cp.float32)
    k = mod.get_function("l2_read")
    passes = 64
    t = timed(lambda: k((blocks,), (threads,), (buf, cp.int32(n4), cp.int32(passes), out)))
    rows["l2_bytes_per_s"] = n4 * 16 * passes / t
    # DRAM: 2 GB read once
    n4d = (2 << 30) // 16
    big = cp.ones(n4d * 4, dtype=cp.float32)
    k = mod.get_function("dram_read")
    t = timed(lambda: k((blocks,), (threads,), (big, cp.int64(n4d), out)))
    rows["dram_bytes_per_s"] = n4d * 16 / t
    del big
    # global load requests (L1 hits)
    k = mod.get_function("ld_requests")
    iters = 4096
    t = timed(lambda: k((blocks,), (threads,), (buf, cp.int32(iters), out)))
    rows["global_requests_per_sm_clk"] = blocks * threads / 32 * iters / t / (sms * clock_hz)
    # shared wavefronts, conflict free and 4/32-way
    k = mod.get_function("shared_ld")
    for ways in (1, 4, 32):
        t = timed(lambda: k((blocks,), (threads,), (cp.int32(iters), cp.int32(ways), out)))
        rows[f"shared_wavefronts_per_sm_clk_{ways}way"] = blocks * threads / 32 * iters * ways / t / (sms * clock_hz)
    # atomics: distinct words, and 1024 bins (contended)
    k = mod.get_function("atomics")
    words = cp.zeros(blocks * threads, dtype=cp.int32)
    iters_a = 64
    for bins in (blocks * threads, 1024, 32):
        t = timed(lambda: k((blocks,), (threads,), (words, cp.int32(iters_a), cp.int32(bins))))
        rows[f"atomics_per_s_{bins}bins"] = blocks * threads * iters_a / t
        rows[f"atomic_requests_per_sm_clk_{bins}bins"] = blocks * threads / 32 * iters_a / t / (sms * clock_hz)
    # FP32
    k = mod.get_function("fma_chain")
    iters_f = 4096
    t = timed(lambda: k((blocks,), (threads,), (cp.int32(iters_f), out)))
    rows["fp32_flops_per_s"] = blocks * threads * iters_f * 8 * 2 / t
    # tensor cores (wmma half, float accumulate): 2 * 16^3 flops a warp an mma_sync
    try:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        from analyzer.profile.toolkit import cuda_include_dir

        inc = cuda_include_dir()      # the toolkit's headers, as the profiler compiles (mma.h needs crt/)
        opts = ("-std=c++17",) + ((f"--include-path={inc}",) if inc else ())
        k = cp.RawModule(code=TENSOR_SRC, options=opts).get_function("hmma")
    except Exception as exc:  # noqa: BLE001 - no tensor cores or headers: the other pipes still count
        print(f"tensor pipe not measured: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
    else:
        iters_t = 2048
        t = timed(lambda: k((blocks,), (threads,), (cp.int32(iters_t), out)))
        rows["tensor_f16_flops_per_s"] = blocks * threads / 32 * iters_t * 4 * 2 * 16 ** 3 / t

    result = {"gpu": props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"]),
              "sms": sms, "clock_hz": clock_hz, "reps": args.reps, "python": platform.python_version(),
              "cupy": cp.__version__, "rates": rows}
    w = max(len(k) for k in rows)
    print(f"{'pipe':{w}s}  measured")
    for key, v in rows.items():
        print(f"{key:{w}s}  {v:.4g}")
    print(f"gpu: {result['gpu']}, {sms} SMs, clock {clock_hz / 1e9:.2f} GHz")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.out}")
    dev.synchronize()
    return 0


if __name__ == "__main__":
    sys.exit(main())
