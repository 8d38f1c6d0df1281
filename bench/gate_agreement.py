"""The reward's gates against NVRTC on broken candidates (issue 4): how often a candidate the real
build refuses still earns a reward with `compile=False` (the RL loop's default: the surrogate
answers, no compiler runs), and how often a candidate that builds is failed.

Candidates: `--n` distinct corpus kernel sources (seeded), each as written and with one slip of the
kind a model's reply makes, at a random place where it applies (a source without such a place has
no mutant of that kind):

- semicolon: a statement's `;` dropped (a kernel body's line ending in `;`)
- paren:     the `)` closing a `for` header dropped
- brace:     the source's last `}` dropped
- name:      a use of a kernel's local variable misspelt (its last letter doubled)
- type:      a `float`/`int` of a declaration in a kernel body misspelt (`flaot`, `itn`)
- member:    `threadIdx.x` -> `threadIdx.w` (no such member)
- call:      a builtin call misspelt (`__syncthreads` -> `__syncthread`, `expf` -> `expff`, ...)
- const:     one of the kernel's pointer parameters made `const` (refused where the kernel writes it;
             not in templates, whose explicit instantiations would no longer match)
- scope:     a `for` loop's variable used after the loop (`(void)k;` after its last statement; loops
             whose body is a block or a simple statement)
- alias:     a kernel's `const T*` parameter read through a local `T* x_w = x;` (no const), one of
             its reads made through it (not in templates)

Each candidate's slip is placed by its own random stream (the seed, the source, the kind).

The real verdict is the profiler's NVRTC build (analyzer.profile.build: the source as written, by the
kernel's name expression, the toolkit's include folders), run in worker processes (NVRTC may crash
on broken code: that source's verdicts are left out and counted). The reward's verdict is
rewardmodel.reward.reward with the default surrogate, the sample's launch, compile=False: a failed
gate of any kind, or a passing reward.

    python bench/gate_agreement.py [--n 150] [--seed 0] [--out bench/results/gate_agreement.json]
"""
from __future__ import annotations

import argparse
import collections
import concurrent.futures as cf
import json
import random
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

KINDS = ("as written", "semicolon", "paren", "brace", "name", "type", "member", "call", "const", "scope", "alias")
_POINTER_PARAM = re.compile(r"([(,]\s*)(?!const\b)((?:unsigned\s+)?[A-Za-z_]\w*\s*\*)")
_CALLS = (("__syncthreads(", "__syncthread("), ("expf(", "expff("), ("fmaxf(", "fmaxff("), ("sqrtf(", "sqrtff("),
          ("atomicAdd(", "atomicAd("), ("__shfl_down_sync(", "__shfl_dwn_sync("), ("rsqrtf(", "rsqrttf("))
_LOCAL = re.compile(r"^\s*(?:const\s+)?(?:int|float|unsigned|size_t|int64_t|double)\s+([a-z_]\w*)\s*=", re.M)
_DECL_TYPE = re.compile(r"^(\s*)(float|int)(\s+[a-z_]\w*\s*=)", re.M)
_FOR_LOCAL = re.compile(r"\bfor\s*\(\s*(?:unsigned\s+)?(?:int|size_t|long|unsigned)\s+([A-Za-z_]\w*)\s*=")
_CONST_PARAM = re.compile(r"\bconst\s+([A-Za-z_]\w*)\s*\*\s*(?:__restrict__\s+)?([A-Za-z_]\w*)\s*[,)]")


def _matching(text: str, at: int, open_: str, close: str) -> int:
    """The offset of the `close` matching the `open_` at `at` (len(text) where none does)."""
    depth = 0
    for i in range(at, len(text)):
        depth += (text[i] == open_) - (text[i] == close)
        if depth == 0:
            return i
    return len(text)


def _body_span(src: str) -> tuple[int, int]:
    """Offsets of the first kernel's body (after its `{`, to the end of the source: what the slips
    may touch)."""
    k = src.find("__global__")
    start = src.find("{", k if k >= 0 else 0)
    return (start + 1, len(src)) if start >= 0 else (0, 0)


