"""How a warp's wide and collective memory instructions reach memory, measured, against the
analyzer's model: wmma tiles, cp.async copies (intrinsic and inline PTX), ldmatrix and vector loads
written in inline PTX.

The analyzer models `wmma::load_matrix_sync` / `store_matrix_sync` of 16x16x16 fragments as the
instructions ptxas makes of them for sm_90 (analyzer/access.py `_wmma`: LDSM.16.M88.4 from shared
memory, four 4-byte LDGs from global memory, 8-byte (row-major) or 4-byte (column-major) stores
of a float accumulator). This probe runs one warp of each pattern once under Nsight Compute on
the GPU and reads what the hardware counted: wavefronts per shared request (LDSM and plain
shared loads, shared stores) and sectors per global request, for leading dimensions that do and
do not conflict.

    python bench/memory_probe.py --run OUT_DIR     # on the GPU machine (nvcc, ncu): writes OUT_DIR/memory_probe.json
    python bench/memory_probe.py                   # here: the analyzer's estimates beside the measured figures
                                                 # (bench/results/h200/memory_probe.json), a table, and
                                                 # bench/results/memory_probe_compare.json
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MEASURED = ROOT / "bench" / "results" / "h200" / "memory_probe.json"

LOAD_LDMS = (16, 24, 32, 40, 48, 64, 72, 80)      # halves: 32..160 bytes a row
GLOBAL_LDMS = (16, 64, 72)
STORE_LDMS = (16, 20, 24, 32, 36)                 # floats

SOURCE = r"""
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_pipeline.h>
using namespace nvcuda;

