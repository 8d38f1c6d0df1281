"""Code under edit (an RL policy's, or a half-typed file) with values no kernel can have: sizes of
1e309 or 1 << 63, shifts by negative counts, steps of 1e-308, a `a[]` subscript, a 1 GB struct.
Each once raised from the analyzer (found by fuzzing mutated corpus kernels); now each lints,
and what cannot be a size is treated as unknown."""
from __future__ import annotations

import re

import numpy as np
import pytest

from analyzer import models
from analyzer.access import analyze
from analyzer.lint import lint_source
from analyzer.parse import count, parse

CASES = {
    "empty subscript": "__global__ void k(float* w) {\n    w[] = 0.0f;\n}\n",
    "launch bounds 1<<63": "__global__ void __launch_bounds__(1L<<63) k(float* out) { out[threadIdx.x] = 0.0f; }\n",
    "launch bounds 1e309": "__global__ void __launch_bounds__(1e309) k(float* out) { out[threadIdx.x] = 0.0f; }\n",
    "shared dim 1e309": "__global__ void k(float* out) { __shared__ float s[1e309]; s[threadIdx.x] = 0.0f; }\n",
    "step 1e-308": "__global__ void k(float* out) { for (int j = 0; j < 32; j += 1e-308) out[j] = 0.0f; }\n",
    "negative right shift": "__global__ void k(float* out) { for (int s = 2; s > 0; s >>= -1) out[s] = 0.0f; }\n",
    "negative left shift": "__global__ void k(float* out) { for (int s = 1; s < 32; s <<= -1) out[s] = 0.0f; }\n",
    "shift by 1e308": """__global__ void k(float* out) {
    __shared__ float t[32];
    for (int o = 1; o < 32; o <<= 1e308) t[threadIdx.x] = 0.0f;
}
""",
    "start 256 / 1e-308": """__global__ void k(float* out) {
    for (int s = 256 / 1e-308; s > 0; s >>= 1) { if (threadIdx.x < s) out[threadIdx.x] = 0.0f; }
}
""",
    "step beyond int64": """__global__ void k(int* out) {
    __shared__ int local[256];
    for (int b = threadIdx.x; b < 256; b += 999999999999999999999) local[b] = 0;
}
""",
    "shared load at 1e308": """__global__ void k(float* out) {
    __shared__ float s[64];
    s[threadIdx.x] = 1.0f;
    out[threadIdx.x] = s[1e308];
}
""",
    "shared store at 1e308": """__global__ void k(float* out) {
    __shared__ float s[64];
    s[1e308] = 1.0f;
    out[threadIdx.x] = s[threadIdx.x];
}
""",
    "bound 1e308": """__global__ void k(int* a) {
    for (int i = threadIdx.y; i < 1e308; i += blockDim.y) a[i * 7] = 0;
}
""",
    "shift by 2^64 in a step": """__global__ void k(float* out) {
    for (int i = 100; i > 0; i >>= 1 << 18446744073709551616) out[i] = 0;
}
""",
    "constant shifted by 2^63": "#define N (1 << 0x8000000000000000)\n__global__ void k(float* a) { a[threadIdx.x % N] = 0; }\n",
    "bound 1 << 2^31": """#define NBINS (1 << 2147483648)
__global__ void k(int* h) { for (int b = threadIdx.x; b < NBINS; b += blockDim.x) h[b] = 0; }
""",
    "local array of 41e308": "__global__ void k(float* out) { char3 acc[41e308]; out[threadIdx.x] = acc[0].x; }\n",
    "lone surrogate": "__global__ void k(float* out) { out[threadIdx.x] = 0.0f; } // \ud800\n",
    "grid 1e309 at a launch": """__global__ void k(float* a) { a[threadIdx.x] = 0.0f; }
void run(float* a) { k<<<1e309, -4>>>(a); dim3 g(1e309, 2); k<<<g, 256>>>(a); }
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_code_under_edit_lints(name):
    res = lint_source(CASES[name], "x.cu")
    assert [k.name for k in res.kernels] == ["k"]


def test_what_cannot_be_a_size_is_unknown():
    assert count(1e309) is None and count(float("nan")) is None and count(-1) is None
    assert count(1 << 63, 1, 1 << 31) is None and count(True) is None and count("4") is None
    assert count(256.0) == 256 and count(0) == 0
    assert parse(CASES["launch bounds 1e309"]).function("k").launch_bounds.max_threads is None
    assert parse(CASES["launch bounds 1<<63"]).function("k").launch_bounds.max_threads is None
    assert parse(CASES["shared dim 1e309"]).function("k").shared[0].dims == (None,)
    p = parse(CASES["grid 1e309 at a launch"])
    assert all(l.grid is None for l in p.launches) and p.launches[0].block is None


def test_a_one_gigabyte_struct_costs_what_a_small_one_does():
    """Elements far wider than a sector (or than a shared-memory instruction) are counted from
    their spans: this once made an array per sector (~450 GB for this struct)."""
    src = "struct Big { char c[1 << 30]; };\n__global__ void k(Big* p) {\n    p[threadIdx.x] = p[0];\n}\n"
    p = parse(src)
    ka = analyze(p, p.function("k"))
    launch = models.Launch(block=(256, 1, 1))
    est = {a.kind: models.estimate(a, launch) for a in ka.accesses}
    # one element read by every lane: 2^30 / 32 sectors; 32 elements side by side: 32 times that
    assert (est["load"].per_request, est["load"].ideal_per_request) == (2 ** 25, 2 ** 25)
    assert (est["store"].per_request, est["store"].ideal_per_request) == (2 ** 30, 2 ** 30)
    # in shared memory: 2^26 16-byte pieces, every lane's at a 1 GB stride (one bank group): 32-way
    act = np.ones(32, dtype=bool)
    r, waves, ideal = models.shared_wavefronts(np.arange(32, dtype=np.int64) << 30, act, 1 << 30)
    assert (r[0], waves[0], ideal[0]) == (1, 2 ** 26 * 32, 2 ** 26 * 4)


def test_wide_elements_count_the_sectors_their_spans_cover():
    """The span count against a set of every sector each active lane's element touches."""
    rng = np.random.default_rng(3)
    for _ in range(300):
        size = int(rng.choice([33, 40, 48, 64, 96, 100, 128, 256, 1000]))
        addr = (np.arange(32) * int(rng.integers(0, 3 * size)) + rng.integers(-64, 64, 32)).astype(np.int64)
        active = rng.random(32) < 0.8
        want = {s for a, on in zip(addr, active) if on for s in range(a // 32, (a + size - 1) // 32 + 1)}
        assert models.global_sectors(addr, active, size)[1][0] == len(want)


def test_reward_takes_a_huge_scalar_argument():
    from rewardmodel.reward import reward

    src = """__global__ void k(int* a, int rows) {
    for (int i = threadIdx.y; i < rows; i += blockDim.y) a[i * 7] = 0;
}
"""
    br, feats, _ = reward(src, "k", grid=(1, 1, 1), block=(3, 5, 7), args={"rows": 1e308})
    assert br.gates["parse"].passed and feats is not None


def test_features_of_a_shared_array_of_1e308_elements():
    from rewardmodel.features import FEATURE_NAMES, extract

    f = extract("__global__ void k(int* out) {\n    __shared__ int s[1e308];\n    s[threadIdx.x] = 0;\n}\n", "k",
                grid=(1, 1, 1), block=(32, 1, 1))
    values = dict(zip(FEATURE_NAMES, f.vector()))
    assert values["shared_bytes"] == 0.0      # a size no array can have counts as unknown


def test_wide_shared_elements_count_every_piece():
    """The 128-byte period shortcut against summing every LDS/STS piece of the element."""
    rng = np.random.default_rng(5)
    for _ in range(100):
        size = int(rng.choice([144, 200, 384, 520, 1024]))
        addr = (np.arange(32) * int(rng.integers(1, 3 * size)) + 4 * rng.integers(0, 8, 32)).astype(np.int64)
        active = rng.random(32) < 0.8
        piece = next(p for p in (16, 8, 4, 2, 1) if size % p == 0)
        a, m = addr.reshape(1, 32), active.reshape(1, 32)
        parts = [models._shared_piece(a + k * piece, m, piece) for k in range(size // piece)]
        got = models.shared_wavefronts(addr, active, size)
        assert (got[1][0], got[2][0]) == (sum(p[1][0] for p in parts), sum(p[2][0] for p in parts))


@pytest.mark.parametrize("grid,block,smem,says", [
    ((1, 1, 1), (0, 1, 1), 0, "1..1024/1024/64"),
    ((1, 1, 1), (-1, 1, 1), 0, "1..1024/1024/64"),
    ((1, 1, 1), (2048, 1, 1), 0, "1..1024/1024/64"),
    ((1, 1, 1), (64, 32, 1), 0, "2048 threads"),
    ((1 << 40, 1, 1), (32, 1, 1), 0, "grid"),
    ((1, 70000, 1), (32, 1, 1), 0, "grid"),
    ((1, 1, 1), (32, 1, 1), -1, "dynamic shared memory"),
    ((1, 1, 1), (32.0, 1, 1), 0, "3 integers"),
])
def test_a_launch_cuda_would_refuse_is_a_clear_error(grid, block, smem, says):
    from rewardmodel.features import LaunchError, extract
    from rewardmodel.reward import reward

    src = "__global__ void k(float* a) { a[threadIdx.x] = 0.0f; }\n"
    with pytest.raises(LaunchError, match=re.escape(says)):
        extract(src, "k", grid=grid, block=block, smem=smem)
    br, feats, _ = reward(src, "k", grid=grid, block=block, smem=smem)
    assert feats is None and br.failed_gate == "launch" and says in br.gates["launch"].detail
