"""Raw-kernel ports of torch tasks (rl.tasks.torch_port) and the stored eager/compile timings (rl.tasks.torch_ref)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from rl.tasks import get, neighbours
from rl.tasks.c_spec import TaskFileError
from rl.tasks.torch_kind import suite_tasks
from rl.tasks.torch_port import PORTS_DIR, check_port, port_of, problem, read_port, with_port
from rl.tasks.torch_ref import stored_timings

PORTS = sorted(p.stem for p in PORTS_DIR.glob("*.toml"))


@pytest.mark.parametrize("name", PORTS)
def test_every_suite_port_checks(name):
    """Every port parses at every size, every candidate compiles (NVRTC, where present), and the
    small problem's CPU reference fills exactly the port's outputs."""
    assert check_port(name) == []
    tasks = [t for t in suite_tasks().values() if t.name == name and t.baseline is not None]
    assert tasks, f"{name}: no task got its port"
    for t in tasks:
        assert t.candidates[0].baseline and len(t.candidates) >= 2
        assert len({s.sample_id for s in t.candidates}) == len(t.candidates)
        assert all(s.family == f"torch_{name}" and s.size == t.size for s in t.candidates)


def test_relu_port_binds_the_forward():
    t = get("torch/relu/small")
    assert t.baseline.kernel == "relu_naive" and t.baseline.grid == (4096, 1, 1)
    assert {s.variant for s in t.candidates} >= {"naive_port", "vec4", "grid_stride"}
    p = problem(t.id)
    x = p.inputs["x"]
    assert x.shape == (1024 * 1024,) and x.dtype == np.float32
    np.testing.assert_array_equal(p.expected["y"], np.maximum(x, 0))
    # the same seed gives the same inputs; another seed others
    assert np.array_equal(problem(t.id).inputs["x"], x)
    assert not np.array_equal(problem(t.id, seed=1).inputs["x"], x)
    moves = dict(neighbours(t, t.candidates[0]))
    assert "kind=vec4" in moves


def test_a_size_the_port_leaves_out_has_no_baseline():
    assert get("torch/relu/large").baseline is None and get("torch/relu/large").candidates == ()


def _port(tmp_path: Path, toml: str, cu: str = None) -> Path:
    cu = cu if cu is not None else ('extern "C" __global__ void k(const float* x, float* y, int n)'
                                    ' { int i = threadIdx.x; if (i < n) y[i] = x[i]; }\n')
    (tmp_path / "relu.toml").write_text(toml)
    (tmp_path / "relu.cu").write_text(cu)
    return tmp_path / "relu.toml"


GOOD = """
kernel = "k"
[[args]]
name = "x"
kind = "in"
dtype = "float32"
length = "BATCH * DIM"
from = "input 0"
[[args]]
name = "y"
kind = "out"
dtype = "float32"
length = "BATCH * DIM"
from = "output 0"
[[args]]
name = "n"
kind = "scalar"
dtype = "int32"
value = "BATCH * DIM"
[cost]
bytes = "8 * BATCH * DIM"
flops = 0
[launch]
grid = ["cdiv(BATCH * DIM, 256)"]
block = [256]
"""


def test_a_good_port_in_another_folder(tmp_path):
    spec = read_port(_port(tmp_path, GOOD))
    t = with_port(get("torch/relu/large"), spec)
    assert t.baseline.kernel == "k" and t.baseline.grid == ((16384 * 16384) // 256, 1, 1)
    assert t.baseline.bytes == 8 * 16384 * 16384 and t.candidates == (t.baseline,)


@pytest.mark.parametrize("edit, msg", [
    (lambda s: s.replace('from = "input 0"', 'from = "inputs 0"'), "is not 'input N'"),
    (lambda s: s.replace('from = "output 0"', 'from = "input 0"'), "an out buffer cannot come from"),
    (lambda s: s.replace('kernel = "k"', 'kernel = "k"\ncolour = 1'), "unknown key 'colour'"),
    (lambda s: s.replace('dtype = "int32"', 'dtype = "float32"'), "parameter 'n' is int"),
    (lambda s: s.replace('kind = "out"', 'kind = "in"'), "an in buffer cannot come from"),
    (lambda s: s.replace("[launch]", "[launch]\nsmem = 0\n[x]"), "unknown key 'x'"),
    (lambda s: s + "\n[[[", "not valid TOML"),
])
def test_bad_ports_get_one_line_naming_the_file(tmp_path, edit, msg):
    path = _port(tmp_path, edit(GOOD))
    with pytest.raises(TaskFileError) as exc:
        read_port(path)
    text = str(exc.value)
    assert str(path) in text and msg in text and "\n" not in text


def test_a_port_without_its_kernel_file(tmp_path):
    path = _port(tmp_path, GOOD)
    (tmp_path / "relu.cu").unlink()
    with pytest.raises(TaskFileError, match="missing relu.cu"):
        read_port(path)


def test_binding_errors_are_reported_by_check(tmp_path, monkeypatch):
    """A length that does not match the tensor is found when the problem is built, not on the GPU."""
    bad = GOOD.replace('length = "BATCH * DIM"\nfrom = "input 0"', 'length = "BATCH"\nfrom = "input 0"')
    spec = read_port(_port(tmp_path, bad))
    t = with_port(get("torch/relu/small"), spec)
    import rl.tasks as tasks_mod
    import rl.tasks.torch_port as tp

    monkeypatch.setattr(tp, "port_of", lambda name, directory=None: spec)
    monkeypatch.setattr(tasks_mod, "get", lambda tid: t)
    with pytest.raises(ValueError, match="x: input 0 has 1048576 elements, the port says 1024"):
        problem(t.id)


def test_stored_timings_newest_run_per_gpu(tmp_path):
    def write(name, run, gpu, eager):
        (tmp_path / f"{name}.torch_reference.json").write_text(json.dumps(
            {"run_id": run, "gpu": gpu, "timings": [{"task_id": "torch/relu/small", "eager_ms": eager}]}))

    write("a", "20261203T100000Z-aaaaaa", "NVIDIA H200", 0.5)
    write("b", "20261203T110000Z-bbbbbb", "NVIDIA H200", 0.4)
    write("c", "20261203T120000Z-cccccc", "Other GPU", 9.0)
    (tmp_path / "d.torch_reference.json").write_text("{not json")
    got = stored_timings([tmp_path], "NVIDIA H200")
    assert got["torch/relu/small"]["eager_ms"] == 0.4 and got["torch/relu/small"]["gpu"] == "NVIDIA H200"
    assert stored_timings([tmp_path])["torch/relu/small"]["eager_ms"] == 9.0


def test_measure_plans_only_ported_torch_candidates(capsys):
    from rl import measure

    assert measure.main(["--kind", "torch", "--task", "torch/relu", "--dry-run", "--gpu", "NVIDIA H200"]) == 0
    err = capsys.readouterr().err
    n = sum(len(get(f"torch/relu/{s}").candidates) for s in ("small", "medium"))
    assert f"{n} samples to measure" in err or "0 samples to measure" in err
    assert "torch/relu/large" in err


def test_port_of_unknown_problem_is_none():
    assert port_of("no_such_problem") is None
    assert check_port("no_such_problem") == [f"no port 'no_such_problem' in {PORTS_DIR}"]


def test_task_samples_feed_the_surrogate_by_path(capsys):
    from rewardmodel import cli, dataset
    from rl.tasks import task_samples

    ids = {s.sample_id for s in task_samples()}
    assert {s.sample_id for s in get("torch/relu/small").candidates} <= ids
    assert {s.sample_id for s in get("c/gemm/small").candidates} <= ids
    both = dataset.samples_with(["rl.tasks:task_samples"])
    assert ids <= {s.sample_id for s in both} and len(both) > len(ids)
    assert dataset.samples_with([]) is None
    assert cli.main(["train", "--extra-samples", "rl.tasks:no_such_function", "--out", "/dev/null"]) == 2
    assert "--extra-samples" in capsys.readouterr().err


def test_evaluate_a_replayed_raw_kernel_for_a_torch_task(capsys):
    """On a CPU: the vec4 relu variant's H200 measurement, and its speedups over the stored eager
    and torch.compile timings of the same task."""
    from rl import cli

    path = PORTS_DIR / "variants" / "relu" / "vec4.cu"
    assert cli.main(["evaluate", "torch/relu/medium", str(path), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["source"] == "measured" and out["real"]["origin"] == "replay"
    ref = stored_timings()["torch/relu/medium"]
    assert out["speedup_over_eager"] == pytest.approx(ref["eager_ms"] / out["time_ms"])
    assert out["speedup_over_compile"] == pytest.approx(ref["compile_ms"] / out["time_ms"])
