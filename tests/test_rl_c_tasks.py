"""`c` tasks: the task file format and its errors, the C references (built with gcc, checked
against numpy at the smallest size), the naive CUDA ports (NVRTC, lint, features), import,
and on a GPU the naive ports against the references."""
from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest

from analyzer.profile import toolkit
from rl.tasks import c_kind as K
from rl.tasks.c_ref import compile_reference, make_inputs, run_reference
from rl.tasks.c_spec import TaskFileError, evaluate, read_spec

SUITE = sorted(p.stem for p in K.SUITE_DIR.glob("*.toml"))


@pytest.fixture(scope="module")
def tasks():
    return K.load_c_tasks([K.SUITE_DIR])


def smallest(spec) -> str:
    """The size with the fewest bytes of traffic."""
    return min(spec.sizes, key=lambda s: spec.cost(s)[0])


# --------------------------------------------------------------------------- numpy references
# Each takes (inputs by name, scalars by name) and returns the outputs in float64/int64; the
# C reference must agree within the task's tolerance at the smallest size.
def _np_trsm(l, b, n, nrhs, lower):
    mat = np.tril(l.reshape(n, n)) if lower else np.triu(l.reshape(n, n))
    return {"b": np.linalg.solve(mat.astype(np.float64), b.reshape(n, nrhs).astype(np.float64)).ravel()}


def _np_softmax(x, rows, cols):
    x = x.reshape(rows, cols).astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return {"y": (e / e.sum(axis=1, keepdims=True)).ravel()}


def _np_conv2d(x, k, h, w):
    pad = np.zeros((h + 4, w + 4))
    pad[2:-2, 2:-2] = x.reshape(h, w)
    k = k.reshape(5, 5).astype(np.float64)
    return {"y": sum(k[a, b] * pad[a:a + h, b:b + w] for a in range(5) for b in range(5)).ravel()}


def _np_nbody(pos, vel, mass, n, dt, eps2):
    p = pos.reshape(n, 3).astype(np.float64)
    d = p[None, :, :] - p[:, None, :]                     # d[i, j] = p[j] - p[i]
    r2 = (d * d).sum(axis=2) + eps2
    a = (d * (mass[None, :] * r2 ** -1.5)[:, :, None]).sum(axis=1)
    v = vel.reshape(n, 3) + dt * a
    return {"vel_out": v.ravel(), "pos_out": (p + dt * v).ravel()}


def _np_banded(diags, x, n, band):
    y = np.zeros(n)
    for d in range(2 * band + 1):
        off = d - band
        lo, hi = max(0, -off), min(n, n - off)
        y[lo:hi] += diags[d * n + lo:d * n + hi].astype(np.float64) * x[lo + off:hi + off]
    return {"y": y}


def _np_heat3d(u, nx, ny, nz, alpha):
    g = u.reshape(nz, ny, nx).astype(np.float64)
    v = g.copy()
    c = g[1:-1, 1:-1, 1:-1]
    lap = (g[1:-1, 1:-1, :-2] + g[1:-1, 1:-1, 2:] + g[1:-1, :-2, 1:-1] + g[1:-1, 2:, 1:-1]
           + g[:-2, 1:-1, 1:-1] + g[2:, 1:-1, 1:-1] - 6 * c)
    v[1:-1, 1:-1, 1:-1] = c + alpha * lap
    return {"v": v.ravel()}


def _np_stencil2d9(x, h, w):
    g = x.reshape(h, w).astype(np.float64)
    y = g.copy()
    wts = np.outer([1, 2, 1], [1, 2, 1]) / 16.0
    y[1:-1, 1:-1] = sum(wts[a, b] * g[a:a + h - 2, b:b + w - 2] for a in range(3) for b in range(3))
    return {"y": y.ravel()}


def _np_jacobi(a, n):
    g = a.reshape(n, n).astype(np.float64)
    b = g.copy()
    b[1:-1, 1:-1] = 0.2 * (g[1:-1, 1:-1] + g[1:-1, :-2] + g[1:-1, 2:] + g[:-2, 1:-1] + g[2:, 1:-1])
    return {"b": b.ravel()}