// matrix_a (row-major) and matrix_b (column-major) 16x16 half tiles from shared memory
template <int LDM>
__global__ void lds_a_row(const half* __restrict__ g, float* out) {
  __shared__ half s[16 * 80];
  for (int i = threadIdx.x; i < 16 * 80; i += 32) s[i] = g[i];
  __syncthreads();
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
  wmma::fill_fragment(b, __float2half(1.0f));
  wmma::fill_fragment(c, 0.0f);
  wmma::load_matrix_sync(a, s, LDM);
  wmma::mma_sync(c, a, b, c);
  wmma::store_matrix_sync(out, c, 16, wmma::mem_row_major);
}
template <int LDM>
__global__ void lds_b_col(const half* __restrict__ g, float* out) {
  __shared__ half s[16 * 80];
  for (int i = threadIdx.x; i < 16 * 80; i += 32) s[i] = g[i];
  __syncthreads();
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
  wmma::fill_fragment(a, __float2half(1.0f));
  wmma::fill_fragment(c, 0.0f);
  wmma::load_matrix_sync(b, s, LDM);
  wmma::mma_sync(c, a, b, c);
  wmma::store_matrix_sync(out, c, 16, wmma::mem_row_major);
}
// matrix_a from global memory; the accumulator stored column-major to global memory
template <int LDM>
__global__ void ldg_a_row(const half* __restrict__ g, float* out) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
  wmma::fill_fragment(b, __float2half(1.0f));
  wmma::fill_fragment(c, 0.0f);
  wmma::load_matrix_sync(a, g, LDM);
  wmma::mma_sync(c, a, b, c);
  wmma::store_matrix_sync(out, c, 16, wmma::mem_col_major);
}
// cp.async through the intrinsic: 16 bytes a lane from float4 SRC apart into 16-byte slots DST apart
template <int SRC, int DST>
__global__ void cpa_intr(const half* __restrict__ g, float* out) {
  __shared__ __align__(16) float4 s[32 * 8];
  const float4* g4 = reinterpret_cast<const float4*>(g);
  __pipeline_memcpy_async(&s[threadIdx.x * DST], &g4[threadIdx.x * SRC], sizeof(float4));
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x * DST].x;
}
// cp.async in inline PTX, 4 (.ca) or 16 (.cg) bytes a lane, SRC elements of that size apart
template <int BYTES, int SRC>
__global__ void cpa_asm(const half* __restrict__ g, float* out) {
  __shared__ __align__(16) float s[32 * 4];
  const float* gf = reinterpret_cast<const float*>(g);
  unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(&s[threadIdx.x * (BYTES / 4)]));
  if (BYTES == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" :: "r"(a), "l"(gf + threadIdx.x * SRC * 4));
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" :: "r"(a), "l"(gf + threadIdx.x * SRC));
  asm volatile("cp.async.wait_all;\n" ::);
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x * (BYTES / 4)];
}
// a 16-byte vector load in inline PTX, float4 STRIDE apart
template <int STRIDE>
__global__ void ldg_v4(const half* __restrict__ g, float* out) {
  const float* gf = reinterpret_cast<const float*>(g);
  float4 v;
  asm volatile("ld.global.nc.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "l"(gf + threadIdx.x * STRIDE * 4));
  out[threadIdx.x] = v.x + v.y + v.z + v.w;
}
// ldmatrix .x2 in inline PTX over rows PITCH halves apart (lanes 0-15 give the row addresses)
template <int PITCH>
__global__ void ldsm_x2(const half* __restrict__ g, float* out) {
  __shared__ __align__(16) unsigned short s[16 * 80];
  for (int i = threadIdx.x; i < 16 * 80; i += 32) s[i] = reinterpret_cast<const unsigned short*>(g)[i];
  __syncthreads();
  unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(&s[(threadIdx.x % 16) * PITCH]));
  unsigned r0, r1;
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n" : "=r"(r0), "=r"(r1) : "r"(a));
  out[threadIdx.x] = r0 + r1;
}
// the accumulator stored to shared memory, row- or column-major, then one word read back a lane
template <int LDM, int COL>
__global__ void sts_acc(const half* __restrict__ g, float* out) {
  __shared__ float s[16 * 40];
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
  wmma::fill_fragment(a, __float2half(1.0f));
  wmma::fill_fragment(b, __float2half(1.0f));
  wmma::fill_fragment(c, 0.0f);
  wmma::mma_sync(c, a, b, c);
  wmma::store_matrix_sync(s, c, LDM, COL ? wmma::mem_col_major : wmma::mem_row_major);
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}
"""


def variants() -> list[tuple[str, str]]:
    """(name expression, C++ kernel name ncu prints as its demangled prefix)."""
    out = [(f"lds_a_row<{l}>", f"lds_a_row<{l}>") for l in LOAD_LDMS]
    out += [(f"lds_b_col<{l}>", f"lds_b_col<{l}>") for l in (16, 24, 64)]
    out += [(f"ldg_a_row<{l}>", f"ldg_a_row<{l}>") for l in GLOBAL_LDMS]
    out += [(f"sts_acc<{l}, {c}>", f"sts_acc<{l}, {c}>") for l in STORE_LDMS for c in (0, 1)]
    out += [(f"cpa_intr<{a}, {b}>", f"cpa_intr<{a}, {b}>") for a, b in ((1, 1), (2, 1), (4, 1), (1, 2), (1, 8))]
    out += [(f"cpa_asm<{n}, {k}>", f"cpa_asm<{n}, {k}>") for n, k in ((16, 1), (16, 2), (4, 1), (4, 2), (4, 8))]
    out += [(f"ldg_v4<{k}>", f"ldg_v4<{k}>") for k in (1, 2, 4)]
    out += [(f"ldsm_x2<{p}>", f"ldsm_x2<{p}>") for p in (16, 24, 64)]
    return out


METRICS = {
    # LDSM: an instruction of its own (op_ldsm), whose wavefronts ncu 2025 on the H200 counts with the
    # shared loads' (op_ld; its op_ldsm wavefront metric is n/a there)
    "ldsm_requests": "smsp__inst_executed_op_ldsm.sum",
    "ldsm_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum",
    "shld_requests": "smsp__inst_executed_op_shared_ld.sum",
    "shld_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "shst_requests": "smsp__inst_executed_op_shared_st.sum",
    "shst_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    # cp.async (LDGSTS): ncu counts its global side with the loads' (op_ld) as T-stage sectors, which
    # for the L1-bypassing 16-byte form follow the shared destination; the sectors read from L2 and
    # the shared side's wavefronts are the SASS-level metrics (the names this ncu lacks are dropped)
    "ldgsts_requests": "smsp__inst_executed_op_ldgsts.sum",
    "ldgsts_t_sectors": "smsp__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts.sum",
    "ldgsts_t_requests": "smsp__sass_l1tex_t_requests_pipe_lsu_mem_global_op_ldgsts.sum",
    "ldgsts_l2_sectors_bypass": "smsp__sass_l1tex_m_xbar2l1tex_read_sectors_mem_global_op_ldgsts_cache_bypass.sum",
    "ldgsts_l2_sectors_access": "l1tex__m_xbar2l1tex_read_sectors_mem_global_op_ldgsts_cache_access.sum",
    "ldgsts_wavefronts": "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum",
    "ldgsts_conflicts": "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum",
    "gld_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "gld_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "gst_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "gst_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
}


def host_program() -> str:
    """A main() that launches every variant once with one warp (ncu counts each launch)."""
    calls = "\n".join(f"  {expr}<<<1, 32>>>(g, out); check(cudaDeviceSynchronize(), \"{expr}\");"
                      for expr, _ in variants())
    return SOURCE + r"""
