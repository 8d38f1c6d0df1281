"""How a warp's wmma tile loads and stores reach memory, measured, against the analyzer's model.

The analyzer models `wmma::load_matrix_sync` / `store_matrix_sync` of 16x16x16 fragments as the
instructions ptxas makes of them for sm_90 (analyzer/access.py `_wmma`: LDSM.16.M88.4 from shared
memory, four 4-byte LDGs from global memory, 8-byte (row-major) or 4-byte (column-major) stores
of a float accumulator). This probe runs one warp of each pattern once under Nsight Compute on
the GPU and reads what the hardware counted: wavefronts per shared request (LDSM and plain
shared loads, shared stores) and sectors per global request, for leading dimensions that do and
do not conflict.

    python bench/wmma_probe.py --run OUT_DIR     # on the GPU machine (nvcc, ncu): writes OUT_DIR/wmma_probe.json
    python bench/wmma_probe.py                   # here: the analyzer's estimates beside the measured figures
                                                 # (bench/results/h200/wmma_probe.json), a table, and
                                                 # bench/results/wmma_probe_compare.json
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
MEASURED = ROOT / "bench" / "results" / "h200" / "wmma_probe.json"

LOAD_LDMS = (16, 24, 32, 40, 48, 64, 72, 80)      # halves: 32..160 bytes a row
GLOBAL_LDMS = (16, 64, 72)
STORE_LDMS = (16, 20, 24, 32, 36)                 # floats

SOURCE = r"""
#include <mma.h>
#include <cuda_fp16.h>
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
        (out_dir / "wmma_probe.sass").write_text(sass)
        proc = subprocess.run(["ncu", "--clock-control", "none", "--csv", "--metrics", ",".join(METRICS.values()),
                               str(exe)], capture_output=True, text=True)
        (out_dir / "wmma_probe_ncu.csv").write_text(proc.stdout + proc.stderr)
        if proc.returncode != 0:
            print(proc.stdout[-3000:], proc.stderr[-3000:])
            return 1
    gpu = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout.strip()
    return summarize(proc.stdout, gpu, out_dir)


def summarize(ncu_csv: str, gpu: str, out_dir: Path) -> int:
    """ncu's CSV (one row per kernel and metric) as {variant: {metric: value}} in wmma_probe.json;
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
    (out_dir / "wmma_probe.json").write_text(json.dumps(result, indent=2) + "\n")
    print(f"{'variant':<20}" + "".join(f"{k:>17}" for k in METRICS))
    for expr, _ in variants():
        got = rows.get(expr, {})
        print(f"{expr:<20}" + "".join(f"{got.get(k, float('nan')):>17.0f}" for k in METRICS))
    return 0


def estimates(expr: str, source: str) -> dict[str, float | None]:
    """The analyzer's per-request figures for the wmma access of one variant (one warp)."""
    sys.path.insert(0, str(ROOT))
    from analyzer.lint import LaunchSpec, lint_source

    res = lint_source(source, "wmma_probe.cu", kernels=[expr], default_launch=LaunchSpec(block=(32, 1, 1), grid=(1, 1, 1)))
    ctx = res.contexts[0]
    out: dict[str, float | None] = {}
    for a, e in zip(ctx.accesses.accesses, ctx.estimates):
        if "matrix_sync" not in a.text or e is None or not e.requests:
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
        elif expr.startswith("ldg_"):   # the tile's loads; the column-major store of the result too
            pairs = [("global_ld", got["gld_sectors"] / got["gld_requests"]),
                     ("global_st", got["gst_sectors"] / got["gst_requests"])]
        else:                           # the tile's stores (the read-back is a load)
            pairs = [("shared_st", got["shst_wavefronts"] / got["shst_requests"])]
        for key, value in pairs:
            rows.append({"variant": expr, "what": key, "measured": value, "analyzer": est.get(key)})
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", metavar="OUT_DIR", help="measure on this machine's GPU (nvcc, ncu) into OUT_DIR")
    ap.add_argument("--measured", default=str(MEASURED))
    ap.add_argument("--from-csv", help="summarize an ncu CSV that --run wrote (into --measured's folder)")
    ap.add_argument("--gpu", default="NVIDIA H200", help="the GPU the CSV was measured on (with --from-csv)")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "wmma_probe_compare.json"))
    ns = ap.parse_args(argv)
    if ns.run:
        return run(Path(ns.run))
    if ns.from_csv:     # the same summary from a fetched CSV, should the GPU run have stopped after ncu
        return summarize(Path(ns.from_csv).read_text(), ns.gpu, Path(ns.measured).parent)
    measured = json.loads(Path(ns.measured).read_text())
    rows = compare(measured)
    agree = sum(1 for r in rows if r["analyzer"] is not None and abs(r["analyzer"] - r["measured"]) <= 0.05 * r["measured"])
    print(f"{'variant':<18} {'per request':<10} {'measured':>9} {'analyzer':>9}")
    for r in rows:
        est = "-" if r["analyzer"] is None else f"{r['analyzer']:.2f}"
        print(f"{r['variant']:<18} {r['what']:<10} {r['measured']:>9.2f} {est:>9}")
    print(f"{agree} of {len(rows)} within 5% (measured on {measured['gpu']})")
    Path(ns.out).write_text(json.dumps({"measured_on": measured["gpu"], "agree_within_5pct": agree,
                                        "rows": rows}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
