"""The registry of lint rules.

Each rule has a stable code, a name, a severity, a one-line summary, a doc in
four parts (what it does; why it is bad; example; use instead) and a check.
Kernel rules see one `KernelContext`; file rules see the whole `FileContext`.
Rule modules register themselves on import; `all_rules()` imports them.
"""
from __future__ import annotations

import importlib
import itertools
import pkgutil
import textwrap
from dataclasses import dataclass, field
from typing import Callable, Iterable

from .. import models
from .. import symbolic as S
from ..access import Access, KernelAccesses
from ..fix import Edit
from ..parse import Function, Program, count, eval_constant
from ..resources import Resources
from .._records import fast_init, lazy

SEVERITIES = ("error", "warning", "info")


@fast_init
@dataclass(frozen=True)
class Finding:
    code: str
    name: str
    severity: str
    message: str
    path: str
    line: int
    col: int
    kernel: str = ""
    estimate: dict = field(default_factory=dict, compare=False, hash=False)
    # what `lint --fix` may change for it: analyzer.fix.Edit's, in this file's lines and byte columns
    fix: tuple = field(default=(), compare=False, hash=False)

    def sort_key(self):
        # the kernel too: two kernels' findings at one place (a shared device function) would
        # otherwise come out in the set's order, which changes from run to run
        return (self.path, self.line, self.col, self.code, self.message, self.kernel)


@dataclass(frozen=True)
class Options:
    """Thresholds the rules use; the config file and the command line set them."""

    min_occupancy: float = 0.25
    coalescing_slack: float = 1.5     # flag when sectors/request > ideal * slack
    min_bank_ways: float = 1.5
    divergence_slack: float = 1.25    # flag a split branch when its warp passes > the fewest * slack
    max_iters: int = 4                # loop iterations sampled per additive loop (x4 for multiplicative)


# how lint.resolve_launch names a block it guessed (no launch, bounds or loop step gave one): messages
# that depend on which thread touches which element say so (KernelContext.block_guessed)
DEFAULT_BLOCK_SOURCE = "the default block size"


