"""Whole-module candidates (host wrappers, load_inline modules) into the store: rl.measure_modules."""
from __future__ import annotations

import json
import math
from pathlib import Path

from corpus import store
from rl import measure_modules as mm

ROOT = Path(__file__).resolve().parent.parent


def test_inline_candidates_name_their_task():
    assert mm.inline_task(mm.INLINE / "relu_inline.py") == "torch/relu"
    assert mm.inline_task(mm.INLINE / "softmax_inline.py") == "torch/softmax"
    assert mm.inline_task(mm.INLINE / "linear_bias_relu_two_kernels.py") == "torch/linear_bias_relu"


def test_jobs_cover_wrappers_and_inline_modules_at_the_sizes_asked():
    js = mm.jobs(["small"])
    styles = {j.style for j in js}
    assert styles == {"host_wrapper", "load_inline"}
    assert all(j.task_id.endswith("/small") for j in js)
    assert len({j.sample_id for j in js}) == len(js)
    dot = [j for j in js if j.task_id == "c/dot/small"]
    assert len(dot) == len(list((mm.WRAPPERS / "dot").glob("*.cu")))


def _cpu_json(task: str, path: Path) -> dict:
    """The evaluation measure_modules reads, made as it makes it (on this CPU: static, never replayed)."""
    ev, _, err = mm.evaluate(mm.Job("x", task, path), timeout=300)
    assert ev is not None, err
    return ev


def test_rows_from_a_wrapper_and_an_inline_evaluation():
    prov = {"gpu": "NVIDIA H200", "driver": "x"}
    wrapper = mm.Job("host_wrapper", "c/dot/small", mm.WRAPPERS / "dot" / "two_pass.cu")
    row = mm.row_of(wrapper, _cpu_json(wrapper.task_id, wrapper.path), 1.5, prov, "run1")
    assert row["style"] == "host_wrapper" and row["family"] == "c_dot" and row["task_id"] == "c_dot/small"
    assert row["status"] == "not_timed" and row["run_s"] == 1.5 and row["gpu"] == "NVIDIA H200"
    launches = json.loads(row["params"])["launches"]
    assert len(launches) >= 1 and all(l["grid"] for l in launches) and row["kernel"]
    assert set(row) == set(store.columns())
    inline = mm.Job("load_inline", "torch/relu/small", mm.INLINE / "relu_inline.py")
    ev = _cpu_json(inline.task_id, inline.path)
    ev["timing"] = {"candidate_ms": 0.0123, "eager_ms": 0.03, "compile_ms": 0.1}    # as a GPU run reports them
    row = mm.row_of(inline, ev, 9.0, prov, "run1")
    assert row["status"] == "ok" and row["time_ms"] == 0.0123 and row["family"] == "torch_relu"
    assert json.loads(row["params"])["eager_ms"] == 0.03 and row["kernel"] == "relu_kernel"
    hack = mm.Job("load_inline", "torch/matmul_square/small", mm.INLINE / "hack_matmul_torch.py")
    row = mm.row_of(hack, _cpu_json(hack.task_id, hack.path), 2.0, prov, "run1")
    assert row["status"] == "gate_does_own_work" and row["message"]
    assert math.isnan(row["time_ms"]) if isinstance(row["time_ms"], float) else row["time_ms"] is None


def test_without_a_gpu_it_plans_or_refuses(capsys):
    assert mm.main(["--dry-run", "--gpu", "NVIDIA H200", "--size", "small"]) == 0
    assert "host wrappers" in capsys.readouterr().err
    from analyzer.profile import toolkit

    if not toolkit.has_gpu():
        assert mm.main(["--size", "small"]) == 2
