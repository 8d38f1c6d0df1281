"""python -m rewardmodel train|eval|predict."""
from __future__ import annotations

import argparse
import json
import math
import re
import sys
import time
from pathlib import Path


def _dim3(text: str) -> tuple[int, int, int]:
    try:
        parts = [int(p) for p in text.replace("x", ",").split(",") if p.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected X[,Y[,Z]] integers, got {text!r}") from None
    if not 1 <= len(parts) <= 3 or any(p <= 0 for p in parts):
        raise argparse.ArgumentTypeError(f"expected 1 to 3 positive integers, got {text!r}")
    return tuple(parts + [1] * (3 - len(parts)))  # type: ignore[return-value]


def _arg(text: str) -> tuple[str, int | float]:
    name, eq, value = text.partition("=")
    if not eq or not name.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    try:
        v: int | float = int(value, 0)
    except ValueError:
        try:
            v = float(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name}: expected a number, got {value!r}") from None
    return name.strip(), v


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m rewardmodel", description="The runtime surrogate and the reward.")
    sub = p.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("train", help="fit the surrogate on the measured corpus and save it")
    t.add_argument("--data", action="append", help="data directory (default corpus/data)")
    t.add_argument("--out", help="model file (default: the packaged default model)")
    t.add_argument("--target", choices=["log_time", "log_ratio", "log_estimate"], default=None,
                   help="default: the one the last eval kept (eval_choice.json), else log_ratio")
    t.add_argument("--extra-samples", action="append", default=[], metavar="MODULE:FUNCTION",
                   help="also train on the measured rows of these samples (a function returning Samples), "
                        "e.g. rl.tasks:task_samples for the c and torch tasks' candidates (repeatable)")
    e = sub.add_parser("eval", help="held-out evaluation; writes rewardmodel/EVAL.md")
    e.add_argument("--data", action="append")
    e.add_argument("--out", help="markdown file (default rewardmodel/EVAL.md)")
    e.add_argument("--folds", type=int, default=8, help="held-out family folds")
    e.add_argument("--trees", type=int, default=None)
    e.add_argument("--json", help="also write the scores as JSON here")
    r = sub.add_parser("predict", help="predicted time and reward terms of one kernel launch")
    r.add_argument("file", help="CUDA source file")
    r.add_argument("--kernel", required=True, help="kernel name or template name expression, e.g. 'reduce<256>'")
    r.add_argument("--grid", type=_dim3, required=True)
    r.add_argument("--block", type=_dim3, required=True)
    r.add_argument("--smem", type=int, default=0, help="dynamic shared memory bytes")
    r.add_argument("--arg", type=_arg, action="append", default=[], help="scalar argument NAME=VALUE (repeatable)")
    r.add_argument("--bytes", type=float, default=None, help="bytes the task must move (for the roofline)")
    r.add_argument("--flops", type=float, default=None, help="floating-point operations the task must do")
    r.add_argument("--baseline-ms", type=float, default=None, help="the task's baseline time, for the speedup term")
    r.add_argument("--ptxas", action="store_true", help="registers and spills from ptxas (NVRTC or nvcc)")
    r.add_argument("--arch", default="sm_90")
    r.add_argument("--model", help="model file (default: the packaged default model)")
    r.add_argument("--format", choices=["text", "json"], default="text")
    return p


def cmd_train(ns) -> int:
    from . import dataset
    from .surrogate import DEFAULT_MODEL, Surrogate

    try:
        samples = dataset.samples_with(ns.extra_samples)
    except (ImportError, AttributeError, ValueError) as exc:
        print(f"error: --extra-samples: {exc}", file=sys.stderr)
        return 2
    table = dataset.load(ns.data, samples=samples)
    if len(table) < 20:
        print(f"error: only {len(table)} measured rows match current samples; nothing to train on", file=sys.stderr)
        return 2
    from .evaluate import chosen_config

    config = chosen_config(ns.target)
    target = config.target
    t0 = time.time()
    model = Surrogate(config).fit(table.X, table.time_ms, groups=table.family)
    out = Path(ns.out) if ns.out else DEFAULT_MODEL
    model.save(out)
    print(f"trained on {len(table)} rows ({len(set(table.family))} families), target {target}, "
          f"depth {config.max_depth}, colsample {config.colsample_bytree}, interval scale {model.scale_:.2f}, {time.time() - t0:.1f}s -> {out}")
    return 0


def cmd_eval(ns) -> int:
    from dataclasses import asdict, replace

    from corpus import store

    from . import dataset, evaluate
    from .surrogate import SurrogateConfig

    t0 = time.time()
    table = dataset.load(ns.data)
    if len(table) < 20 or len(set(table.family[table.origin == "family"])) < 3:
        print(f"error: {len(table)} rows are too few to evaluate", file=sys.stderr)
        return 2
    cfg = SurrogateConfig()
    if ns.trees:
        cfg = replace(cfg, n_estimators=ns.trees)
    log = lambda m: print(m, file=sys.stderr, flush=True)  # noqa: E731
    result = evaluate.evaluate(table, cfg, k_family=ns.folds, log=log)
    files = [p.name for p in store.part_files(ns.data or (store.DATA_DIR,))]
    out = Path(ns.out) if ns.out else evaluate.EVAL_MD
    text = evaluate.write_markdown(result, table, dataset.noise_floor(ns.data), out, files, time.time() - t0)
    if not ns.out:
        evaluate.save_choice(result)
    if ns.json:
        js = {k: {n: asdict(s) for n, s in v.items()} for k, v in result.items()
              if k in ("family", "random", "handwritten", "target_scores") and v}
        js["target"] = result["target"]
        Path(ns.json).write_text(json.dumps(js, indent=1, default=str))
    print(text)
    return 0


def cmd_predict(ns) -> int:
    from .features import FeatureError, Problem
    from .reward import RewardConfig, score_launch

    try:
        source = Path(ns.file).read_text()
    except OSError as exc:
        print(f"error: {ns.file}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except UnicodeDecodeError:
        print(f"error: {ns.file}: not UTF-8 text", file=sys.stderr)
        return 2
    try:
        source, embedded = cuda_of(ns.file, source, ns.kernel)
    except ValueError as exc:
        print(f"error: {ns.file}: {exc}", file=sys.stderr)
        return 2
    try:
        from .surrogate import Surrogate, load_default

        model = Surrogate.load(ns.model) if ns.model else load_default()
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        out = score_launch(source, ns.kernel, grid=ns.grid, block=ns.block, smem=ns.smem, args=dict(ns.arg),
                           problem=Problem(ns.bytes, ns.flops), arch=ns.arch, ptxas=ns.ptxas, model=model,
                           baseline_ms=ns.baseline_ms, config=RewardConfig(), path=ns.file)
    except FeatureError as exc:
        print(f"error: {ns.file}: {exc}", file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if out["prediction"] is None:
        gate = out["breakdown"]["gates"].get("parse", {})
        print(f"error: {ns.file}: {gate.get('detail') or 'the kernel could not be analyzed'}", file=sys.stderr)
        return 2
    if embedded is not None:
        _at_file_lines(out, embedded)
    if ns.format == "json":
        print(json.dumps(_clean(out), indent=1, default=str, allow_nan=False))
    else:
        print(_text(out))
    return 0


def cuda_of(path: str, text: str, kernel: str):
    """(CUDA source, where it sits in the file) for the kernel: a .cu file is its own source (None);
    a .py file's CUDA string (load_inline, CuPy, PyCUDA, any string holding a kernel) or a reply's
    fenced code block (.md, .txt) is the one that defines `kernel`. ValueError where none does."""
    from analyzer.pyextract import extract_file

    try:
        got = extract_file(path, text)
    except SyntaxError as exc:
        raise ValueError(f"Python does not parse: {exc.msg} (line {exc.lineno})") from None
    if got is None:
        return text, None
    found = got.embedded
    base = re.escape(kernel.split("<")[0].strip())
    defines = re.compile(rf"\b{base}\s*(?:<[^;{{]*>\s*)?\(")
    for emb in found:
        if "__global__" in emb.source and defines.search(emb.source):
            return emb.source, emb
    where = "CUDA strings" if path.endswith(".py") else "code blocks"
    if not found:
        raise ValueError(f"no CUDA found in its {where}")
    raise ValueError(f"kernel {kernel!r} is in none of its {where} ({len(found)} found)")


_POSITION = re.compile(r"^(\d+):(\d+): ")


def _at_file_lines(out: dict, emb) -> None:
    """The findings' `line:col` and the lines the messages and notes name, in the .py or reply file
    rather than in the CUDA text taken from it."""
    def moved(finding: str) -> str:
        m = _POSITION.match(finding)
        if not m:
            return emb.text_to_python(finding)
        line, col = emb.to_python(int(m.group(1)), int(m.group(2)))
        return f"{line}:{col}: " + emb.text_to_python(finding[m.end():])

    out["breakdown"]["findings"] = [moved(f) for f in out["breakdown"]["findings"]]
    out["notes"] = [emb.text_to_python(n) for n in out["notes"]]
    out["breakdown"]["notes"] = out["notes"]


def _clean(x):
    """NaN -> null, tuples -> lists: strict JSON for scripts."""
    if isinstance(x, float):
        return None if not math.isfinite(x) else x
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    return x


def _text(out: dict) -> str:
    p = out["prediction"]
    lines = [f"{out['kernel']}: predicted {p['time_ms']:.4g} ms (80% interval {p['lo_ms']:.4g} .. {p['hi_ms']:.4g} ms), "
             f"roofline {p['roofline_ms']:.4g} ms, slowest pipe {p['pipe_estimate_ms']:.4g} ms"]
    for note in out["notes"]:
        lines.append(f"  note: {note}")
    lines.append("structural terms:")
    for name, t in out["breakdown"]["terms"].items():
        value = "   n/a" if t["value"] is None else f"{t['value']:+.3f}"
        lines.append(f"  {name:<14} {value}  (weight {t['weight']:g}) {t.get('why', '')}")
    failed = [f"{k} ({g['detail']})" for k, g in out["breakdown"]["gates"].items() if g["passed"] is False]
    if failed:
        lines.append("failed gates: " + "; ".join(failed))
    lines.append(f"reward {out['breakdown']['reward']:+.3f} (speed from: {out['breakdown']['speed_source']})")
    for f in out["breakdown"]["findings"]:
        lines.append(f"  {f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ns = parser().parse_args(argv)
    return {"train": cmd_train, "eval": cmd_eval, "predict": cmd_predict}[ns.cmd](ns)