@dataclass
class KernelContext:
    program: Program
    kernel: Function
    accesses: KernelAccesses
    launch: models.Launch
    launch_source: str                # where the block shape came from, for messages
    arch: models.Arch
    resources: Resources
    options: Options = field(default_factory=Options)
    param_defaults: dict = field(default_factory=dict)
    launch_smem: int = 0              # dynamic shared memory of the launch, bytes

    @property
    def block_guessed(self) -> bool:
        """Whether the block is the default size (no launch, bounds or loop step gave one)."""
        return self.launch_source.startswith(DEFAULT_BLOCK_SOURCE)

    @lazy
    def points(self) -> models.PointCache:
        """Sampled loop iterations shared by every estimate and divergence check of the kernel."""
        return models.PointCache()

    @lazy
    def _symbol_memo(self) -> dict:
        return {}

    @lazy
    def access_symbols(self) -> list[set[str]]:
        return [models.access_symbols(a, self._symbol_memo) for a in self.accesses.accesses]

    @lazy
    def symbols(self) -> set[str]:
        """Every symbol the kernel's accesses and branches read: all bind the same parameters."""
        needed: set[str] = set().union(*self.access_symbols) if self.access_symbols else set()
        for b in self.accesses.branches:
            needed |= models.access_symbols(b, self._symbol_memo)
        return needed

    @lazy
    def estimates(self) -> list[models.Estimate | None]:
        return models.estimate_many(self.accesses.accesses, self.launch, max_iters=self.options.max_iters,
                                    defaults=self.param_defaults, cache=self.points, needed=self.symbols,
                                    owns=self.access_symbols)

    @lazy
    def unknown_requests(self) -> list[float | None]:
        """Per access: the warp requests per block of a global or shared access whose traffic has
        no estimate (data-dependent address), else None. Only the reward model's features ask."""
        out: list[float | None] = [None] * len(self.accesses.accesses)
        for i, (a, e) in enumerate(zip(self.accesses.accesses, self.estimates)):
            if e is None and a.space in ("global", "shared"):
                try:
                    out[i] = models.warp_requests(a, self.launch, cache=self.points, needed=self.symbols,
                                                  defaults=self.param_defaults, max_iters=self.options.max_iters)
                except Exception:  # noqa: BLE001 - an unevaluable loop or guard: still unknown
                    pass
        return out

    def unbound_template_values(self, access: Access, est: models.Estimate | None) -> tuple[str, ...]:
        """The kernel's template value parameters (`BM` of `template <int BM, int TM>`) that the
        access's address depends on and that nothing in the file gives (no instantiation, launch or
        --arg): they took the default 4096 like any unknown size, which is no tile size, and
        `threadIdx.x / (BN / TN)` or `row * BM` evaluated on it says nothing of the real layout."""
        params = self.kernel.template_params
        if est is None or not est.assumed or not params:
            return ()
        names = [n for n in est.assumed if n in params and params[n] is None]
        if not names:
            return ()
        used = S.symbols(access.address)
        return tuple(n for n in names if n in used)

    def warp_arrivals(self, barrier) -> float:
        """Warps arriving at a barrier per block, over its loops' iterations (models.warp_requests
        on the barrier's loops and guards). Only the reward model's features ask."""
        own = models.access_symbols(barrier, self._symbol_memo)
        # the kernel's set itself where it holds the barrier's symbols (the usual case): the
        # binding, the sampled points and the guard masks the estimates made are reused
        needed = self.symbols if own <= self.symbols else self.symbols | own
        return models.warp_requests(barrier, self.launch, cache=self.points, needed=needed,
                                    defaults=self.param_defaults, max_iters=self.options.max_iters)

    @lazy
    def _divergent_memo(self) -> dict:
        return {}

    def divergent(self, branch) -> bool | None:
        """models.is_divergent for a branch of this kernel; once per branch (DV401 and the reward
        model's features both ask), by identity: the answer depends only on the branch and on what
        the context holds, which does not change."""
        memo = self._divergent_memo
        hit = memo.get(id(branch))
        if hit is not None and hit[0] is branch:
            return hit[1]
        v = models.is_divergent(branch.cond, branch.loops, branch.guards, self.launch, max_iters=self.options.max_iters,
                                cache=self.points, needed=self.symbols, defaults=self.param_defaults)
        memo[id(branch)] = (branch, v)
        return v

    @lazy
    def _passes_memo(self) -> dict:
        return {}

    def warp_passes(self, branch) -> models.BranchPasses | None:
        """models.branch_warp_passes for a branch of this kernel, once per branch (DV401 and DV402
        ask), by identity as `divergent` is."""
        memo = self._passes_memo
        hit = memo.get(id(branch))
        if hit is not None and hit[0] is branch:
            return hit[1]
        v = models.branch_warp_passes(branch.cond, branch.loops, branch.guards, self.launch, cache=self.points,
                                      needed=self.symbols, defaults=self.param_defaults,
                                      max_iters=self.options.max_iters)
        memo[id(branch)] = (branch, v)
        return v

    def estimate_of(self, access: Access) -> models.Estimate | None:
        return self.estimates[self.accesses.accesses.index(access)]

    @lazy
    def static_shared_bytes(self) -> int:
        total = 0
        for arr in [*self.kernel.shared, *self.accesses.helper_shared,
                    *(g for g in self.program.globals_ if g.space == "shared")]:
            if arr.extern:
                continue
            size = 1
            for d, node in itertools.zip_longest(arr.dims, arr.size_nodes):
                if d is None and node is not None:   # a template's size: `float part[BLOCK]`
                    d = count(eval_constant(self.program.text(node), self.accesses.constants))
                size *= d or 0
            total += size * (self.program.type_size(arr.type) or 4)
        return total

    @lazy
    def occupancy(self) -> models.Occupancy:
        smem = self.resources.shared_static if self.resources.measured else self.static_shared_bytes
        dynamic = self.launch_smem
        return models.occupancy(self.arch, self.launch.threads, self.resources.registers, smem + dynamic)

    @property
    def launch_fit(self) -> str:
        """"fits"; "fails" where no block of the launch fits on an SM for its shared memory or ptxas's
        registers (the launch fails: too many resources requested); "would fail" where the static
        register estimate says so (ptxas may allocate fewer)."""
        occ = self.occupancy
        if occ.blocks_per_sm or occ.limiter not in ("registers", "shared memory") or self.launch.threads <= 0:
            return "fits"
        return "fails" if self.resources.measured or occ.limiter == "shared memory" else "would fail"

    def finding(self, rule: "Rule", line: int, col: int, message: str, fix: tuple = (), **estimate) -> Finding:
        return Finding(rule.code, rule.name, rule.severity, message, self.program.path, line, col, self.kernel.name,
                       estimate, fix)


def assumed_text(est: models.Estimate) -> str:
    """` (assuming n=4096, ...)`: the values an estimate took for names nobody gave, for a message."""
    if not est.assumed:
        return ""
    return f" (assuming {', '.join(f'{a}={models.DEFAULT_PARAM_VALUE}' for a in est.assumed)})"