def _np_stencil1d5(x, n, s):
    x = x.astype(np.float64)
    y = np.zeros(n)
    y[2:-2] = s / 12.0 * (-x[:-4] + 16 * x[1:-3] - 30 * x[2:-2] + 16 * x[3:-1] - x[4:])
    return {"y": y}


def _np_stencil1d3(x, n):
    x = x.astype(np.float64)
    y = x.copy()
    y[1:-1] = 0.25 * x[:-2] + 0.5 * x[1:-1] + 0.25 * x[2:]
    return {"y": y}


def _np_layernorm(x, gamma, beta, rows, cols, eps):
    x = x.reshape(rows, cols).astype(np.float64)
    mu = x.mean(axis=1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=1, keepdims=True)
    return {"y": ((x - mu) / np.sqrt(var + eps) * gamma + beta).ravel()}


NUMPY = {
    "amax": lambda i, s: {"out": [np.abs(i["x"]).max()]},
    "banded_matvec": lambda i, s: _np_banded(i["diags"], i["x"], s["n"], s["band"]),
    "conv2d": lambda i, s: _np_conv2d(i["x"], i["k"], s["h"], s["w"]),
    "correlation": lambda i, s: {"corr": np.corrcoef(i["data"].reshape(s["n"], s["m"]).astype(np.float64),
                                                     rowvar=False).ravel()},
    "covariance": lambda i, s: {"cov": np.cov(i["data"].reshape(s["n"], s["m"]).astype(np.float64),
                                              rowvar=False).ravel()},
    "cumsum_rows": lambda i, s: {"y": np.cumsum(i["x"].reshape(s["rows"], s["cols"]).astype(np.float64),
                                                axis=1).ravel()},
    "dot": lambda i, s: {"out": [np.dot(i["x"], i["y"])]},
    "gemm": lambda i, s: {"c": (i["a"].reshape(s["m"], s["k"]).astype(np.float64)
                                @ i["b"].reshape(s["k"], s["n"])).ravel()},
    "gemv_t": lambda i, s: {"y": s["alpha"] * (i["a"].reshape(s["rows"], s["cols"]).astype(np.float64).T @ i["x"])
                            + s["beta"] * i["y"]},
    "heat3d": lambda i, s: _np_heat3d(i["u"], s["nx"], s["ny"], s["nz"], s["alpha"]),
    "histogram": lambda i, s: {"hist": np.bincount(i["data"], minlength=s["bins"])},
    "jacobi2d": lambda i, s: _np_jacobi(i["a"], s["n"]),
    "layernorm_rows": lambda i, s: _np_layernorm(i["x"], i["gamma"], i["beta"], s["rows"], s["cols"], s["eps"]),
    "matvec": lambda i, s: {"y": i["a"].reshape(s["rows"], s["cols"]).astype(np.float64) @ i["x"]},
    "nbody_step": lambda i, s: _np_nbody(i["pos"], i["vel"], i["mass"], s["n"], s["dt"], s["eps2"]),
    "softmax_rows": lambda i, s: _np_softmax(i["x"], s["rows"], s["cols"]),
    "stencil1d3": lambda i, s: _np_stencil1d3(i["x"], s["n"]),
    "stencil1d5": lambda i, s: _np_stencil1d5(i["x"], s["n"], s["s"]),
    "stencil2d9": lambda i, s: _np_stencil2d9(i["x"], s["h"], s["w"]),
    "transpose": lambda i, s: {"b": i["a"].reshape(s["rows"], s["cols"]).T.ravel()},
    "triad": lambda i, s: {"a": i["b"].astype(np.float64) + s["s"] * i["c"]},
    "trsm_lower": lambda i, s: _np_trsm(i["l"], i["b"], s["n"], s["nrhs"], True),
    "trsm_upper": lambda i, s: _np_trsm(i["u"], i["b"], s["n"], s["nrhs"], False),
}


def test_suite_has_the_promised_tasks(tasks):
    assert len(SUITE) >= 20
    assert set(NUMPY) == set(SUITE), "every suite task needs a numpy cross-check here"
    for name in SUITE:
        spec = read_spec(K.SUITE_DIR / f"{name}.toml")
        assert len(spec.sizes) >= 3, name
        for size in spec.sizes:
            t = tasks[f"c/{name}/{size}"]
            assert t.kind == "c" and t.baseline.baseline and t.candidates[0] == t.baseline   # then the variants
            assert t.baseline.problem == "rl.tasks.c_kind:problem" and t.meta["c_source"] == spec.c_source
            assert t.baseline.bytes > 0


