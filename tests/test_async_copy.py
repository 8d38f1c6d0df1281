"""Asynchronous global-to-shared copies (cp.async: `__pipeline_memcpy_async`, `cuda::memcpy_async`
with a pipeline or a barrier): a global load and a shared store as wide as the copy."""
from __future__ import annotations

from analyzer.lint import LaunchSpec, lint_source

HEAD = "#include <cuda_pipeline.h>\n#include <cuda/pipeline>\n"


def lint(src: str, block=(256, 1, 1)):
    return lint_source(HEAD + src, "a.cu", default_launch=LaunchSpec(block=block, args={"n": 1 << 20}))


def accesses(res, kernel):
    ctx = next(c for c in res.contexts if c.kernel.name == kernel)
    return [(a.array, a.space, a.kind, a.elem_size, e.per_request if e and e.requests else None, e.ideal_units / e.requests if e and e.requests else None)
            for a, e in zip(ctx.accesses.accesses, ctx.estimates)]


def test_pipeline_copy_is_a_global_load_and_a_shared_store_as_wide_as_the_copy():
    res = lint("""
__global__ void k(const float* __restrict__ a, float* out, int n) {
  __shared__ float s[1024];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n / 4) __pipeline_memcpy_async(&s[threadIdx.x * 4], &a[i * 4], 16);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  if (i < n / 4) out[i] = s[threadIdx.x * 4];
}""")
    got = accesses(res, "k")
    # 16 bytes a lane, contiguous: 16 sectors a request as the ideal; the shared write is there for
    # the race check, with no estimate (the H200 counts the copy's conflicts by its source)
    assert ("a", "global", "load", 16, 16.0, 16.0) in got
    assert ("s", "shared", "store", 16, None, None) in got
    assert not [f for f in res.findings if f.code in ("GM101", "SM202")]


def test_a_strided_copy_is_uncoalesced_and_cuda_memcpy_async_reads_sizeof_through_aligned_size_t():
    res = lint("""
__global__ void k(const float4* __restrict__ a, float* out, int n) {
  __shared__ float4 s[256];
  auto pipe = cuda::make_pipeline();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  pipe.producer_acquire();
  if (i * 4 < n) cuda::memcpy_async(&s[threadIdx.x], &a[i * 4], cuda::aligned_size_t<16>(sizeof(float4)), pipe);
  pipe.producer_commit();
  pipe.consumer_wait();
  __syncthreads();
  if (i * 4 < n) out[i] = s[threadIdx.x].y;
}""")
    got = accesses(res, "k")
    assert ("a", "global", "load", 16, 32.0, 16.0) in got     # 16 of every 64 bytes: 2x the sectors
    assert [f.code for f in res.findings if f.code == "GM101"] == ["GM101"]


def test_a_copy_read_by_another_thread_before_a_barrier_is_a_race():
    res = lint("""
__global__ void k(const float* __restrict__ a, float* out, int n) {
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) __pipeline_memcpy_async(&s[threadIdx.x], &a[i], sizeof(float));
  __pipeline_commit();
  __pipeline_wait_prior(0);          // waits for this thread's own copies only
  if (i < n) out[i] = s[(threadIdx.x + 1) % 256];
}""")
    assert [f.code for f in res.findings if f.code == "SM202"] == ["SM202"]


def test_a_group_copy_is_not_modelled_as_one_threads():
    res = lint("""
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
namespace cg = cooperative_groups;
__global__ void k(const float* __restrict__ a, float* out, int n) {
  __shared__ float s[1024];
  cg::thread_block block = cg::this_thread_block();
  cg::memcpy_async(block, s, a + blockIdx.x * 1024, sizeof(float) * 1024);
  cg::wait(block);
  out[blockIdx.x * 1024 + threadIdx.x] = s[threadIdx.x];
}""")
    got = accesses(res, "k")
    assert not [g for g in got if g[0] == "a"]