#include <cstdio>
#include <cstdlib>
static void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) { std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e)); std::exit(1); }
}
int main() {
  half* g; float* out;
  check(cudaMalloc(&g, 1 << 20), "malloc");
  check(cudaMalloc(&out, 1 << 20), "malloc");
  check(cudaMemset(g, 0, 1 << 20), "memset");
""" + calls + r"""
  std::printf("launched %d kernels\n", """ + str(len(variants())) + r""");
  return 0;
}
"""


def run(out_dir: Path) -> int:
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "probe.cu"
        src.write_text(host_program())
        exe = Path(tmp) / "probe"
        subprocess.run(["nvcc", "-O3", "-arch=sm_90", "-o", str(exe), str(src)], check=True)
        sass = subprocess.run(["cuobjdump", "-sass", str(exe)], capture_output=True, text=True).stdout
        (out_dir / "memory_probe.sass").write_text(sass)
        # ncu refuses a whole run over one metric name it does not know: ask it which it has
        known = subprocess.run(["ncu", "--query-metrics"], capture_output=True, text=True).stdout
        (out_dir / "ncu_query_metrics.txt").write_text(known)
        names = [m for m in METRICS.values() if m.rsplit(".", 1)[0] in known]
        proc = subprocess.run(["ncu", "--clock-control", "none", "--csv", "--metrics", ",".join(names),
                               str(exe)], capture_output=True, text=True)
        (out_dir / "memory_probe_ncu.csv").write_text(proc.stdout + proc.stderr)
        if proc.returncode != 0:
            print(proc.stdout[-3000:], proc.stderr[-3000:])
            return 1
    gpu = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout.strip()
    return summarize(proc.stdout, gpu, out_dir)


def summarize(ncu_csv: str, gpu: str, out_dir: Path) -> int:
    """ncu's CSV (one row per kernel and metric) as {variant: {metric: value}} in memory_probe.json;
    a metric this ncu does not have for the chip ("n/a") is left out."""
    rows: dict[str, dict[str, float]] = {}
    text = ncu_csv[ncu_csv.find('"ID"'):]
    for r in csv.DictReader(io.StringIO(text)):
        name = r["Kernel Name"].removeprefix("void ")
        metric = next((k for k, v in METRICS.items() if v == r["Metric Name"]), None)
        if metric is None:
            continue
        expr = next((e for e, prefix in variants() if name.replace(" ", "").startswith(prefix.replace(" ", "")) and
                     name.replace(" ", "")[len(prefix.replace(" ", ""))] == "("), None)
        if expr is None or r["Metric Value"] == "n/a":
            continue
        rows.setdefault(expr, {})[metric] = float(r["Metric Value"].replace(",", ""))
    result = {"gpu": gpu, "source": SOURCE, "launch": {"grid": [1, 1, 1], "block": [32, 1, 1]},
              "metrics": METRICS, "variants": rows}
    (out_dir / "memory_probe.json").write_text(json.dumps(result, indent=2) + "\n")
    print(f"{'variant':<20}" + "".join(f"{k:>17}" for k in METRICS))
    for expr, _ in variants():
        got = rows.get(expr, {})
        print(f"{expr:<20}" + "".join(f"{got.get(k, float('nan')):>17.0f}" for k in METRICS))
    return 0


def estimates(expr: str, source: str) -> dict[str, float | None]:
    """The analyzer's per-request figures for the wmma access of one variant (one warp)."""
    sys.path.insert(0, str(ROOT))
    from analyzer.lint import LaunchSpec, lint_source

    res = lint_source(source, "memory_probe.cu", kernels=[expr], default_launch=LaunchSpec(block=(32, 1, 1), grid=(1, 1, 1)))
    ctx = res.contexts[0]
    out: dict[str, float | None] = {}
    for a, e in zip(ctx.accesses.accesses, ctx.estimates):
        if not any(w in a.text for w in ("matrix_sync", "memcpy_async", "asm")) or e is None or not e.requests:
            continue
        key = {("shared", "load"): "shared_ld", ("shared", "store"): "shared_st",
               ("global", "load"): "global_ld", ("global", "store"): "global_st"}[(a.space, a.kind)]
        units, req = out.get(key + "_units", 0.0), out.get(key + "_requests", 0.0)
        out[key + "_units"], out[key + "_requests"] = units + e.units, req + e.requests
    return {k.replace("_units", ""): out[k] / out[k.replace("_units", "_requests")]
            for k in out if k.endswith("_units")}