def test_sizes_span_l2_to_dram_for_streaming_tasks(tasks):
    """Tasks whose work is linear in their data reach past the H200's 50 MB L2; the smallest size fits in it."""
    for name in SUITE:
        spec = read_spec(K.SUITE_DIR / f"{name}.toml")
        traffic = sorted(spec.cost(s)[0] for s in spec.sizes)
        assert traffic[0] <= 50e6, name
        linear = all(spec.cost(s)[1] <= 60 * spec.cost(s)[0] for s in spec.sizes)
        if linear:
            assert traffic[-1] >= 400e6, name


@pytest.mark.parametrize("name", SUITE)
def test_c_reference_matches_numpy(name):
    spec = read_spec(K.SUITE_DIR / f"{name}.toml")
    size = smallest(spec)
    inputs = make_inputs(spec, size, spec.seed)
    scalars = {a.name: spec.scalar(a, size) for a in spec.args if not a.is_buffer}
    got = run_reference(spec, size, spec.seed, inputs)
    want = NUMPY[name]({k: v.copy() for k, v in inputs.items()}, scalars)
    assert set(got) == set(want)
    for out, arr in got.items():
        assert np.all(np.isfinite(arr)), f"{name}.{out} has non-finite values"
        w = np.asarray(want[out], dtype=np.float64)
        assert arr.shape == w.shape, out
        ok = np.abs(arr.astype(np.float64) - w) <= spec.atol + spec.rtol * np.abs(w)
        assert ok.all(), f"{name}.{out}: {np.count_nonzero(~ok)} of {ok.size} off, max abs err " \
                         f"{np.abs(arr - w).max():.3g}"
        assert np.abs(arr).max() > 0, f"{name}.{out} is all zero"


def test_inputs_are_seeded_and_follow_the_file():
    spec = read_spec(K.SUITE_DIR / "trsm_lower.toml")
    a, b = make_inputs(spec, "small", 5), make_inputs(spec, "small", 5)
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert not np.array_equal(make_inputs(spec, "small", 6)["b"], a["b"])
    n = spec.sizes["small"]["n"]
    l = a["l"].reshape(n, n)
    assert np.all((np.diag(l) >= 1.0) & (np.diag(l) < 2.0))
    off = l[~np.eye(n, dtype=bool)]
    assert np.abs(off).max() <= n ** -0.5
    hist = read_spec(K.SUITE_DIR / "histogram.toml")
    keys = make_inputs(hist, "small", 1)["data"]
    assert keys.dtype == np.int32 and keys.min() == 0 and keys.max() == hist.sizes["small"]["bins"] - 1


def test_problem_and_expected_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("CUDAPERF_CACHE", str(tmp_path))
    monkeypatch.setattr("rl.tasks.c_ref.CACHE_MIN_S", 0.0)      # store even a quick result
    prob = K.problem("stencil1d3", "small", 3)
    assert set(prob.inputs) == {"x"} and set(prob.expected) == {"y"}
    assert prob.expected["y"].dtype == np.float32 and prob.inputs["x"].dtype == np.float32
    stored = list((tmp_path / "c_expected").glob("stencil1d3-small-*/y.npy"))
    assert len(stored) == 1
    again = K.problem("stencil1d3", "small", 3)
    assert isinstance(again.expected["y"], np.memmap)             # the second build reads the cache
    assert np.array_equal(again.expected["y"], prob.expected["y"])
    inout = K.problem("trsm_lower", "small", 3)
    assert set(inout.inputs) == {"l", "b"} and set(inout.expected) == {"b"}
    assert not np.array_equal(inout.inputs["b"], inout.expected["b"])