def mutate(src: str, kind: str, rng: random.Random) -> str | None:
    """The source with one slip of `kind`, or None where it has no place for one."""
    lo, hi = _body_span(src)
    if hi <= lo:
        return None
    body = src[lo:hi]
    if kind == "semicolon":
        spots = [m.start() for m in re.finditer(r";[ \t]*$", body, re.M)
                 if not body[body.rfind("\n", 0, m.start()) + 1:m.start()].lstrip().startswith(("#", "//", "for"))]
        if not spots:
            return None
        at = lo + rng.choice(spots)
        return src[:at] + src[at + 1:]
    if kind == "paren":
        spots = [i for m in re.finditer(r"\bfor\s*\(", body) if (i := _matching(body, m.end() - 1, "(", ")")) < len(body)]
        if not spots:
            return None
        at = lo + rng.choice(spots)
        return src[:at] + src[at + 1:]
    if kind == "brace":
        at = src.rfind("}")
        return src[:at] + src[at + 1:] if at > lo else None
    if kind == "name":
        names = sorted({m.group(1) for m in _LOCAL.finditer(body)})
        uses = [(m.start(), m.end()) for n in names for m in re.finditer(rf"\b{re.escape(n)}\b", body)]
        # a use, not the declaration: one after the first occurrence of its name
        firsts = {n: re.search(rf"\b{re.escape(n)}\b", body).start() for n in names}
        uses = [(a, b) for a, b in uses if a != firsts[body[a:b]]]
        if not uses:
            return None
        a, b = rng.choice(uses)
        return src[:lo + b] + src[lo + b - 1] + src[lo + b:]
    if kind == "type":
        spots = list(_DECL_TYPE.finditer(body))
        if not spots:
            return None
        m = rng.choice(spots)
        wrong = {"float": "flaot", "int": "itn"}[m.group(2)]
        return src[:lo + m.start(2)] + wrong + src[lo + m.end(2):]
    if kind == "member":
        spots = [m.start() for m in re.finditer(r"threadIdx\.x", body)]
        if not spots:
            return None
        at = lo + rng.choice(spots) + len("threadIdx.")
        return src[:at] + "w" + src[at + 1:]
    if kind == "call":
        spots = [(m.start(), old, new) for old, new in _CALLS for m in re.finditer(re.escape(old), body)]
        if not spots:
            return None
        at, old, new = rng.choice(spots)
        return src[:lo + at] + new + src[lo + at + len(old):]
    if kind == "const":
        # the kernel's parameter list: back from the `)` before its body's `{` to the matching `(`
        close = src.rfind(")", 0, lo)
        depth, open_ = 0, close
        while open_ > 0:
            depth += (src[open_] == ")") - (src[open_] == "(")
            if depth == 0:
                break
            open_ -= 1
        k = src.find("__global__")
        spots = [m for m in _POINTER_PARAM.finditer(src, open_, close) if m.group(2).split()[0] not in ("const", "void")]
        if k < 0 or not spots or "template" in src:    # (an explicit instantiation would no longer match)
            return None
        m = rng.choice(spots)
        return src[:m.start(2)] + "const " + src[m.start(2):]
    if kind == "scope":
        spots = []
        for m in _FOR_LOCAL.finditer(body):
            head_end = _matching(body, body.index("(", m.start()), "(", ")")
            k = head_end + 1
            while k < len(body) and body[k].isspace():
                k += 1
            if body[k:k + 1] != "{" and re.match(r"#|(?:for|if|while|do|switch)\b", body[k:]):
                continue        # a body that is a statement of its own: the next `;` need not end it
            end = _matching(body, k, "{", "}") + 1 if body[k:k + 1] == "{" else body.find(";", k) + 1
            if 0 < end <= len(body):
                spots.append((end, m.group(1)))
        if not spots:
            return None
        at, name = rng.choice(spots)
        return src[:lo + at] + f"\n    (void){name};" + src[lo + at:]
    if kind == "alias":
        head = src[:lo]
        params = [m for m in _CONST_PARAM.finditer(head, head.rfind("__global__"))] if "__global__" in head else []
        params = [m for m in params if re.search(rf"\b{re.escape(m.group(2))}\s*\[", body)]
        if not params or "template" in src:
            return None
        m = rng.choice(params)
        ctype, name = m.group(1), m.group(2)
        reads = [r.start() for r in re.finditer(rf"\b{re.escape(name)}\s*\[", body)]
        at = rng.choice(reads)
        body = body[:at] + name + "_w" + body[at + len(name):]
        return src[:lo] + f"\n    {ctype}* {name}_w = {name};" + body
    raise ValueError(kind)


