"""bench/realistic_files.py builds lint-speed files shaped like public CUDA files: kernels in the
public files' proportions, each launched by host code with its sample's grid and block."""
import collections
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import realistic_files  # noqa: E402

from analyzer.lint import lint_source  # noqa: E402
from analyzer.parse import parse  # noqa: E402
from corpus.families import all_samples  # noqa: E402


def test_kernel_counts_follow_the_public_files():
    recorded = collections.Counter()
    for name in ("real_code.json", "real_code_2.json", "real_code_3.json"):
        for f in json.loads((ROOT / "bench" / "results" / name).read_text())["per_file"]:
            if 100 <= f["lines"] <= 200:
                recorded[f["kernels"]] += 1
    assert dict(recorded) == realistic_files.REAL_KERNELS_PER_FILE
    counts = realistic_files.kernel_counts(sum(recorded.values()))
    assert collections.Counter(counts) == recorded


def test_each_kernel_is_launched_as_its_sample_is():
    samples = [s for s in all_samples() if s.family in ("elementwise", "layernorm", "hw_gemv", "transpose")][::7]
    files = realistic_files.build(samples, 12)
    used = 0
    for text, count in zip(files, realistic_files.kernel_counts(12)):
        prog = parse(text, "f.cu")
        assert not prog.errors
        assert len(prog.launches) == count
        for launch in prog.launches:
            s = samples[used % len(samples)]
            used += 1
            assert launch.kernel == s.kernel.split("<")[0]
            assert launch.grid == s.grid and launch.block == s.block
        result = lint_source(text, "f.cu")
        assert {k.name for k in result.kernels} >= {lc.kernel for lc in prog.launches}