def test_c_reference_time_is_measured_and_recorded(tasks, tmp_path, monkeypatch):
    monkeypatch.setenv("CUDAPERF_CACHE", str(tmp_path))
    t = tasks["c/triad/small"]
    timing = K.c_reference_timing(t, reps=3)
    assert timing.ms > 0 and timing.reps == 3 and timing.cpu and "-O3" in timing.flags
    assert K.c_reference_ms(t) == timing.ms                           # stored, not measured again
    with pytest.raises(ValueError, match="not a c task"):
        K.c_reference_ms(dataclasses.replace(t, kind="family"))


# --------------------------------------------------------------------------- the naive ports
@pytest.mark.skipif(not toolkit.have_nvrtc(), reason="needs NVRTC (cuda-bindings)")
@pytest.mark.parametrize("name", SUITE)
def test_naive_port_compiles_lints_and_has_features(tasks, name):
    from analyzer.lint import lint_source
    from analyzer.profile import build
    from rl.core import RewardCore

    spec = read_spec(K.SUITE_DIR / f"{name}.toml")
    s = tasks[f"c/{name}/{smallest(spec)}"].baseline
    built = build.build(s.source, s.kernel)
    assert built.ok, built.log
    res = lint_source(s.source, path=f"{name}.cu")
    assert [k.name for k in res.kernels] == [s.kernel]
    assert not [f for f in res.findings if f.code.startswith("PA")]
    st = RewardCore(model=None).static(s)
    assert st.x is not None, st.error
    from rewardmodel.features import FEATURE_NAMES

    row = dict(zip(FEATURE_NAMES, st.x))      # NaN marks a feature that does not apply; these always do
    assert math.isfinite(row["log_traffic_roofline_s"]) and row["threads"] == s.threads_per_block


# --------------------------------------------------------------------------- the format
def test_evaluate():
    env = {"n": 10, "m": 3}
    assert evaluate("cdiv(n, m) * 2 + n // 4 - n % m", env) == 8 - 1 + 2
    assert evaluate("n ** -0.5", {"n": 4}) == 0.5
    assert evaluate(7, env) == 7
    for bad, msg in (("k + 1", "unknown name 'k'"), ("__import__('os')", "unsupported"), ("n +", "cannot parse"),
                     ("n / 0", "division by zero"), ("[n]", "unsupported")):
        with pytest.raises(ValueError, match=msg):
            evaluate(bad, env)


GOOD_C = """
/* a comment mentioning void scale(int) { */
void scale(int n, float s, const float* restrict x, float* y)
{
    for (int i = 0; i < n; ++i) y[i] = s * x[i];
}
"""
GOOD_CU = """
extern "C" __global__ void scale_naive(int n, float s, const float* __restrict__ x, float* y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = s * x[i];
}
"""
GOOD_TOML = """
function = "scale"
kernel = "scale_naive"
description = "y = s x"

[[args]]
name = "n"
kind = "scalar"
dtype = "int32"

[[args]]
name = "s"
kind = "scalar"
dtype = "float32"
value = 2.0

[[args]]
name = "x"
kind = "in"
dtype = "float32"
length = "n"

[[args]]
name = "y"
kind = "out"
dtype = "float32"
length = "n"

[sizes]
small = { n = 1000 }
big = { n = 100000 }

[check]
atol = 1e-6
rtol = 1e-6

[cost]
bytes = "8 * n"
flops = "n"

[launch]
grid = ["cdiv(n, 128)"]
block = [128]
"""


def write_task(d: Path, name: str = "scale", toml: str = GOOD_TOML, c: str = GOOD_C, cu: str = GOOD_CU) -> Path:
    d.mkdir(parents=True, exist_ok=True)
    (d / f"{name}.c").write_text(c)
    (d / f"{name}.cu").write_text(cu)
    (d / f"{name}.toml").write_text(toml)
    return d / f"{name}.toml"


def test_good_file_reads(tmp_path):
    spec = read_spec(write_task(tmp_path))
    assert [a.name for a in spec.args] == ["n", "s", "x", "y"]
    assert spec.launch("big") == ((782, 1, 1), (128, 1, 1), 0)
    tasks = K.load_c_tasks([tmp_path])
    t = tasks["c/scale/big"]
    assert [(a.name, getattr(a, "size", None) or a.value) for a in t.baseline.args] == \
        [("n", 100000), ("s", 2.0), ("x", 100000), ("y", 100000)]
    assert t.baseline.bytes == 800000 and t.baseline.grid == (782, 1, 1)


