"""Inline PTX (analyzer/access.py `_asm`): the memory instructions of an asm statement are
accesses at its operands."""
from __future__ import annotations

from analyzer.lint import LaunchSpec, lint_source


def accesses(src, block=(32, 1, 1)):
    res = lint_source(src, "p.cu", default_launch=LaunchSpec(block=block, grid=(1, 1, 1)))
    ctx = res.contexts[0]
    return [(a.array, a.space, a.kind, a.elem_size, e.per_request if e and e.requests else None, e.ideal_units / e.requests if e and e.requests else None)
            for a, e in zip(ctx.accesses.accesses, ctx.estimates)], res


LDMATRIX = """
__global__ void k(float* out) {
  __shared__ __align__(16) unsigned short s[16][PITCH];
  unsigned r0, r1, r2, r3;
  unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(&s[threadIdx.x % 16][(threadIdx.x / 16) * 8]));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a));
  out[threadIdx.x] = r0 + r1 + r2 + r3;
}"""


def test_ldmatrix_is_a_16_byte_shared_load_at_each_lanes_row_address():
    # the LDSM of wmma (bench/memory_probe.py measured these pitches on the H200): 32 bytes 2-way, 48 none
    for pitch, per_request in ((16, 8.0), (24, 4.0), (64, 32.0), (72, 4.0)):
        got, _ = accesses(f"#define PITCH {pitch}\n" + LDMATRIX)
        assert ("s", "shared", "load", 16, per_request, 4.0) in got, (pitch, got)


def test_ldmatrix_x2_reads_the_addresses_of_lanes_0_to_15():
    src = f"#define PITCH 24\n" + LDMATRIX.replace(".x4", ".x2").replace("{%0, %1, %2, %3}, [%4]", "{%0, %1}, [%4]")
    got, _ = accesses(src)
    (ld,) = [g for g in got if g[1] == "shared"]
    assert ld[4] == 2.0 and ld[5] == 2.0          # 16 lanes x 16 bytes: 2 wavefronts


def test_cp_async_and_vector_loads_and_stores_through_asm():
    got, res = accesses("""
__global__ void k(const float* __restrict__ g, float* out, int n) {
  __shared__ __align__(16) float s[32 * 4];
  unsigned a = __cvta_generic_to_shared(&s[threadIdx.x * 4]);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\\n" :: "r"(a), "l"(g + threadIdx.x * 4));
  asm volatile("cp.async.wait_all;\\n" ::);
  __syncthreads();
  float4 v;
  asm volatile("ld.global.nc.v4.f32 {%0, %1, %2, %3}, [%4+16];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "l"(g + threadIdx.x * 8));
  asm volatile("st.global.f32 [%0], %1;" :: "l"(out + threadIdx.x * 2), "f"(v.x + s[threadIdx.x * 4]));
}""")
    assert ("g", "global", "load", 16, 16.0, 16.0) in got                  # cp.async: 16 contiguous bytes a lane
    assert ("s", "shared", "store", 16, None, None) in got                  # the copy's write: no estimate
    assert ("g", "global", "load", 16, 32.0, 16.0) in got                  # v4 at a 32-byte stride: half wasted
    assert ("out", "global", "store", 4, 8.0, 4.0) in got
    assert sorted(f.code for f in res.findings if f.code in ("GM101", "GM102")) == ["GM101", "GM102"]


def test_an_asm_output_is_thread_dependent_and_laneid_is_the_lane():
    got, res = accesses("""
__global__ void k(const float* __restrict__ g, float* out) {
  unsigned lane, t;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  asm volatile("mov.u32 %0, %%clock;" : "=r"(t));
  out[blockIdx.x * 32 + lane] = g[blockIdx.x * 32 + lane];
  if (t & 1) out[0] = 1.0f;
}""")
    assert ("g", "global", "load", 4, 4.0, 4.0) in got
    ctx = res.contexts[0]
    assert ctx.accesses.thread_dependent(("s", next(n for n in ctx.accesses.graph.succ if n.startswith("asm@"))))