def prepare_estimates(contexts: list[KernelContext]) -> None:
    """Compute the estimates of a file's kernels together: one model call per memory space and
    element size for the file instead of per kernel (the results are the same). A kernel whose
    analysis fails here is left to `KernelContext.estimates`, which fails as it always did."""
    batch = models.EstimateBatch()
    done = []
    for ctx in contexts:
        if "estimates" in ctx.__dict__:
            continue
        try:
            out = batch.add(ctx.accesses.accesses, ctx.launch, max_iters=ctx.options.max_iters,
                            defaults=ctx.param_defaults, cache=ctx.points, needed=ctx.symbols,
                            owns=ctx.access_symbols)
        except RecursionError:
            continue
        done.append((ctx, out))
    try:
        batch.run()
    except RecursionError:
        return
    for ctx, out in done:
        ctx.__dict__["estimates"] = out


@dataclass
class FileContext:
    program: Program
    kernels: list[KernelContext]
    options: Options = field(default_factory=Options)
    launch_problems: list = field(default_factory=list)   # annotations not used (analyzer.annotations)


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    severity: str
    summary: str
    doc: str
    fn: Callable[..., Iterable[Finding]]   # fn(context, rule)
    scope: str = "kernel"             # "kernel" or "file"
    fixable: bool = False             # its findings may carry a fix (`lint --fix`)

    def check(self, ctx) -> Iterable[Finding]:
        return self.fn(ctx, self)

    def explain(self) -> str:
        fix = "\n\nFix\n    `lint --fix` applies it (`lint --diff` shows it)." if self.fixable else ""
        return f"{self.code} {self.name} ({self.severity})\n\n{self.summary}\n\n{self.doc.strip()}{fix}\n"


_REGISTRY: dict[str, Rule] = {}


def node_position(program: Program, node) -> tuple[int, int]:
    """A node's 1-based line and column in the file as written (columns moved back over macro expansions)."""
    line = node.start_point[0] + 1
    return line, program.original_column(line, node.start_point[1] + 1)


def function_name_at(program: Program, at: int) -> str:
    """The name of the function holding byte offset `at`; "" outside any."""
    f = program.function_at(at)
    return f.name if f is not None else ""


def node_edit(program: Program, node, new: str) -> tuple:
    """The fix that replaces a node's text by `new` (an analyzer.fix.Edit), where the node stands on
    one line at a position the file has as written (not moved by the pre-pass, not in a macro's
    expansion); () otherwise."""
    line, col = node.start_point[0] + 1, node.start_point[1] + 1
    if node.end_point[0] != node.start_point[0] or program.original_column(line, col) != col or \
            program.expansion_at(node.start_byte) is not None:
        return ()
    return (Edit(line, col, program.text(node), new),)


def rule(code: str, name: str, severity: str, summary: str, doc: str, scope: str = "kernel", fixable: bool = False):
    """Register a check function as a rule."""
    assert severity in SEVERITIES, severity

    def wrap(fn):
        if code in _REGISTRY:
            raise ValueError(f"duplicate rule code {code}")
        _REGISTRY[code] = Rule(code, name, severity, summary, textwrap.dedent(doc), fn, scope, fixable)
        return fn

    return wrap


_LOADED = False
_SORTED: tuple[int, dict[str, Rule]] = (-1, {})   # the registry in code order, and its size then


def all_rules() -> dict[str, Rule]:
    global _LOADED, _SORTED
    if not _LOADED:
        for info in pkgutil.iter_modules(__path__):
            importlib.import_module(f"{__name__}.{info.name}")
        _LOADED = True
    # sorted again only when a rule was registered since (codes are never removed or replaced)
    if _SORTED[0] != len(_REGISTRY):
        _SORTED = (len(_REGISTRY), dict(sorted(_REGISTRY.items())))
    return dict(_SORTED[1])


def select(codes: dict[str, Rule], select: Iterable[str] | None, ignore: Iterable[str] | None) -> dict[str, Rule]:
    """ruff-style selection: prefixes ('GM' selects GM101..); ignore wins over select."""
    sel = [s.strip().upper() for s in (select or []) if s.strip()]
    ign = [s.strip().upper() for s in (ignore or []) if s.strip()]
    unknown = [p for p in sel + ign if p != "ALL" and not any(c.startswith(p) for c in codes)]
    if unknown:
        raise ValueError(f"unknown rule code or prefix: {', '.join(unknown)}")
    out = {}
    for code, r in codes.items():
        if sel and "ALL" not in sel and not any(code.startswith(p) for p in sel):
            continue
        if any(code.startswith(p) for p in ign) or "ALL" in ign:
            continue
        out[code] = r
    return out
