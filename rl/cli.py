"""`python -m rl`: train, serve, tasks, evaluate, measure.

Exit codes: 0 done, 1 the candidate failed a gate (evaluate), 2 usage or input error.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

CONFIG_DIR = Path(__file__).resolve().parent / "configs"


def resolve_config(name: str) -> Path:
    """A config path as given, or one of the shipped ones by name: `demo`, `configs/demo`, `gpu`."""
    p = Path(name)
    if p.exists():
        return p
    stem = p.name.removesuffix(".toml").removesuffix(".yaml")
    for cand in (CONFIG_DIR / f"{stem}.toml", CONFIG_DIR / f"{stem}.yaml"):
        if cand.exists():
            return cand
    shipped = ", ".join(sorted(c.stem for c in CONFIG_DIR.glob("*.toml")))
    raise FileNotFoundError(f"{name}: no such config file (shipped configs: {shipped})")


def cmd_train(ns) -> int:
    from .config import ConfigError, load_config
    from .train import train

    overrides = {}
    if ns.steps is not None:
        overrides["steps"] = ns.steps
    if ns.seed is not None:
        overrides["seed"] = ns.seed
    if ns.oracle is not None:
        overrides["oracle"] = ns.oracle
    try:
        cfg = load_config(resolve_config(ns.config), overrides)
    except (ConfigError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        result = train(cfg, out_dir=Path(ns.out) if ns.out else None, progress=not ns.quiet)
    except (ValueError, RuntimeError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    s = result.summary
    print(json.dumps({k: s[k] for k in ("name", "tasks", "episodes", "rewards", "real_answers", "real_share", "gpu_s",
                                         "saved_s", "curve_metric", "curve_start", "curve_end", "best_speedup_mean",
                                         "wall_s")}, indent=1, default=str))
    return 0


def cmd_tasks(ns) -> int:
    from .tasks import UnknownTask, all_tasks, get

    if ns.action == "list":
        tasks = all_tasks([ns.kind] if ns.kind else None)
        for tid, t in tasks.items():
            base = t.baseline.variant if t.baseline is not None else "PyTorch eager"
            print(f"{tid}\t{t.kind}\t{len(t.candidates)} variants\tbaseline {base}")
        return 0
    if ns.action == "import":
        return _import(ns.task, ns.into)
    if ns.action == "show":
        if not ns.task:
            print("error: tasks show needs a task id", file=sys.stderr)
            return 2
        try:
            t = get(ns.task)
        except UnknownTask as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        if t.kind == "torch":
            print(t.prompt())
            if t.baseline is None:
                return 0
            print("Or, as this task has a raw-kernel port: a CUDA kernel with a launch line.\n")
        from .submission import SubmissionError, task_prompt

        try:
            print(task_prompt(t))
        except SubmissionError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        return 0
    print(f"error: unknown tasks action {ns.action!r}", file=sys.stderr)
    return 2


def _import(src: str | None, into: str | None) -> int:
    """Import task files from a directory: KernelBench-layout .py files as torch tasks, NAME.c +
    NAME.toml + NAME.cu triples as c tasks. Exit 0 all imported, 1 some refused, 2 none or bad input."""
    if not src:
        print("error: tasks import needs a directory", file=sys.stderr)
        return 2
    d = Path(src)
    if not d.is_dir():
        print(f"error: {src}: not a directory", file=sys.stderr)
        return 2
    has_py = any(d.glob("*.py"))
    has_c = any(d.glob("*.toml"))
    if not (has_py or has_c):
        print(f"error: {src}: no task files (*.py in the KernelBench layout, or NAME.c + NAME.toml + NAME.cu)",
              file=sys.stderr)
        return 2
    codes = []
    if has_py:
        from .tasks.torch_kind import cmd_import_torch

        codes.append(cmd_import_torch(str(d), into and str(Path(into) / "torch")))
    if has_c:
        from .tasks.c_kind import import_c_tasks

        rep = import_c_tasks(d, into and Path(into) / "c")
        for name in rep.imported:
            print(f"imported c task {name}")
        for err in rep.errors:
            print(f"error: {err}", file=sys.stderr)
        codes.append(0 if not rep.errors else (1 if rep.imported else 2))
    return max(codes)


def cmd_evaluate(ns) -> int:
    from .core import RewardCore
    from .tasks import UnknownTask, get

    if ns.task.startswith("torch/") and not _raw_kernel_for_port(ns.task, ns.candidate):
        from .tasks.torch_eval import cmd_evaluate_torch

        return cmd_evaluate_torch(ns.task, ns.candidate, ns.format, oracle=ns.oracle)

    try:
        task = get(ns.task)
    except UnknownTask as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        text = Path(ns.candidate).read_text(encoding="utf-8")
    except FileNotFoundError:
        print(f"error: {ns.candidate}: no such file", file=sys.stderr)
        return 2
    except (UnicodeDecodeError, IsADirectoryError) as exc:
        print(f"error: {ns.candidate}: cannot read as UTF-8 text ({type(exc).__name__})", file=sys.stderr)
        return 2
    if getattr(task, "kind", None) == "c" and "```" not in text:
        from .tasks.c_wrapper import cmd_evaluate_wrapper, is_wrapper

        if is_wrapper(task, text):      # kernels plus a host function with the C reference's signature
            return cmd_evaluate_wrapper(task, ns.candidate, ns.format, ns.oracle)
    if "```" not in text:       # a plain .cu file is its own code block
        text = f"```cuda\n{text}\n```"
    from .scheduler import Scheduler, SchedulerConfig

    oracle = ns.oracle
    if oracle == "auto":
        from analyzer.profile.toolkit import has_gpu

        oracle = "gpu" if has_gpu() else "replay"
    core = RewardCore.from_defaults(oracle, scheduler=Scheduler(SchedulerConfig(budget=1.0)))
    try:
        s = core.score_texts([task.id], [text])[0]
    except RuntimeError as exc:          # the oracle could not run (no GPU, no NVRTC)
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        core.close()
    extra = {}
    if task.kind == "c" and s.time_ms and s.source == "measured":
        from .tasks.c_kind import c_reference_timing

        ct = c_reference_timing(task)
        extra = {"c_reference_ms": ct.ms, "c_reference_cpu": getattr(ct, "cpu", ""),
                 "speedup_over_c": ct.ms / s.time_ms}
    if task.kind == "torch" and s.time_ms and s.source == "measured":
        from .tasks.torch_ref import reference_timing

        ref = reference_timing(task.id, s.real.gpu if getattr(s.real, "gpu", None) else None) or {}
        for key in ("eager_ms", "compile_ms"):
            if ref.get(key):
                extra[key.replace("_ms", "_reference_ms")] = ref[key]
                extra[f"speedup_over_{key[:-3]}"] = ref[key] / s.time_ms
    if ns.format == "json":
        print(json.dumps({**s.to_dict(), **extra}, indent=1, default=str))
    else:
        print(_text(task, s))
        for key, what in (("eager", "PyTorch eager"), ("compile", "torch.compile")):
            if f"speedup_over_{key}" in extra:
                print(f"  speedup over {what}: {extra[f'speedup_over_{key}']:.2f}x "
                      f"({extra[f'{key}_reference_ms']:.4f} ms per forward, stored H200 timing; the kernel's time "
                      "is device time, the forward's includes PyTorch's launch overhead)")
        if "speedup_over_c" in extra:
            print(f"  speedup over the -O3 C reference: {extra['speedup_over_c']:.2f}x "
                  f"({extra['c_reference_ms']:.3f} ms on {extra['c_reference_cpu'] or 'this CPU'})")
        if s.source == "surrogate" and s.real is None:
            print(f"  (time predicted: oracle {oracle} had no real answer for this candidate)")
    return 1 if s.error else 0


def _raw_kernel_for_port(task_id: str, candidate: str) -> bool:
    """A torch task's candidate is a raw kernel (a .cu file or a reply), not a load_inline module,
    and the task has a port to launch it with."""
    if candidate.endswith(".py"):
        return False
    from .tasks import UnknownTask, get

    try:
        return get(task_id).baseline is not None
    except UnknownTask:
        return False


def _text(task, s) -> str:
    lines = [f"task {task.id} ({task.kind}), baseline {task.baseline.variant}"]
    gates = s.breakdown.get("gates", {})
    for name, g in gates.items():
        mark = {True: "pass", False: "FAIL", None: "----"}[g.get("passed")]
        lines.append(f"  gate {name:20s} {mark}  {g.get('detail', '')}")
    if s.time_ms:
        lines.append(f"  time {s.time_ms:.4f} ms ({s.source})" + (f", {s.speedup:.2f}x the baseline" if s.speedup else ""))
    for name, t in s.breakdown.get("terms", {}).items():
        v = t.get("value")
        lines.append(f"  term {name:12s} {'-' if v is None else f'{v:+.3f}'} x {t.get('weight')}  {t.get('why', '')}")
    for f in s.findings:
        lines.append(f"  finding {f}")
    lines.append(f"reward {s.reward:.3f}" + (f"  ({s.error})" if s.error else ""))
    return "\n".join(lines)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m rl", description="cudaperf RL: train, serve rewards, tasks")
    sub = p.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("train", help="train the built-in policy (GRPO) from a config")
    t.add_argument("config", help="a .toml/.yaml config, or a shipped one: demo, gpu")
    t.add_argument("--steps", type=int, help="override the config's steps")
    t.add_argument("--seed", type=int)
    t.add_argument("--oracle", choices=["replay", "gpu", "ray", "none"])
    t.add_argument("--out", help="run directory (default: the config's out_dir)")
    t.add_argument("--quiet", action="store_true", help="no progress bar")
    s = sub.add_parser("serve", help="the reward as a loopback HTTP service")
    try:
        from .server import add_arguments

        add_arguments(s)
    except ImportError as exc:          # the server's extra is not installed
        s.set_defaults(_missing=f"the reward server needs starlette and uvicorn ({exc}): pip install 'cudaperf[rl]'")
    k = sub.add_parser("tasks", help="list, show or import tasks")
    k.add_argument("action", choices=["list", "show", "import"])
    k.add_argument("task", nargs="?", help="show: a task id; import: a directory of task files")
    k.add_argument("--into", help="import: the task directory (default $CUDAPERF_TASKS or ~/.local/share/cudaperf/tasks)")
    k.add_argument("--kind", help="only tasks of this kind (family, torch, c)")
    sub.add_parser("measure", help="measure task candidates on this GPU into the corpus store (see --help)",
                   add_help=False)
    e = sub.add_parser("evaluate", help="score one candidate (a reply or a .cu file with a // launch: line)")
    e.add_argument("task")
    e.add_argument("candidate")
    e.add_argument("--oracle", choices=["auto", "replay", "gpu", "none"], default="auto",
                   help="auto: the local GPU when there is one, else replay of the measured corpus "
                        "(kernels, and host wrappers / load_inline modules measured before)")
    e.add_argument("--format", choices=["text", "json"], default="text")
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["measure"]:         # its own parser: python -m rl measure --help
        from .measure import main as measure_main

        return measure_main(argv[1:])
    ns = parser().parse_args(argv)
    if getattr(ns, "_missing", None):
        print(f"error: {ns._missing}", file=sys.stderr)
        return 2
    if ns.cmd == "train":
        return cmd_train(ns)
    if ns.cmd == "serve":
        from .server import run

        return run(ns) or 0
    if ns.cmd == "tasks":
        return cmd_tasks(ns)
    if ns.cmd == "evaluate":
        return cmd_evaluate(ns)
    return 2
