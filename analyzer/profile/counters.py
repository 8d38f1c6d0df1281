"""Hardware counters through Nsight Compute (ncu), many launches per ncu process.

One ncu process costs seconds to start, so a child process (ncu_child.py)
launches every selected sample once under a single ncu; the CSV rows come back
in launch order and are matched to the child's own log of what it launched,
checking the kernel name, grid and block of each row. Clocks are left alone
(--clock-control none).
"""
from __future__ import annotations

import csv
import io
import math
import os
import pickle
import re
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Any, Iterable

from . import toolkit
from .records import Job

# short name (a store column) -> ncu metric
METRICS: dict[str, str] = {
    "gld_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "gld_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "gst_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "gst_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "shld_bank_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "shst_bank_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "shld_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "shst_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "shld_requests": "smsp__inst_executed_op_shared_ld.sum",
    "shst_requests": "smsp__inst_executed_op_shared_st.sum",
    "achieved_occupancy_pct": "sm__warps_active.avg.pct_of_peak_sustained_active",
    "theoretical_occupancy_pct": "sm__maximum_warps_per_active_cycle_pct",
    "ncu_registers": "launch__registers_per_thread",
    "ncu_static_smem": "launch__shared_mem_per_block_static",
    "ncu_dynamic_smem": "launch__shared_mem_per_block_dynamic",
    "dram_read_bytes": "dram__bytes_read.sum",
    "dram_write_bytes": "dram__bytes_write.sum",
    "ncu_time_ns": "gpu__time_duration.sum",
}
COUNTER_COLUMNS = tuple(METRICS)


@dataclass(frozen=True)
class CounterItem:
    job: Job
    cubin_path: str
    lowered: str
    problem_dir: str


def ncu_command(ncu: str, metrics: Iterable[str], log_file: str, child: list[str]) -> list[str]:
    return [ncu, "--clock-control", "none", "--metrics", ",".join(metrics), "--csv", "--page", "raw",
            "--print-units", "base", "--log-file", log_file, "--target-processes", "all", *child]


def _number(text: str) -> float:
    text = text.strip().replace(",", "")
    if not text or text.lower() in ("n/a", "nan"):
        return math.nan
    try:
        return float(text)
    except ValueError:
        return math.nan


def parse_csv(text: str) -> list[dict[str, str]]:
    """The rows of an `ncu --csv --page raw` log, in launch order (the units row dropped).

    ncu writes its own '==PROF==' lines and the program's output around the
    table, so the table starts at the first line that begins with "ID"."""
    lines = text.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.startswith('"ID"')), None)
    if start is None:
        return []
    rows = list(csv.DictReader(io.StringIO("\n".join(ln for ln in lines[start:] if ln.startswith('"')))))
    rows = [r for r in rows if (r.get("ID") or "").strip().isdigit()]
    rows.sort(key=lambda r: int(r["ID"]))
    return rows


