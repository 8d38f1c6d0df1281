"""wmma tile loads and stores (analyzer/access.py `_wmma`): the instructions ptxas makes of a
16x16x16 fragment's load_matrix_sync / store_matrix_sync on sm_90, as lane addresses."""
from __future__ import annotations

from analyzer.lint import LaunchSpec, lint_source

HEAD = """#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;
"""


def wmma_accesses(src, kernel, block=(32, 1, 1), head=HEAD):
    res = lint_source(head + src, "w.cu", kernels=[kernel], default_launch=LaunchSpec(block=block, grid=(1, 1, 1)))
    ctx = res.contexts[0]
    got = [(a.space, a.kind, a.elem_size, e.per_request, e.ideal_units / e.requests)
           for a, e in zip(ctx.accesses.accesses, ctx.estimates) if "matrix_sync" in a.text and e is not None]
    return got, res


def _probe():
    """bench/memory_probe.py: its kernels are the ones measured on the H200."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "bench" / "memory_probe.py"
    spec = importlib.util.spec_from_file_location("memory_probe", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PROBE = _probe()


def probe_accesses(kernel):
    return wmma_accesses(PROBE.SOURCE, kernel, head="")


def test_a_tile_from_shared_memory_is_one_ldsm_whose_rows_conflict_at_a_32_byte_pitch():
    # rows 32 bytes apart: rows 0 and 4 of each 8x8 matrix share banks (2 wavefronts a phase);
    # 48 bytes (LDM 24, the usual padding) puts the 8 rows in 8 distinct 16-byte bank groups
    for ldm, per_request in ((16, 8.0), (24, 4.0), (64, 32.0), (72, 4.0)):
        got, res = probe_accesses(f"lds_a_row<{ldm}>")
        assert ("shared", "load", 16, per_request, 4.0) in got, (ldm, got)
        assert ("global", "store", 8, 8.0, 8.0) in got               # the accumulator, row-major: 8 rows of 32 bytes
        conflicts = [f for f in res.findings if f.code == "SM201"]
        assert bool(conflicts) == (per_request > 4.0)


def test_a_tile_from_global_memory_is_four_4_byte_loads_of_16_bytes_a_row():
    got, res = probe_accesses("ldg_a_row<64>")
    assert got.count(("global", "load", 4, 8.0, 4.0)) == 4             # 8 rows x 16 bytes an instruction
    assert got.count(("global", "store", 4, 4.0, 4.0)) == 8            # column-major: 4 columns of 8 floats
    assert [f.code for f in res.findings if f.code == "GM101"] == ["GM101"]


def test_accumulator_stores_to_shared_memory_row_and_column_major():
    row, _ = probe_accesses("sts_acc<24, 0>")
    assert row.count(("shared", "store", 8, 2.0, 2.0)) == 4
    col, _ = probe_accesses("sts_acc<32, 1>")
    assert len(col) == 8 and all(a[:3] == ("shared", "store", 4) for a in col)
    assert {a[3] for a in col} == {4.0}       # 4 columns 128 bytes apart: the same 8 banks each


def test_fragments_through_constants_typedefs_and_arrays_and_other_shapes_left_out():
    got, _ = wmma_accesses("""
#define WM 16
using namespace nvcuda::wmma;
typedef fragment<matrix_a, WM, WM, WM, half, row_major> FragA;
__global__ void k(const half* __restrict__ g, float* out) {
  __shared__ half s[2][16 * 24];
  FragA a[2];
  fragment<matrix_b, 16, 16, 16, half, col_major> b;
  fragment<matrix_b, 32, 8, 16, half, col_major> odd;
  fragment<accumulator, 16, 16, 16, float> c;
  for (int i = threadIdx.x; i < 2 * 16 * 24; i += 32) s[i / 384][i % 384] = g[i];
  __syncthreads();
  load_matrix_sync(a[1], &s[1][0], 24);
  load_matrix_sync(odd, &s[0][0], 24);
  mma_sync(c, a[1], b, c);
  store_matrix_sync(out, c, 16, mem_row_major);
}""", "k")
    assert ("shared", "load", 16, 4.0, 4.0) in got
    assert len([a for a in got if a[1] == "load"]) == 1                 # the 32x8x16 fragment: not modelled


def test_the_model_replays_the_h200s_counters_for_every_probed_tile():
    """bench/memory_probe.py ran one warp of each pattern under Nsight Compute on the H200 (LDSM with
    pitches of 32..160 bytes, global tiles, accumulator stores row- and column-major at 5 pitches,
    and inline PTX: ldmatrix .x2, ld.global.nc.v4, cp.async of 4 bytes);
    the committed counters are what the analyzer's estimates must give, variant by variant."""
    import json

    probe = PROBE
    measured = json.loads(probe.MEASURED.read_text())
    assert "H200" in measured["gpu"] and len(measured["variants"]) == 40
    rows = probe.compared(probe.compare(measured))
    assert len(rows) == 36       # wmma tiles, ldmatrix .x2, vector and 4-byte cp.async loads in inline PTX
    assert {r["measured"] for r in rows} >= {1.0, 2.0, 4.0, 8.0, 16.0, 32.0}     # conflicts of every degree
    for r in rows:
        assert r["analyzer"] == r["measured"], r


def test_l2_reads_of_the_16_byte_cp_async():
    """The L1-bypassing copy's sectors read from L2 (measured on the H200): the source's sectors,
    which the analyzer counts, wherever the 16-byte shared slots are contiguous; one sector a lane
    where they are spread (a known gap: the analyzer gives the source's 16 there)."""
    import json

    measured = json.loads(PROBE.MEASURED.read_text())
    rows = [r for r in PROBE.compare(measured) if r.get("l2")]
    assert len(rows) == 7
    spread = {"cpa_intr<1, 2>", "cpa_intr<1, 8>"}      # destination slots 32 and 128 bytes apart
    for r in rows:
        if r["variant"] in spread:
            assert (r["measured"], r["analyzer"]) == (32.0, 16.0), r
        else:
            assert r["analyzer"] == r["measured"], r


def test_findings_on_wmma_tiles_say_what_to_do():
    _, res = probe_accesses("lds_a_row<16>")
    (sm,) = [f for f in res.findings if f.code == "SM201"]
    assert "odd multiple of 16 bytes" in sm.message and "pad the leading dimension" in sm.message
    _, res = wmma_accesses("""
__global__ void k(const half* __restrict__ g, float* out, int ldm) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
  wmma::load_matrix_sync(a, g + blockIdx.x * 16, ldm);
}""", "k")
    (gm,) = [f for f in res.findings if f.code == "GM101"]
    assert "stage tiles in shared memory" in gm.message
