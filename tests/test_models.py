"""Hand-checked expectations for the coalescing, bank-conflict and occupancy models."""
from __future__ import annotations

import json

import numpy as np
import pytest

from analyzer import models
from analyzer.access import analyze
from analyzer.parse import parse

TRANSPOSE = """
#define TILE 32
__global__ void naive(const float* in, float* out, int n) {
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  out[x * n + y] = in[y * n + x];
}
__global__ void tiled(const float* in, float* out, int n) {
  __shared__ float tile[TILE][TILE];
  tile[threadIdx.y][threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}
__global__ void padded(const float* in, float* out, int n) {
  __shared__ float tile[TILE][TILE + 1];
  tile[threadIdx.y][threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}
__global__ void vec4(const float4* in, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i];
}
"""
LAUNCH_32x32 = models.Launch(block=(32, 32, 1), grid=(64, 64, 1), args={"n": 2048})


def estimates(kernel: str, launch: models.Launch, src: str = TRANSPOSE):
    p = parse(src)
    ka = analyze(p, p.function(kernel))
    return [(a, models.estimate(a, launch)) for a in ka.accesses]


def by(items, array, kind):
    return next(e for a, e in items if a.array == array and a.kind == kind)


def test_naive_transpose_store_is_32_sectors_per_request():
    items = estimates("naive", LAUNCH_32x32)
    store = by(items, "out", "store")
    load = by(items, "in", "load")
    assert store.per_request == 32 and store.ideal_per_request == 4
    assert load.per_request == 4 and load.ideal_per_request == 4


def test_column_read_of_32x32_tile_is_32_way_and_padding_removes_it():
    tiled = by(estimates("tiled", LAUNCH_32x32), "tile", "load")
    padded = by(estimates("padded", LAUNCH_32x32), "tile", "load")
    assert tiled.ways == 32 and tiled.per_request == 32
    assert padded.ways == 1 and padded.per_request == 1
    # the row-wise write is conflict free in both
    assert by(estimates("tiled", LAUNCH_32x32), "tile", "store").ways == 1


def test_float4_contiguous_load_is_16_sectors_with_no_waste():
    load = by(estimates("vec4", models.Launch(block=(256, 1, 1))), "in", "load")
    assert load.per_request == 16 and load.ideal_per_request == 16


def test_small_blocks_fold_threadidx_y_into_the_warp():
    # 16x16 block: a warp is two rows of 16; a row-major access still touches 4 sectors if rows are contiguous
    src = "__global__ void k(float* a, int n) { a[threadIdx.y * 16 + threadIdx.x] = 1.0f; a[threadIdx.y * n + threadIdx.x] = 2.0f; }"
    items = estimates("k", models.Launch(block=(16, 16, 1), args={"n": 4096}), src)
    contiguous, strided = [e for _, e in items]
    assert contiguous.per_request == 4
    assert strided.per_request == 4 and strided.ideal_per_request == 4  # two 64-byte runs: 2+2 sectors


def test_sectors_and_wavefronts_count_like_the_hardware(lane_code):
    lanes = np.arange(32)
    act = np.ones(32, dtype=bool)
    # stride 2 floats: 256 bytes -> 8 sectors, ideal 4
    r, s, i = models.global_sectors(lanes * 8, act, 4)
    assert (r[0], s[0], i[0]) == (1, 8, 4)
    # misaligned by one float: 5 sectors
    r, s, i = models.global_sectors(lanes * 4 + 4, act, 4)
    assert s[0] == 5
    # shared: stride 2 words is 2-way, stride 32 is 32-way, all lanes on one word is a broadcast
    assert models.shared_wavefronts(lanes * 8, act, 4)[1][0] == 2
    assert models.shared_wavefronts(lanes * 128, act, 4)[1][0] == 32
    assert models.shared_wavefronts(np.zeros(32, dtype=np.int64), act, 4)[1][0] == 1
    # 8-byte stride-1: two phases, conflict free; 16-byte stride-1: four phases
    r, w, ideal = models.shared_wavefronts(lanes * 8, act, 8)
    assert (w[0], ideal[0]) == (2, 2)
    r, w, ideal = models.shared_wavefronts(lanes * 16, act, 16)
    assert (w[0], ideal[0]) == (4, 4)
    # inactive lanes make no traffic; a warp with none makes no request
    r, s, i = models.global_sectors(lanes * 4, np.zeros(32, dtype=bool), 4)
    assert (r[0], s[0]) == (0, 0)