def compare(measured: dict) -> list[dict]:
    rows = []
    for expr, got in measured["variants"].items():
        est = estimates(expr, measured["source"])
        if expr.startswith("lds_"):     # the LDSM is the kernel's only shared load (no LDS: shld_requests 0)
            assert got["shld_requests"] == 0 and got["ldsm_requests"] == 1
            pairs = [("shared_ld", got.get("ldsm_wavefronts", got["shld_wavefronts"]) / got["ldsm_requests"])]
        elif expr.startswith("ldg_v4"):
            pairs = [("global_ld", got["gld_sectors"] / got["gld_requests"])]
        elif expr.startswith("ldg_"):   # the tile's loads; the column-major store of the result too
            pairs = [("global_ld", got["gld_sectors"] / got["gld_requests"]),
                     ("global_st", got["gst_sectors"] / got["gst_requests"])]
        elif expr.startswith("sts_"):   # the tile's stores (the read-back is a load)
            pairs = [("shared_st", got["shst_wavefronts"] / got["shst_requests"])]
        elif expr.startswith("cpa_"):   # LDGSTS, the kernel's only global load (ncu counts it with op_ld)
            assert got["ldgsts_requests"] == 1 and got["gld_requests"] == 1
            value = got["gld_sectors"] / got["gld_requests"]
            if "<16" in expr or expr.startswith("cpa_intr"):
                # the 16-byte form bypasses L1: ncu's T-stage sectors follow the shared destination
                # (16 for contiguous 16-byte slots, 32 for spread ones) whatever the source's spread,
                # where the analyzer counts the source's sectors (what L2 must deliver): not compared
                rows.append({"variant": expr, "what": "global_ld", "measured": value,
                             "analyzer": est.get("global_ld"), "note": "T-stage count of the L1-bypassing form"})
                if "ldgsts_l2_sectors_bypass" in got:
                    # what L2 delivers: the source's sectors where the 16-byte slots are contiguous,
                    # one sector a lane where they are spread (the analyzer counts the source's)
                    rows.append({"variant": expr, "what": "l2_read", "measured": got["ldgsts_l2_sectors_bypass"],
                                 "analyzer": est.get("global_ld"), "l2": True})
                continue
            pairs = [("global_ld", value)]
        else:                           # ldsm_x2: the LDSM is the only shared load
            assert got["shld_requests"] == 0 and got["ldsm_requests"] == 1
            pairs = [("shared_ld", got["shld_wavefronts"] / got["ldsm_requests"])]
        for key, value in pairs:
            rows.append({"variant": expr, "what": key, "measured": value, "analyzer": est.get(key)})
    return rows


def compared(rows: list[dict]) -> list[dict]:
    """The rows whose per-request figure the analyzer models (not the T-stage or L2 ones)."""
    return [r for r in rows if "note" not in r and "l2" not in r]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", metavar="OUT_DIR", help="measure on this machine's GPU (nvcc, ncu) into OUT_DIR")
    ap.add_argument("--measured", default=str(MEASURED))
    ap.add_argument("--from-csv", help="summarize an ncu CSV that --run wrote (into --measured's folder)")
    ap.add_argument("--gpu", default="NVIDIA H200", help="the GPU the CSV was measured on (with --from-csv)")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "memory_probe_compare.json"))
    ns = ap.parse_args(argv)
    if ns.run:
        return run(Path(ns.run))
    if ns.from_csv:     # the same summary from a fetched CSV, should the GPU run have stopped after ncu
        return summarize(Path(ns.from_csv).read_text(), ns.gpu, Path(ns.measured).parent)
    measured = json.loads(Path(ns.measured).read_text())
    rows = compare(measured)
    agree = sum(1 for r in compared(rows) if r["analyzer"] is not None and
                abs(r["analyzer"] - r["measured"]) <= 0.05 * r["measured"])
    print(f"{'variant':<18} {'per request':<10} {'measured':>9} {'analyzer':>9}")
    for r in rows:
        est = "-" if r["analyzer"] is None else f"{r['analyzer']:.2f}"
        print(f"{r['variant']:<18} {r['what']:<10} {r['measured']:>9.2f} {est:>9}  {r.get('note', '')}")
    print(f"{agree} of {len(compared(rows))} compared within 5% (measured on {measured['gpu']})")
    l2 = [r for r in rows if r.get("l2")]
    if l2:
        print(f"16-byte cp.async, L2 sectors: {sum(r['analyzer'] == r['measured'] for r in l2)} of {len(l2)} equal")
    Path(ns.out).write_text(json.dumps({"measured_on": measured["gpu"], "agree_within_5pct": agree,
                                        "compared": len(compared(rows)), "rows": rows}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