def _dims(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", text or ""))


def _identifier(name: str) -> str:
    """'void reduce<256>(const float *, int)' or 'reduce<256>' or 'reduce' -> 'reduce'."""
    head = name.split("(")[0].split("<")[0].strip()
    return head.split()[-1] if head else ""


def kernel_matches(row: dict[str, str], item: CounterItem) -> bool:
    """Does this CSV row describe this launch? Name (mangled, demangled or bare), grid and block."""
    name = (row.get("Kernel Name") or row.get("Function Name") or "").strip()
    name_ok = name == item.lowered or _identifier(name) in (_identifier(item.job.kernel), item.lowered)
    grid, block = _dims(row.get("Grid Size", "")), _dims(row.get("Block Size", ""))
    shape_ok = (not grid or grid == tuple(item.job.grid)) and (not block or block == tuple(item.job.block))
    return name_ok and shape_ok


def counters_from_row(row: dict[str, str], metrics: dict[str, str] = METRICS) -> dict[str, float]:
    return {short: _number(row[full]) for short, full in metrics.items() if full in row}


def match_rows(rows: list[dict[str, str]], launched: list[CounterItem], lookahead: int = 3) -> dict[str, dict[str, float]]:
    """job id -> counters. Rows and launches are both in launch order. A row that does
    not match its launch is matched to one of the next few launches (ncu left a launch
    out) or else dropped; nothing is assigned without its name, grid and block agreeing."""
    out: dict[str, dict[str, float]] = {}
    j = 0
    for row in rows:
        for k in range(j, min(j + 1 + lookahead, len(launched))):
            if kernel_matches(row, launched[k]):
                out[launched[k].job.id] = counters_from_row(row)
                j = k + 1
                break
    return out


def _read_progress(path: str) -> tuple[list[int], int | None]:
    """(indices launched to completion, index begun but not finished)."""
    done: list[int] = []
    begun: int | None = None
    try:
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 2 and parts[0] == "B":
                    begun = int(parts[1])
                elif len(parts) >= 2 and parts[0] == "E":
                    done.append(int(parts[1]))
                    begun = None
    except OSError:
        pass
    return done, begun


def collect(items: list[CounterItem], timeout_s: float = 600.0, per_launch_s: float = 20.0,
            metrics: dict[str, str] = METRICS, work_dir: str | None = None,
            max_per_process: int = 400, log: Any = None) -> dict[str, dict[str, float]]:
    """Counters for each item (job id -> {short name: value}); items that fail are left out."""
    ncu = toolkit.ncu_path()
    if ncu is None:
        raise toolkit.ToolkitError("ncu (Nsight Compute) not found: set NCU or put it on PATH")
    results: dict[str, dict[str, float]] = {}
    pending = list(items)
    attempts = 0
    metrics = dict(metrics)
    while pending and attempts < 20:
        attempts += 1
        batch, pending = pending[:max_per_process], pending[max_per_process:]
        got, done_idx, stuck, output = _run_one(ncu, batch, metrics, timeout_s, per_launch_s, work_dir, log)
        bad = bad_metrics(output, metrics)
        if not got and bad and len(bad) < len(metrics):
            # this ncu does not know some metric: drop it (said once) and try the batch again
            if log is not None:
                print(f"ncu rejected metrics {sorted(bad)}; measuring without them", file=log)
            metrics = {k: v for k, v in metrics.items() if k not in bad}
            pending = batch + pending
            continue
        results.update(got)
        # relaunch whatever this process did not reach, minus the launch it died on
        last = max(done_idx) if done_idx else -1
        skip = stuck if stuck is not None else None
        rest = [it for i, it in enumerate(batch) if i > last and i != skip]
        if rest and skip is None and not got and not done_idx:
            break  # nothing launched at all: ncu itself fails; retrying would loop
        pending = rest + pending
    return results


def bad_metrics(output: str, metrics: dict[str, str]) -> set[str]:
    """Short names of metrics that ncu's error lines name."""
    errors = [ln for ln in (output or "").splitlines() if "ERROR" in ln or "rror" in ln]
    return {short for short, full in metrics.items() if any(full in ln for ln in errors)}


def _run_one(ncu: str, batch: list[CounterItem], metrics: dict[str, str], timeout_s: float, per_launch_s: float,
             work_dir: str | None, log: Any) -> tuple[dict[str, dict[str, float]], list[int], int | None, str]:
    tmp = tempfile.mkdtemp(prefix="cudaperf-ncu-", dir=work_dir)
    manifest, progress, log_file = (os.path.join(tmp, n) for n in ("manifest.pkl", "progress.txt", "ncu.csv"))
    with open(manifest, "wb") as f:
        pickle.dump(batch, f)
    child = [sys.executable, "-m", "analyzer.profile.ncu_child", manifest, progress]
    cmd = ncu_command(ncu, metrics.values(), log_file, child)
    limit = min(timeout_s, 30.0 + per_launch_s * len(batch))
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
                            env={**os.environ, "PYTHONPATH": _pythonpath()})
    try:
        output, _ = proc.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # ncu and the child: their own session
        output, _ = proc.communicate()
    done, begun = _read_progress(progress)
    text = ""
    if os.path.isfile(log_file):
        with open(log_file, errors="replace") as f:
            text = f.read()
    rows = parse_csv(text)
    launched = [batch[i] for i in done]
    got = match_rows(rows, launched)
    if log is not None:
        print(f"ncu: {len(got)}/{len(batch)} launches with counters in {time.perf_counter() - t0:.1f} s"
              + (f"; stopped at launch {begun}" if begun is not None else ""), file=log)
        if not got:
            print("ncu output tail: " + " | ".join((output or "").strip().splitlines()[-5:]), file=log)
    import shutil

    save = os.environ.get("CUDAPERF_NCU_SAVE")  # keep raw logs (test fixtures, debugging)
    if save:
        os.makedirs(save, exist_ok=True)
        for name in ("ncu.csv", "progress.txt"):
            if os.path.isfile(os.path.join(tmp, name)):
                shutil.copy(os.path.join(tmp, name), os.path.join(save, f"{os.path.basename(tmp)}-{name}"))
        with open(os.path.join(save, f"{os.path.basename(tmp)}-output.txt"), "w") as f:
            f.write(output or "")
    shutil.rmtree(tmp, ignore_errors=True)
    return got, done, begun, output or ""


def _pythonpath() -> str:
    """The child must import this package the same way the parent did."""
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    rest = os.environ.get("PYTHONPATH", "")
    return here + (os.pathsep + rest if rest else "")


def check_metrics(query_output: str, metrics: dict[str, str] = METRICS) -> dict[str, bool]:
    """Which metrics' base names `ncu --query-metrics` lists (launch__* are not always listed)."""
    names = {ln.split()[0] for ln in query_output.splitlines() if ln.strip() and "__" in ln.split()[0]}
    return {short: full.split(".")[0] in names for short, full in metrics.items()}


def _main(argv: list[str]) -> int:
    if argv[:1] != ["--check"]:
        print("usage: python -m analyzer.profile.counters --check", file=sys.stderr)
        return 2
    ncu = toolkit.ncu_path()
    if ncu is None:
        print("error: ncu not found", file=sys.stderr)
        return 2
    out = subprocess.run([ncu, "--query-metrics"], capture_output=True, text=True, timeout=120)
    for short, ok in check_metrics(out.stdout).items():
        print(f"{'listed ' if ok else 'MISSING'} {short:28s} {METRICS[short]}")
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