@pytest.fixture(params=["c", "numpy"])
def lane_code(request, monkeypatch):
    """The lane models' two forms: the C loops (analyzer/_lanes.pyx, where built) and numpy."""
    if request.param == "c" and models._lanes is None:
        pytest.skip("analyzer._lanes is not built in this install (pure Python)")
    if request.param == "numpy":
        monkeypatch.setattr(models, "_lanes", None)
    return request.param


def test_wide_and_odd_width_elements(lane_code):
    lanes = np.arange(32)
    act = np.ones(32, dtype=bool)
    # a 64-byte element covers 2 sectors, 3 when misaligned: 32 lanes x 64 B from byte 4 touch
    # sectors 0..64
    assert [x[0] for x in models.global_sectors(lanes * 64, act, 64)] == [1, 64, 64]
    assert [x[0] for x in models.global_sectors(lanes * 64 + 4, act, 64)] == [1, 65, 64]
    # a 12-byte float3 in shared memory is three 4-byte accesses; a stride of 3 words is
    # conflict free (3 is odd), so 3 wavefronts where 3 is the least
    assert [x[0] for x in models.shared_wavefronts(lanes * 12, act, 12)] == [1, 3, 3]
    # a 32-byte double4 is two 16-byte accesses, each in four phases of 8 lanes; lanes 32 bytes
    # apart fill only every other 4-bank group, so lanes l and l+4 share banks: 2-way
    assert [x[0] for x in models.shared_wavefronts(lanes * 32, act, 32)] == [1, 16, 8]
    # a warp whose lanes are all idle makes no request, whatever the width
    assert [x[0] for x in models.shared_wavefronts(lanes * 12, ~act, 12)] == [0, 0, 0]


