"""Whole-module candidates (host wrappers, load_inline modules) replayed from their stored H200 runs on a CPU."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pandas")

from corpus import store  # noqa: E402
from rl.measure_modules import jobs  # noqa: E402
from rl.tasks import get  # noqa: E402
from rl.tasks.module_replay import INLINE, WRAPPER, module_sample_id, stored_run  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
WRAPPER_PATH = ROOT / "rl/suites/c/wrappers/dot/atomic.cu"
INLINE_DIR = ROOT / "rl/suites/torch/candidates"


@pytest.fixture(scope="module")
def module_rows():
    df = store.read()
    return df[df["style"].isin([WRAPPER, INLINE]) & (df["pass"] == "main")].set_index("sample_id")


def test_every_bundled_module_has_a_stored_run(module_rows):
    """measure_modules' key and the replay's are one: every job of the bundled modules is answered."""
    for j in jobs(["small", "medium"]):
        assert module_sample_id(j.style, j.task_id, j.text) == j.sample_id
        run = stored_run(j.style, j.task_id, j.text)
        assert run is not None, j
        assert run.status == module_rows.loc[j.sample_id, "status"]


def test_wrapper_replayed_on_cpu(module_rows):
    from rl.tasks.c_wrapper import evaluate_wrapper

    task = get("c/dot/medium")
    ev = evaluate_wrapper(task, WRAPPER_PATH, device="cpu", replay=True)
    row = module_rows.loc[module_sample_id(WRAPPER, task.id, WRAPPER_PATH.read_text())]
    assert ev.failed_gate is None
    assert ev.gates["builds"].passed and ev.gates["correct"].passed
    assert ev.measured_ms == pytest.approx(row["time_ms"])
    assert ev.c_reference_ms == pytest.approx(json.loads(row["params"])["c_reference_ms"])
    assert "replayed" in ev.device and "H200" in ev.device


def test_changed_wrapper_is_not_replayed(tmp_path):
    from rl.tasks.c_wrapper import evaluate_wrapper

    p = tmp_path / "atomic.cu"
    p.write_text(WRAPPER_PATH.read_text() + "\n// one more line\n")
    ev = evaluate_wrapper(get("c/dot/medium"), p, device="cpu", replay=True)
    assert ev.measured_ms is None
    assert ev.gates["correct"].passed is None and ev.device == "cpu"


def test_inline_module_replayed_with_its_process_baselines(module_rows):
    from rl.tasks.torch_eval import evaluate_torch

    task = get("torch/relu/medium")
    path = INLINE_DIR / "relu_inline.py"
    ev = evaluate_torch(task, path, device="cpu", build=False, replay=True)
    row = module_rows.loc[module_sample_id(INLINE, task.id, path.read_text())]
    params = json.loads(row["params"])
    assert ev.failed_gate is None and ev.gates["correct"].passed
    assert ev.timing.candidate_ms == pytest.approx(row["time_ms"])
    assert ev.speedup_eager == pytest.approx(params["eager_ms"] / row["time_ms"])
    assert ev.terms["speed"].value is not None           # the reward now has its speed term
    assert ev.kernels[0].measured_ms == pytest.approx(params["launches"][0]["measured_ms"])


def test_wrong_module_fails_correctness_from_its_run():
    from rl.tasks.torch_eval import evaluate_torch

    ev = evaluate_torch(get("torch/relu/small"), INLINE_DIR / "relu_wrong.py", device="cpu", build=False, replay=True)
    assert ev.failed_gate == "correct"
    assert ev.reward < 0 and ev.timing.candidate_ms is None


def test_cpu_static_gates_agree_with_the_gpu_runs(module_rows):
    """Each hacking module failed a gate on the H200; the CPU's static evaluation fails the same one."""
    from rl.tasks.torch_eval import evaluate_torch

    hacks = module_rows[module_rows["status"].str.startswith("gate_")]
    assert len(hacks) >= 20
    seen = set()
    for sid, row in hacks.iterrows():
        path = ROOT / json.loads(row["params"])["path"]
        task_id = "torch/" + row["task_id"].removeprefix("torch_")
        if (path, row["status"]) in seen:
            continue
        seen.add((path, row["status"]))
        ev = evaluate_torch(get(task_id), path, device="cpu", build=False, replay=True)
        assert f"gate_{ev.failed_gate}" == row["status"], (path.name, ev.failed_gate, row["status"])


def test_cli_replays_a_wrapper():
    proc = subprocess.run([sys.executable, "-m", "rl", "evaluate", "c/dot/small", str(WRAPPER_PATH), "--format", "json"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["measured_ms"] > 0 and out["failed_gate"] is None and "replayed" in out["device"]


def test_correct_but_slow_module_still_beats_a_failed_one():
    """linear_bias_relu_two_kernels ran 0.16x eager on the H200: a low reward, but above the fail reward."""
    from rewardmodel.reward import RewardConfig
    from rl.tasks.torch_eval import evaluate_torch

    ev = evaluate_torch(get("torch/linear_bias_relu/medium"), INLINE_DIR / "linear_bias_relu_two_kernels.py",
                        device="cpu", build=False, replay=True)
    assert ev.failed_gate is None and ev.speedup_eager < 0.5
    assert RewardConfig().fail_reward < ev.reward < 0