def _nvrtc_verdicts(jobs: list[tuple[str, str]], arch: str) -> list[tuple[bool, str]]:
    """(builds, first error line) for each (source, name expression), the profiler's NVRTC build.
    Runs in a worker process."""
    from analyzer.profile import toolkit
    from analyzer.profile.build import _nvrtc_compile, compile_options

    options = compile_options(arch, toolkit.cuda_include_dir(), verbose_ptxas=False)
    out = []
    for source, kernel in jobs:
        ok, _, _, log = _nvrtc_compile(source, kernel, options)
        out.append((bool(ok), "" if ok else next((l for l in log.splitlines() if "error" in l), log[:200])))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=150, help="distinct corpus sources")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "gate_agreement.json"))
    args = ap.parse_args(argv)
    try:
        import cuda.bindings.nvrtc  # noqa: F401
        from analyzer.profile import toolkit
        toolkit.cuda_include_dir()
    except Exception as exc:  # noqa: BLE001
        print(f"error: needs NVRTC (cuda-python) and the CUDA toolkit's headers: {exc}", file=sys.stderr)
        return 2
    from lint_speed import machine
    from rewardmodel.dataset import sample_args
    from rewardmodel.features import Problem
    from rewardmodel.reward import reward
    from rewardmodel.surrogate import load_default
    from corpus.families import all_samples

    seen, samples = set(), []
    for s in all_samples():
        if s.source_hash not in seen and s.origin != "handwritten":
            seen.add(s.source_hash)
            samples.append(s)
    random.Random(args.seed).shuffle(samples)
    samples = samples[:args.n]
    model = load_default()
    cases = []          # (sample index, kind, source)
    for i, s in enumerate(samples):
        for kind in KINDS:
            src = s.source if kind == "as written" else mutate(s.source, kind, random.Random(f"{args.seed}:{s.source_hash}:{kind}"))
            if src is not None and (kind == "as written" or src != s.source):
                cases.append((i, kind, src))
    print(f"{len(samples)} sources, {len(cases)} candidates; NVRTC verdicts in 2 worker processes ...", flush=True)
    t0 = time.perf_counter()
    by_sample = collections.defaultdict(list)
    for c in cases:
        by_sample[c[0]].append(c)
    verdicts: dict[tuple[int, str], tuple[bool, str]] = {}
    crashed = 0
    pending = list(by_sample)
    while pending:
        with cf.ProcessPoolExecutor(max_workers=2) as pool:
            futs = {pool.submit(_nvrtc_verdicts, [(src, samples[i].kernel) for i, _, src in by_sample[i]], args.arch): i
                    for i in pending}
            pending = []
            try:
                for f in cf.as_completed(futs):
                    i = futs[f]
                    for (_, kind, _), v in zip(by_sample[i], f.result()):
                        verdicts[(i, kind)] = v
            except cf.process.BrokenProcessPool:
                # NVRTC crashed on one source: the sources without verdicts are tried again alone
                left = [i for i in futs if not any((i, k) in verdicts for k in KINDS)]
                if len(left) == 1:
                    crashed += 1
                else:
                    pending = left if len(left) < len(futs) else left[1:]
                    crashed += len(left) == len(futs)
    nvrtc_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    tally = {k: collections.Counter() for k in KINDS}
    leaks = collections.defaultdict(list)
    false_fails = []
    for i, kind, src in cases:
        if (i, kind) not in verdicts:
            continue
        s = samples[i]
        builds, err = verdicts[(i, kind)]
        br, _, _ = reward(src, s.kernel, grid=s.grid, block=s.block, smem=s.smem, args=sample_args(s),
                          problem=Problem(s.bytes, s.flops), model=model, baseline_ms=0.1)
        fails = br.failed_gate is not None
        t = tally[kind]
        t["candidates"] += 1
        t["nvrtc refuses"] += not builds
        t["caught"] += (not builds) and fails
        t["leaked"] += (not builds) and not fails
        t["false fail"] += builds and fails
        if not builds and not fails and len(leaks[kind]) < 3:
            leaks[kind].append({"sample": s.sample_id, "nvrtc": err[:160]})
        if builds and fails:
            false_fails.append({"sample": s.sample_id, "kind": kind, "gate": br.failed_gate,
                                "detail": br.gates[br.failed_gate].detail[:200]})
    reward_s = time.perf_counter() - t0
    print(f"\n{'slip':12s} {'candidates':>10s} {'NVRTC refuses':>14s} {'caught':>7s} {'leaked':>7s} {'false fail':>10s}")
    rows = []
    total = collections.Counter()
    for kind in KINDS:
        t = tally[kind]
        total.update(t)
        rows.append({"slip": kind, **t})
        print(f"{kind:12s} {t['candidates']:10d} {t['nvrtc refuses']:14d} {t['caught']:7d} {t['leaked']:7d} {t['false fail']:10d}")
    print(f"{'all':12s} {total['candidates']:10d} {total['nvrtc refuses']:14d} {total['caught']:7d} {total['leaked']:7d} "
          f"{total['false fail']:10d}")
    refused = total["nvrtc refuses"]
    caught = total["caught"] / refused if refused else float("nan")
    print(f"\nof the candidates NVRTC refuses, the reward (compile=False) fails {caught:.1%}; "
          f"{total['false fail']} of {total['candidates'] - refused} that build are failed; "
          f"{crashed} source(s) left out (NVRTC crashed); NVRTC {nvrtc_s:.0f} s, rewards {reward_s:.0f} s")
    for kind, items in leaks.items():
        for it in items[:1]:
            print(f"  leaked ({kind}): {it['sample']}: {it['nvrtc']}")
    for ff in false_fails[:5]:
        print(f"  false fail: {ff}")
    out = {"machine": machine(), "n_sources": len(samples), "seed": args.seed, "arch": args.arch, "rows": rows,
           "caught_share": caught, "false_fails": false_fails, "leak_examples": dict(leaks), "crashed_sources": crashed,
           "nvrtc_s": round(nvrtc_s, 1), "reward_s": round(reward_s, 1)}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=2))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