BAD = [
    # (what to change, expected message)
    (lambda t, c, cu: (t.replace('function = "scale"\n', ""), c, cu), "missing key 'function'"),
    (lambda t, c, cu: (t.replace('dtype = "float32"\nvalue', 'dtype = "float16"\nvalue'), c, cu),
     "unknown dtype 'float16'"),
    (lambda t, c, cu: (t, c.replace("float s, ", ""), cu), "has 3 parameters, the task lists 4 args"),
    (lambda t, c, cu: (t, c.replace("int n, float s", "float s, int n"), cu), "parameter 's' is float"),
    (lambda t, c, cu: (t, c.replace("float* y", "float y"), cu), "is a value, args lists 'y' as out"),
    (lambda t, c, cu: (t, c.replace("void scale(", "void scal("), cu), "no definition 'void scale"),
    (lambda t, c, cu: (t, c, cu.replace("float* y", "double* y")), "scale.cu: kernel scale_naive parameter 'y'"),
    (lambda t, c, cu: (t.replace("[sizes]\nsmall = { n = 1000 }\nbig = { n = 100000 }", "[sizes]"), c, cu),
     "sizes is empty"),
    (lambda t, c, cu: (t.replace('length = "n"\n\n[[args]]\nname = "y"', 'length = "n * q"\n\n[[args]]\nname = "y"'),
                       c, cu), "size 'small': unknown name 'q'"),
    (lambda t, c, cu: (t.replace("block = [128]", "block = [2048]"), c, cu), "more than 1024 threads"),
    (lambda t, c, cu: (t.replace("[check]", "[check]\nrtoll = 1").replace("rtol = 1e-6", ""), c, cu),
     "missing key 'rtol' in [check]"),
    (lambda t, c, cu: (t.replace("description", "descripton"), c, cu), "unknown key 'descripton'"),
    (lambda t, c, cu: (t.replace('kind = "out"', 'kind = "output"'), c, cu), "unknown kind 'output'"),
    (lambda t, c, cu: (t + "\n[broken", c, cu), "not valid TOML"),
    (lambda t, c, cu: (t.replace('length = "n"\n\n[[args]]\nname = "y"', 'length = "n / 3"\n\n[[args]]\nname = "y"'),
                       c, cu), "length of x is 333.33"),
]


@pytest.mark.parametrize("change,message", BAD)
def test_bad_file_gives_one_line_error_naming_it(tmp_path, change, message):
    toml, c, cu = change(GOOD_TOML, GOOD_C, GOOD_CU)
    path = write_task(tmp_path, toml=toml, c=c, cu=cu)
    with pytest.raises(TaskFileError) as info:
        read_spec(path)
    text = str(info.value)
    assert "\n" not in text and text.startswith(f"{path}: ")
    assert message in text


def test_missing_companion_file(tmp_path):
    path = write_task(tmp_path)
    (tmp_path / "scale.cu").unlink()
    with pytest.raises(TaskFileError, match=r"scale.toml: missing scale.cu beside it"):
        read_spec(path)


def test_import_keeps_good_tasks_and_reports_bad_ones(tmp_path, monkeypatch):
    monkeypatch.setenv("CUDAPERF_TASKS", str(tmp_path / "store"))
    monkeypatch.setenv("CUDAPERF_CACHE", str(tmp_path / "cache"))
    src = tmp_path / "src"
    write_task(src)
    write_task(src, "broken", toml=GOOD_TOML.replace('kernel = "scale_naive"\n', ""))
    write_task(src, "nocompile", toml=GOOD_TOML.replace('"scale"', '"scale2"'),
               c=GOOD_C.replace("void scale(", "void scale2(").replace("y[i] = s * x[i];", "y[i] = s * x[i]"))
    write_task(src, "transpose")        # clashes with a suite task
    report = K.import_c_tasks(src, compile=True)
    assert report.imported == ["scale"]
    assert len(report.errors) == 3 and all("\n" not in e for e in report.errors)
    assert any("broken.toml: missing key 'kernel'" in e for e in report.errors)
    assert any("nocompile.c: gcc failed" in e for e in report.errors)
    assert any("transpose.toml: a suite task is already named 'transpose'" in e for e in report.errors)
    assert sorted(p.name for p in K.import_dir().iterdir()) == ["scale.c", "scale.cu", "scale.toml"]
    tasks = K.loader()
    assert "c/scale/big" in tasks and "c/gemm/small" in tasks
    prob = K.problem("scale", "small", 0)                              # found in the import dir
    assert np.allclose(prob.expected["y"], 2.0 * prob.inputs["x"])
    K.loader.cache_clear()