def test_wide_shared_accesses_count_as_the_h200_does(lane_code):
    """8- and 16-byte shared loads: the corpus's bank_sweep `wide` kernels (lane l reads chunk
    (l / G) * A + (l % G) * C) as the H200's counters measured them: wavefronts and conflict-free
    wavefronts per request. Phases of 128 bytes, but the phases of a unit (the warp for 8 bytes,
    a half-warp for 16) go in one pass where its groups of 8 lanes read at most 128 distinct
    bytes together: a broadcast LDS.128 is 2 wavefronts, not 4."""
    from corpus import store
    from corpus.families import bank_sweep

    df = store.read()
    rows = df[(df["family"] == "bank_sweep") & df["variant"].str.startswith("wide_") & df["has_counters"]
              & (df["pass"] == "main")]
    assert len(rows) == len(bank_sweep.WIDE_TYPES) * len(bank_sweep.WIDE_PATTERNS)
    lane = np.arange(32)
    for _, row in rows.iterrows():
        p = json.loads(row["params"])
        width, g, a, c = p["elem_bytes"], p["group"], p["group_step"], p["lane_step"]
        addr = (((lane // g) * a + (lane % g) * c) * width).astype(np.int64)
        r, w, ideal = models.shared_wavefronts(addr, np.ones(32, dtype=bool), width)
        measured_w = row["shld_wavefronts"] / row["shld_requests"]
        measured_ideal = (row["shld_wavefronts"] - row["shld_bank_conflicts"]) / row["shld_requests"]
        assert (w[0], ideal[0]) == (pytest.approx(measured_w, rel=0.01), pytest.approx(measured_ideal, rel=0.01)), \
            row["variant"]


def test_c_lane_loops_count_as_numpy_does():
    """The C loops against the numpy reference on random warps: every width, aligned and not,
    dense and scattered, negative offsets, partly and wholly idle warps."""
    if models._lanes is None:
        pytest.skip("analyzer._lanes is not built in this install (pure Python)")
    rng = np.random.default_rng(7)
    for trial in range(700):
        warps = int(rng.integers(1, 5))
        n = 32 * warps
        size = int(rng.choice([1, 2, 4, 8, 16, 32]))
        lane = np.arange(n)
        addr = [lane * size, lane * size * int(rng.integers(1, 40)), rng.integers(-512, 512, n),
                (lane // 4) * 128 + int(rng.integers(0, 64)), np.zeros(n, dtype=np.int64) + int(rng.integers(-9, 99)),
                # descending, and ascending with a step down part-way (the C count's sorted fast path ends there)
                (n - lane) * size, np.where(lane % 32 < int(rng.integers(1, 32)), lane, lane - 40) * size][trial % 7]
        addr = np.asarray(addr, dtype=np.int64) + int(rng.integers(0, 3)) * int(rng.integers(0, 2))
        active = rng.random(n) < [1.0, 0.5, 0.0, 0.9][trial % 4]
        a, m = models._warps(addr, n), models._warps(active, n)
        c = models.global_sectors(addr, active, size)
        ref = models._global_sectors(a, m, size)
        assert all(np.array_equal(x, y) for x, y in zip(c, ref)), (trial, size)
        if size <= 16:
            c = models._shared_piece(a, m, size)
            ref = models._shared_wavefronts(a, m, size)
            assert all(np.array_equal(x, y) for x, y in zip(c, ref)), (trial, size)


def test_c_warp_split_decides_as_numpy_does(monkeypatch):
    """is_divergent's C test (analyzer._lanes.split_warp) against its numpy form: on random
    lanes and guards of every shape a condition evaluates to, and on the branches of real
    kernels (each family variant at its first size)."""
    if models._lanes is None:
        pytest.skip("analyzer._lanes is not built in this install (pure Python)")
    rng = np.random.default_rng(11)
    for trial in range(400):
        points, n = int(rng.integers(1, 6)), 32 * int(rng.integers(1, 4))
        active = rng.random((points, n)) < [1.0, 0.7, 0.03, 0.0][trial % 4]
        values = [rng.random((points, n)) < 0.5, rng.random((1, n)) < 0.5,
                  np.repeat(rng.random((points, 1)) < 0.5, n, axis=1), np.ones((points, n), dtype=bool),
                  (np.arange(n) // 32 % 2 == 0)[None, :].repeat(points, axis=0)][trial % 5]
        full = np.broadcast_to(values, (points, n)).reshape(-1, 32)
        m = active.reshape(-1, 32)
        ref = bool(np.any(np.any(full & m, axis=1) & np.any(~full & m, axis=1)))
        assert models._lanes.split_warp(values.view(np.uint8), active.view(np.uint8)) is ref, trial

    from analyzer.lint import LaunchSpec, lint_source
    from corpus.families import all_samples
    from rewardmodel.dataset import sample_args
    seen, answers = set(), []
    for s in all_samples():
        if (s.family, s.variant) in seen:
            continue
        seen.add((s.family, s.variant))
        res = lint_source(s.source, kernels=[s.kernel], launches={s.kernel: LaunchSpec(s.block, s.grid, s.smem, sample_args(s))})
        for ctx in res.contexts:
            for b in ctx.accesses.branches:
                answers.append((ctx, b, models.is_divergent(b.cond, b.loops, b.guards, ctx.launch, cache=models.PointCache())))
    assert sum(a is True for *_, a in answers) >= 10 and sum(a is False for *_, a in answers) >= 10
    monkeypatch.setattr(models, "_lanes", None)
    for ctx, b, a in answers:
        assert models.is_divergent(b.cond, b.loops, b.guards, ctx.launch, cache=models.PointCache()) is a, b.text


@pytest.mark.parametrize("arch,threads,regs,smem,expected,limiter", [
    ("sm_90", 256, 32, 0, 1.0, "warps"),
    ("sm_90", 256, 64, 0, 0.5, "registers"),      # 64 regs * 256 threads = 16384/block -> 4 blocks -> 32 warps
    ("sm_90", 256, 255, 0, 0.125, "registers"),
    ("sm_90", 128, 32, 48 * 1024, 0.25, "shared memory"),   # 228 KB / (48 KB + 1 KB) = 4 blocks of 4 warps
    ("sm_86", 1024, 32, 0, 32 / 48, "warps"),
    ("sm_80", 32, 16, 0, 0.5, "blocks"),         # 32 blocks x 1 warp of 64
    ("sm_89", 32, 16, 0, 0.5, "blocks"),         # 24 blocks x 1 warp of 48
])
def test_theoretical_occupancy(arch, threads, regs, smem, expected, limiter):
    occ = models.occupancy(models.arch(arch), threads, regs, smem)
    assert occ.occupancy == pytest.approx(expected)
    assert occ.limiter == limiter


def test_occupancy_zero_when_a_block_cannot_fit():
    assert models.occupancy(models.arch("sm_90"), 256, 0, 300 * 1024).occupancy == 0
    assert models.occupancy(models.arch("sm_90"), 2048, 32, 0).occupancy == 0


def test_reduction_loop_is_enumerated_to_its_end():
    src = """
    __global__ void r(float* out) {
      __shared__ float s[256];
      for (unsigned k = 1; k < blockDim.x; k *= 2) {
        unsigned index = 2 * k * threadIdx.x;
        if (index < blockDim.x) s[index] += s[index + k];
      }
    }"""
    items = estimates("r", models.Launch(block=(256, 1, 1)), src)
    load = [e for a, e in items if a.kind == "load"][0]
    # k=1: 2-way, k=2: 4-way, k=4: 8-way, k=8: 16-way, then fewer active lanes; a conflict-free
    # version would be 1. Warps with no active lane make no request.
    assert 2 < load.ways < 16


def test_grid_stride_loop_trip_count_weights_requests():
    src = "__global__ void k(const float* x, float* y, int n) { for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = x[i]; }"
    launch = models.Launch(block=(256, 1, 1), grid=(16, 1, 1), args={"n": 1 << 20})
    load = [e for a, e in estimates("k", launch, src) if a.kind == "load"][0]
    # n / (256 * 16) = 256 iterations for each of 8 warps
    assert load.requests == pytest.approx(256 * 8)
    assert load.per_request == 4


@pytest.mark.parametrize("cond", ["i < n", "n > i", "i <= n - 1", "n - 1 >= i", "i < n && i >= 0",
                                  "i >= 0 && n > i", "i < n && i < 2 * n"])
def test_grid_stride_trip_count_whichever_way_the_condition_is_written(cond):
    # the bound on either side, or a conjunction whose other part never ends the loop (`i >= 0`
    # as i rises) or ends it later: 256 iterations, as `i < n` (they were counted as 8 samples)
    src = ("__global__ void k(const float* x, float* y, int n) { for (int i = blockIdx.x * blockDim.x + threadIdx.x; "
           f"{cond}; i += blockDim.x * gridDim.x) y[i] = x[i]; }}")
    launch = models.Launch(block=(256, 1, 1), grid=(16, 1, 1), args={"n": 1 << 20})
    load = [e for a, e in estimates("k", launch, src) if a.kind == "load"][0]
    assert load.requests == pytest.approx(256 * 8)


def test_a_conjunction_ends_at_its_first_bound():
    src = ("__global__ void k(const float* x, float* y, int n, int m) { for (int i = threadIdx.x; "
           "i < n && i < m; i += blockDim.x) y[i] = x[i]; }")
    launch = models.Launch(block=(256, 1, 1), grid=(1, 1, 1), args={"n": 1 << 20, "m": 64 * 256})
    load = [e for a, e in estimates("k", launch, src) if a.kind == "load"][0]
    assert load.requests == pytest.approx(64 * 8)


def test_a_loop_nest_larger_than_the_sample_budget_counts_every_iteration():
    # 16 channels x 5 x 5 taps = 400 iterations, more points than the budget of 64: the samples
    # the budget reaches stand for the rest (it counted a quarter of them)
    src = """__global__ void k(const float* x, float* y, int C, int W) {
      int ox = blockIdx.x * 32 + threadIdx.x;
      float acc = 0.0f;
      for (int c = 0; c < C; ++c)
        for (int ky = 0; ky < 5; ++ky)
          for (int kx = 0; kx < 5; ++kx)
            acc += x[(c * 8 + ky) * W + ox + kx];
      y[ox] = acc;
    }"""
    launch = models.Launch(block=(64, 1, 1), grid=(8, 1, 1), args={"C": 16, "W": 4096})
    load = [e for a, e in estimates("k", launch, src) if a.kind == "load"][0]
    assert load.requests == pytest.approx(2 * 16 * 25)


def test_a_triangular_nest_counts_the_inner_work_of_every_row():
    # row i reads i elements: 0 + 1 + ... + 511 = 130,816 iterations of one warp. The first 8
    # samples of i (0..7) run 28 of them; the samples stand for what an average row does
    src = """__global__ void k(const float* l, float* b, int n) {
      float acc = 0.0f;
      for (int i = 0; i < n; ++i)
        for (int k = 0; k < i; ++k)
          acc += l[i * n + k] * b[k * 32 + threadIdx.x];
      b[threadIdx.x] = acc;
    }"""
    launch = models.Launch(block=(32, 1, 1), grid=(1, 1, 1), args={"n": 512})
    loads = [e for a, e in estimates("k", launch, src) if a.kind == "load"]
    assert all(e.requests == pytest.approx(512 * 511 / 2, rel=0.02) for e in loads)


def test_roofline():
    a = models.arch("sm_90")
    assert models.roofline_seconds(a, 4.3e12, 0) == pytest.approx(1.0)
    assert models.roofline_seconds(a, 0, 67e12) == pytest.approx(1.0)


def test_pointer_fields_of_structs_are_accessed_bases():
    src = """struct Particles { float* x; float* y; const float* vx; int n; };
    __global__ void push(Particles p, float dt) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      p.x[i] += dt * p.vx[i];
      p.y[i * 32] = 0.0f;
    }"""
    items = estimates("push", models.Launch(block=(256, 1, 1)), src)
    by_base = {(a.array, a.kind): e for a, e in items}
    assert by_base[("p.x", "load")].per_request == 4 and by_base[("p.vx", "load")].per_request == 4
    assert by_base[("p.y", "store")].per_request == 32


def test_time_estimate_is_the_slowest_pipe_plus_the_launch():
    a = models.arch("sm_90")
    sm_clk = a.sm_count * a.clock_hz
    zero = dict(task_bytes=0.0, flops=0.0, traffic_bytes=0.0, global_requests=0.0, shared_wavefronts=0.0,
                atomic_ops=0.0)
    assert models.time_estimate(a, **zero) == pytest.approx(a.launch_s)
    # each pipe alone, one second's worth at the rates bench/gpu_pipes.py measured on the H200
    for key, amount in [("task_bytes", 4.3e12), ("flops", 67e12), ("traffic_bytes", 7.64e12),
                        ("global_requests", 0.75 * sm_clk), ("shared_wavefronts", 1.0 * sm_clk),
                        ("atomic_ops", 4.93e11)]:
        assert models.time_estimate(a, **{**zero, key: amount}) == pytest.approx(1.0 + a.launch_s), key
    # the slowest wins (no sum): a second of DRAM and half a second of shared memory is a second
    assert models.time_estimate(a, **{**zero, "task_bytes": 4.3e12, "shared_wavefronts": 0.5 * sm_clk}) == \
        pytest.approx(1.0 + a.launch_s)
    # an arch with no measured L2 rate takes 1.7x its DRAM bandwidth
    a80 = models.arch("sm_80")
    assert models.time_estimate(a80, **{**zero, "traffic_bytes": 3.4e12}) == pytest.approx(1.0 + a80.launch_s)
    # pipe_times gives each pipe's seconds, the estimate's inputs
    times = models.pipe_times(a, **{**zero, "task_bytes": 4.3e12, "shared_wavefronts": 0.5 * sm_clk})
    assert set(times) == set(models.PIPES)
    assert times["dram"] == pytest.approx(1.0) and times["shared"] == pytest.approx(0.5)
    assert times["l2"] == times["requests"] == times["atomics"] == times["fp32"] == 0.0


HISTOGRAM = """
__global__ void hist(const int* data, int* bins, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[data[i]], 1);
}
__global__ void half_block(const int* data, int* bins) {
    if (threadIdx.x < 64) atomicAdd(&bins[data[threadIdx.x]], 1);
}
__global__ void strided(const int* data, int* bins, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&bins[data[i]], 1);
}
"""


@pytest.mark.parametrize("kernel, grid, args, expected", [
    ("hist", 100, {"n": 100 * 256}, 8),           # 256 threads: 8 warps, one request each
    ("half_block", 100, {}, 2),                    # 64 active threads: 2 warps
    ("strided", 10, {"n": 10 * 256 * 10}, 80),     # 10 trips of the grid-stride loop for 8 warps
])
def test_warp_requests_of_a_data_dependent_access(kernel, grid, args, expected):
    from analyzer.lint import LaunchSpec, LintSettings, lint_source

    r = lint_source(HISTOGRAM, "h.cu", settings=LintSettings(), kernels=[kernel],
                    launches={kernel: LaunchSpec((256, 1, 1), (grid, 1, 1), 0, args)})
    ctx = r.contexts[0]
    (load, load_e), (atomic, atomic_e) = zip(ctx.accesses.accesses, ctx.estimates)
    assert atomic.kind == "atomic" and atomic_e is None        # bins[data[i]]: no traffic estimate
    assert ctx.unknown_requests == [None, pytest.approx(expected)]
    # the count is the one an estimate gives an access with a known address under the same guards
    assert load_e.requests == pytest.approx(expected)


def test_last_iteration_of_a_multiplicative_loop_and_none_where_unknown():
    src = """__global__ void k(float* x, int n) {
  for (int d = 256; d > 0; d >>= 1) x[d] = 0;
  for (int i = 0; i < n; i++) x[i] = 1;
  for (int s = 1; s < (1 << 20); s <<= 1) x[s] = 2;
}"""
    p = parse(src)
    ka = analyze(p, p.function("k"))
    halving, counting, doubling = (a.loops[0] for a in ka.accesses)
    env = {"n": 100}
    assert models.last_iteration(halving, env)[halving.var] == 1       # 256, 128, ..., 1
    assert models.last_iteration(counting, env) is None          # additive loops are sampled, not walked
    assert models.last_iteration(doubling, env, cap=8) is None   # longer than the cap
    assert models.last_iteration(doubling, env)[doubling.var] == 1 << 19


MASKED = """__global__ void visit(const bool* mask, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && mask[i]) out[i] = 1.0f;
  if (mask[i] && i < n) out[n + i] = 2.0f;
  if (i < n || mask[i]) out[2 * n + i] = 3.0f;
}
"""


def test_a_bounds_check_anded_with_a_load_still_masks_lanes():
    """Rodinia's BFS: `if (tid < no_of_nodes && g_graph_mask[tid])`. The load's side cannot be
    evaluated and counts as true, as a whole guard that cannot be does; the bounds check still
    leaves 100 of the block's 256 threads, 4 warps. `||` with an unknown side says nothing."""
    from analyzer.lint import LaunchSpec, LintSettings, lint_source

    r = lint_source(MASKED, "m.cu", settings=LintSettings(), kernels=["visit"],
                    launches={"visit": LaunchSpec((256, 1, 1), (1, 1, 1), 0, {"n": 100})})
    ctx = r.contexts[0]
    stores = [e for a, e in zip(ctx.accesses.accesses, ctx.estimates) if a.kind == "store"]
    assert [e.requests for e in stores] == [pytest.approx(4), pytest.approx(4), pytest.approx(8)]
    assert [e.active_lanes for e in stores[:2]] == [pytest.approx(25), pytest.approx(25)]
