"""Work the analysis cannot count, so the surrogate cannot time: a kernel that repeats its work by
`goto`, by recursion, through a call of a function pointer, or in a loop whose trip count it cannot
read shows the analysis one pass of it (a 64-step loop written with `goto` was predicted 30x faster,
with `do { } while (++k < 64)` 70x faster, than the same loop written with `for`).
The reward gives such a kernel no speed from the surrogate, only from a real run, and the RL
scheduler measures it first: the way a kernel is written must not buy it a predicted speedup.

Read from the text of the kernel and the device functions it calls (comments and strings aside).
"""
from __future__ import annotations

import re

from analyzer.rules.names import strip_comments

_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*(?:<[^<>;{}()]*>\s*)?\(")
_GOTO = re.compile(r"\bgoto\s+[A-Za-z_]\w*\s*;")
# a function pointer declared (`float (*fp)(...)`, `typedef float (*op_t)(...)`) or called through `(*fp)(`
_POINTER_DECL = re.compile(r"\(\s*\*\s*([A-Za-z_]\w*)\s*\)\s*\(")


def blind_spots(program, kernel, accesses=None) -> list[str]:
    """Why the analysis cannot count the work of `kernel` (a parse.Function) and the device functions
    it reaches: a `goto`, a recursive call, a call through a function pointer, and (given the kernel's
    accesses, analyzer.access.KernelAccesses) a loop with memory accesses whose trip count it cannot
    read (`do { ... } while (++k < n)`, `while (true)`: no corpus kernel has one, so no prediction was
    ever checked on one); [] for a kernel it reads whole."""
    uncounted = sorted({(lp.line, lp.kind) for a in (accesses.accesses if accesses is not None else ())
                        if a.space in ("global", "shared") for lp in a.loops if lp.var is None or lp.step is None})
    out = [f"{kernel.name} has a {kind} loop the analysis cannot count (line {line}): its accesses are counted once"
           for line, kind in uncounted[:2]]
    if not _may_hide(program):
        return out
    device = {f.name: f for f in program.functions if f.kind != "host" and f.body is not None}
    pointers = set(_POINTER_DECL.findall(strip_comments(program.original.decode("utf-8", "replace"))))
    seen: dict[str, set[str]] = {}
    todo = [kernel]
    while todo:
        f = todo.pop()
        if f.name in seen:
            continue
        body = strip_comments(program.text(f.body))
        calls = {m.group(1) for m in _CALL.finditer(body)}
        seen[f.name] = calls & set(device)
        jump = _GOTO.search(body)
        if jump:
            line = f.body.start_point[0] + body.count("\n", 0, jump.start()) + 1
            out.append(f"{f.name} jumps with goto (line {line}): a loop the analysis sees one pass of")
        through = sorted(calls & pointers)
        if through or re.search(r"\(\s*\*\s*[A-Za-z_]\w*\s*\)\s*\(", body):
            out.append(f"{f.name} calls through a function pointer ({', '.join(through) or '(*p)(...)'}): "
                       "work the analysis cannot see")
        todo += [device[c] for c in seen[f.name] if c not in seen]
    for name, calls in seen.items():
        if name in calls or any(name in seen.get(c, ()) for c in calls):
            out.append(f"{name} is recursive: the analysis sees one level of it")
    return out


def _may_hide(program) -> bool:
    """Whether the file has a `goto`, a `(*` (a function pointer's declaration or call) or a device
    function whose name stands in its own body or in that of one it names (recursion): substring
    tests, so that the call graph is read only for the rare file that has one."""
    src = program.original
    if b"goto" in src or b"(*" in src or b"( *" in src:
        return True
    bodies = [(f.name, program.text(f.body)) for f in program.functions if f.kind != "host" and f.body is not None]
    for name, text in bodies:
        if name in text:
            return True
    return any(a in tb and b in ta for i, (a, ta) in enumerate(bodies) for b, tb in bodies[i + 1:])