def test_import_of_an_empty_or_missing_dir(tmp_path):
    assert "no task files" in K.import_c_tasks(tmp_path, tmp_path / "dest").errors[0]
    assert "not a directory" in K.import_c_tasks(tmp_path / "nope", tmp_path / "dest").errors[0]


def test_compile_error_names_the_c_file(tmp_path, monkeypatch):
    monkeypatch.setenv("CUDAPERF_CACHE", str(tmp_path / "cache"))
    spec = read_spec(write_task(tmp_path, c=GOOD_C.replace("y[i] = s * x[i];", "y[i] = s * x[i] +;")))
    from rl.tasks.c_ref import CReferenceError

    with pytest.raises(CReferenceError, match=r"scale.c: gcc failed: .*error"):
        compile_reference(spec)


# --------------------------------------------------------------------------- on the GPU
@pytest.mark.gpu
def test_naive_ports_match_the_c_references_on_the_gpu(tasks):
    """Every naive port at its smallest size through the real profiler: status ok."""
    if not toolkit.has_gpu() or not toolkit.have_nvrtc():
        pytest.skip("needs an NVIDIA GPU and cuda-bindings")
    from analyzer.profile import Job, Timing, profile

    samples = {}
    for name in SUITE:
        spec = read_spec(K.SUITE_DIR / f"{name}.toml")
        samples[name] = tasks[f"c/{name}/{smallest(spec)}"].baseline
    jobs = [Job.like(s, id=name) for name, s in samples.items()]
    got = {m.job_id: m for m in profile(jobs, timing=Timing(min_reps=3, max_reps=5))}
    bad = {k: f"{m.status}: {m.message} (max abs err {m.max_abs_err:.3g}, wrong {m.frac_wrong:.3g})"
           for k, m in got.items() if m.status != "ok"}
    assert set(got) == set(samples)
    assert not bad, bad
    assert all(math.isfinite(m.time_ms) and m.time_ms > 0 for m in got.values())


@pytest.mark.gpu
@pytest.mark.slow
def test_naive_ports_at_every_size_on_the_gpu(tasks, tmp_path, monkeypatch):
    """Every naive port at every size (the tolerances and the runner's time limit at the DRAM-bound
    sizes). Builds ~70 problems, the largest ~2 GB: a few minutes; caches go to a temporary dir."""
    if not toolkit.has_gpu() or not toolkit.have_nvrtc():
        pytest.skip("needs an NVIDIA GPU and cuda-bindings")
    from analyzer.profile import Job, Timing, profile

    monkeypatch.setenv("CUDAPERF_CACHE", str(tmp_path / "cache"))     # spawned builders inherit it
    jobs = [Job.like(t.baseline, id=tid) for tid, t in sorted(tasks.items())]
    got = {m.job_id: m for m in profile(jobs, timing=Timing(min_reps=3, max_reps=5), problem_workers=3,
                                        keep_problems=2, work_dir=str(tmp_path))}
    bad = {k: f"{m.status}: {m.message} (max abs err {m.max_abs_err:.3g}, wrong {m.frac_wrong:.3g})"
           for k, m in got.items() if m.status != "ok"}
    assert set(got) == {j.id for j in jobs}
    assert not bad, bad


# --------------------------------------------------------------------------- the variants
# Every variant is expected to match the C reference; a deliberately wrong one would be listed here.
WRONG_VARIANTS: set[tuple[str, str]] = set()


def _variants_at_smallest(tasks):
    out = []
    for name in SUITE:
        spec = read_spec(K.SUITE_DIR / f"{name}.toml")
        out += [(name, s) for s in tasks[f"c/{name}/{smallest(spec)}"].candidates[1:]]
    return out


