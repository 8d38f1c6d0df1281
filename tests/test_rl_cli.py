"""`python -m rl`: evaluate, tasks, train's input errors (in-process, through main())."""
from __future__ import annotations

import json

import pytest

from rewardmodel.reward import RewardConfig
from rl.cli import main
from rl.submission import launch_line
from rl.tasks import get


@pytest.fixture
def candidate(tmp_path):
    t = get("transpose/r4K_c4K")
    c = t.candidates[5]
    p = tmp_path / "cand.cu"
    p.write_text(launch_line(c) + "\n" + c.source)
    return p, c


def test_evaluate_measured_candidate_text_and_json(candidate, capsys):
    path, c = candidate
    assert main(["evaluate", "transpose/r4K_c4K", str(path), "--oracle", "replay"]) == 0
    out = capsys.readouterr().out
    assert "(measured)" in out and "gate correct" in out and "reward" in out
    assert main(["evaluate", "transpose/r4K_c4K", str(path), "--oracle", "replay", "--format", "json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["sample_id"] == c.sample_id and d["source"] == "measured" and d["real"]["origin"] == "replay"


def test_evaluate_bad_inputs(candidate, tmp_path, capsys):
    path, _ = candidate
    assert main(["evaluate", "transpose/nope", str(path)]) == 2
    assert "unknown task 'transpose/nope'" in capsys.readouterr().err
    assert main(["evaluate", "transpose/r4K_c4K", str(tmp_path / "missing.cu")]) == 2
    assert "no such file" in capsys.readouterr().err
    binary = tmp_path / "bin.cu"
    binary.write_bytes(b"\xff\xfe\x00\x01")
    assert main(["evaluate", "transpose/r4K_c4K", str(binary)]) == 2
    assert "UTF-8" in capsys.readouterr().err
    broken = tmp_path / "broken.cu"
    broken.write_text("__global__ void k() {}\n")       # no extern "C", no launch line
    assert main(["evaluate", "transpose/r4K_c4K", str(broken), "--oracle", "replay"]) == 1
    assert f"reward {RewardConfig().fail_reward:.3f}" in capsys.readouterr().out


def test_tasks_list_show_import(tmp_path, capsys):
    assert main(["tasks", "list", "--kind", "c"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) >= 60 and all(l.startswith("c/") for l in lines)
    assert main(["tasks", "show", "c/jacobi2d/small"]) == 0
    out = capsys.readouterr().out
    assert "// launch:" in out and "sequential C reference" in out
    assert main(["tasks", "import", str(tmp_path / "nowhere")]) == 2
    assert "not a directory" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["tasks", "import", str(tmp_path / "empty")]) == 2
    assert "no task files" in capsys.readouterr().err


def test_train_input_errors(tmp_path, capsys):
    assert main(["train", str(tmp_path / "missing.toml")]) == 2
    assert "no such config file" in capsys.readouterr().err
    bad = tmp_path / "bad.toml"
    bad.write_text('families = ["no_such_family"]\nsteps = 1\n')
    assert main(["train", str(bad), "--quiet", "--out", str(tmp_path / "run")]) == 2
    assert "unknown family: no_such_family" in capsys.readouterr().err
