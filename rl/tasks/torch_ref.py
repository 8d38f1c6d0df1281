"""PyTorch eager and torch.compile times of `torch` tasks' references, measured on a GPU and
stored as data beside the measured part files (PART.torch_reference.json in corpus/data).

Every torch task's speedups are over these two baselines. `time_reference` measures one task
in this process (CUDA events, warm-up, median; the compile itself outside the timing);
`python -m rl.measure --kind torch` times every selected task and writes the file;
`stored_timings` reads them back on any machine (a CPU one included), newest run winning.
"""
from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable

__all__ = ["TorchTiming", "time_reference", "stored_timings", "reference_timing"]

SUFFIX = ".torch_reference.json"


@dataclass
class TorchTiming:
    task_id: str
    eager_ms: float | None = None
    compile_ms: float | None = None       # torch.compile(Model) (inductor, default mode)
    compile_s: float | None = None        # seconds the first compiled call took (the compile)
    reps: int = 0
    torch: str = ""
    notes: list[str] = field(default_factory=list)


def time_reference(task: Any, device: str = "cuda", warmup: int = 5, reps: int = 30,
                   compile: bool = True) -> TorchTiming:
    """Eager and torch.compile medians of the task's Model on its seed-0 inputs. Failures (out of
    memory, an op inductor cannot compile) become notes with the time left None; memory and
    dynamo's caches are freed afterwards so a long run of tasks does not accumulate them."""
    import torch

    from .torch_eval import time_forward
    from .torch_kind import _one_line

    out = TorchTiming(task.id, reps=reps, torch=torch.__version__)
    model = inputs = compiled = None
    try:
        inputs = task.make_inputs(0, device)
        model = task.reference_model(device)
        out.eager_ms = time_forward(model, inputs, warmup, reps, device)
        if compile:
            try:
                compiled = torch.compile(model)
                t0 = time.perf_counter()
                with torch.no_grad():
                    compiled(*inputs)
                if str(device).startswith("cuda"):
                    torch.cuda.synchronize()
                out.compile_s = time.perf_counter() - t0
                out.compile_ms = time_forward(compiled, inputs, warmup, reps, device)
            except Exception as exc:  # noqa: BLE001 - a reference inductor cannot compile is a note
                out.notes.append(f"torch.compile failed: {_one_line(exc)}")
    except Exception as exc:  # noqa: BLE001 - one task's failure never stops the run
        out.notes.append(f"eager run failed: {_one_line(exc)}")
    finally:
        del model, inputs, compiled
        try:
            torch._dynamo.reset()
        except Exception:  # noqa: BLE001
            pass
        if str(device).startswith("cuda") and torch.cuda.is_available():
            torch.cuda.empty_cache()
    return out


def stored_timings(dirs: Iterable[str | Path] | None = None, gpu: str | None = None) -> dict[str, dict]:
    """task id -> the newest stored timing (with "gpu" and "run_id"), from every
    *.torch_reference.json in `dirs` (default corpus/data), only this GPU's when `gpu` is given."""
    from corpus import store

    out: dict[str, tuple[str, dict]] = {}
    for d in dirs or (store.DATA_DIR,):
        p = Path(d)
        for f in sorted(p.glob(f"*{SUFFIX}")) if p.is_dir() else ():
            try:
                doc = json.loads(f.read_text())
            except (OSError, ValueError):
                continue
            if gpu and doc.get("gpu") != gpu:
                continue
            for t in doc.get("timings", []):
                key = str(doc.get("run_id", ""))
                if t.get("task_id") and (t["task_id"] not in out or key >= out[t["task_id"]][0]):
                    out[t["task_id"]] = (key, dict(t, gpu=doc.get("gpu"), run_id=doc.get("run_id")))
    return {k: v for k, (_, v) in out.items()}


def reference_timing(task_id: str, gpu: str | None = None, dirs: Iterable[str | Path] | None = None) -> dict | None:
    """The stored eager / torch.compile timing of one task, or None."""
    return stored_timings(dirs, gpu).get(task_id)


def as_record(t: TorchTiming) -> dict[str, Any]:
    return asdict(t)