def test_variants_load_as_candidates(tasks):
    from rl.submission import parse_submission
    from rl.tasks import neighbours

    per_task = {name: len(K.variant_files(read_spec(K.SUITE_DIR / f"{name}.toml"))) for name in SUITE}
    assert sum(n >= 4 for n in per_task.values()) >= 15, per_task
    for tid, t in tasks.items():
        name = tid.split("/")[1]
        assert len(t.candidates) == 1 + per_task[name]
        assert len({s.sample_id for s in t.candidates}) == len(t.candidates), tid
        for s in t.candidates[1:]:
            path = K.VARIANTS_DIR / name / f"{s.variant}.cu"
            assert s.params == K.variant_params(path.read_text()) and "kind" in s.params, path
            assert s.style == "c_variant" and not s.baseline and s.problem == t.baseline.problem
            # the file read as a model's reply is the same candidate (the replay oracle can answer it)
            assert parse_submission(t, path.read_text()).sample_id == s.sample_id
    t = tasks["c/triad/small"]
    moves = dict((m, s.variant) for m, s in neighbours(t, t.baseline))
    assert moves["block_x=1024"] == "block1024" and moves["kind=gridstride"] == "gridstride"


def test_variant_params_line():
    assert K.variant_params("// params: kind=tiled tile=32 pad=0\nx") == {"kind": "tiled", "tile": 32, "pad": 0}
    assert K.variant_params("no line") == {}
    with pytest.raises(TaskFileError, match="not key=value"):
        K.variant_params("// params: tiled")


def test_a_bad_variant_is_a_one_line_error(tmp_path):
    for p in (K.SUITE_DIR / "triad.toml", K.SUITE_DIR / "triad.c", K.SUITE_DIR / "triad.cu"):
        (tmp_path / p.name).write_text(p.read_text())
    (tmp_path / "variants" / "triad").mkdir(parents=True)
    (tmp_path / "variants" / "triad" / "nolaunch.cu").write_text(
        'extern "C" __global__ void k(int n, float s, const float* b, const float* c, float* a) {}\n')
    with pytest.raises(TaskFileError, match=r"nolaunch.cu: no `// launch:` line"):
        K.load_c_tasks([tmp_path])


@pytest.mark.skipif(not toolkit.have_nvrtc(), reason="needs NVRTC (cuda-bindings)")
def test_variants_compile_and_lint(tasks):
    from analyzer.lint import lint_source
    from analyzer.profile import build

    bad = {}
    for name, s in _variants_at_smallest(tasks):
        built = build.build(s.source, s.kernel)
        if not built.ok:
            bad[f"{name}/{s.variant}"] = next((ln for ln in built.log.splitlines() if "error" in ln), built.log[:200])
            continue
        res = lint_source(s.source, path=f"{s.variant}.cu")
        parse = [f.message for f in res.findings if f.code.startswith("PA")]
        if parse or [k.name for k in res.kernels] != [s.kernel]:
            bad[f"{name}/{s.variant}"] = f"lint: {parse} kernels {[k.name for k in res.kernels]}"
    assert not bad, bad


@pytest.mark.gpu
def test_variants_match_the_c_references_on_the_gpu(tasks):
    """Every variant at its task's smallest size through the real profiler: ok, except the wrong ones."""
    if not toolkit.has_gpu() or not toolkit.have_nvrtc():
        pytest.skip("needs an NVIDIA GPU and cuda-bindings")
    from analyzer.profile import Job, Timing, profile

    samples = {f"{name}/{s.variant}": s for name, s in _variants_at_smallest(tasks)}
    jobs = [Job.like(s, id=key) for key, s in samples.items()]
    got = {m.job_id: m for m in profile(jobs, timing=Timing(min_reps=3, max_reps=5))}
    assert set(got) == set(samples)
    wrong = {f"{n}/{v}" for n, v in WRONG_VARIANTS}
    bad = {k: f"{m.status}: {m.message} (max abs err {m.max_abs_err:.3g}, wrong {m.frac_wrong:.3g})"
           for k, m in got.items() if (m.status != "ok") != (k in wrong)}
    assert not bad, bad
