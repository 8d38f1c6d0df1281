"""Tests for corpus.handwritten: specs, launches, problems and references."""
from __future__ import annotations

import math
import re
import shutil
import subprocess
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from analyzer.profile.spec import Buffer, Scalar, bf16_to_f32, f32_to_bf16, resolve
from corpus.handwritten import GROUPS, KERNEL_DIR, KERNELS, samples, source
from corpus.handwritten import problems as P
from corpus.handwritten.spec import Size

SAMPLES = samples()
NP_DTYPE = {"float32": np.float32, "float16": np.float16, "bfloat16": np.uint16, "int32": np.int32,
            "uint32": np.uint32, "uint8": np.uint8}


# ---------------------------------------------------------------- catalogue


def test_every_cu_file_has_a_spec_and_every_spec_a_file():
    files = {p.stem for p in KERNEL_DIR.glob("*.cu")}
    specs = [k.file for k in KERNELS]
    assert len(specs) == len(set(specs)), "a .cu file is listed twice"
    assert set(specs) == files


def test_enough_kernels_groups_and_samples():
    assert len(KERNELS) >= 60
    per_group = Counter(k.family for k in KERNELS)
    assert set(per_group) == set(GROUPS)
    assert all(n >= 3 for n in per_group.values()), per_group
    assert 200 <= len(SAMPLES) <= 450


def test_one_baseline_kernel_per_group():
    baselines = Counter(k.family for k in KERNELS if k.baseline)
    assert baselines == Counter({g: 1 for g in GROUPS})


def test_families_are_prefixed_and_samples_marked_handwritten():
    for s in SAMPLES:
        assert s.family.startswith("hw_")
        assert s.origin == "handwritten"
        assert s.style


def test_sample_ids_unique_and_variants_unique_per_task():
    assert len({s.sample_id for s in SAMPLES}) == len(SAMPLES)
    per_task = Counter((s.family, s.size, s.variant) for s in SAMPLES)
    assert max(per_task.values()) == 1


def test_every_group_runs_every_kernel_at_three_sizes_with_shared_kwargs():
    sizes = defaultdict(set)
    kwargs = defaultdict(set)
    for s in SAMPLES:
        sizes[(s.family, s.params["file"])].add(s.size)
        kwargs[(s.family, s.size)].add(tuple(sorted(s.problem_kwargs.items())))
    assert all(len(v) >= 3 for v in sizes.values())
    assert all(len(v) == 1 for v in kwargs.values()), "variants of one size must share problem_kwargs"


def test_styles_cover_the_brief():
    tags = Counter(t for k in KERNELS for t in k.tags)
    for wanted in ("template", "macro", "device_helper", "coop_groups", "warp_shuffle", "half_vector",
                   "bf16_vector", "float4", "int4_vector", "grid_stride", "dynamic_smem", "restrict",
                   "unroll", "ldg", "launch_bounds", "aos", "soa", "naive", "uncoalesced",
                   "bank_conflict", "divergent"):
        assert tags[wanted] >= 2, wanted
    for k in KERNELS:
        assert k.style in k.tags, k.file


# ---------------------------------------------------------------- sources


@pytest.mark.parametrize("spec", KERNELS, ids=lambda k: k.file)
def test_source_rules(spec):
    src = source(spec.file)
    includes = re.findall(r"#include\s*<([^>]+)>", src)
    assert set(includes) <= {"cuda_fp16.h", "cuda_bf16.h", "cooperative_groups.h", "cooperative_groups/reduce.h",
                             "mma.h"}
    assert "printf" not in src and "cuda/std" not in src
    names = {s.kernel for s in SAMPLES if s.params["file"] == f"{spec.file}.cu"}
    for name in names:
        if "<" in name:  # a template: the file must instantiate exactly this expression
            base, targs = name.split("<", 1)
            targs = re.escape(targs.rstrip(">")).replace(",", r"\s*,\s*")
            pattern = rf"template\s+__global__\s+void\s+{base}\s*<\s*{targs}\s*>"
            assert re.search(pattern, src), f"{spec.file}: no explicit instantiation of {name}"
        else:
            assert re.search(rf'extern\s+"C"\s+__global__\s+void\s+(__launch_bounds__\([^)]*\)\s+)?{name}\s*\(',
                             src), f"{spec.file}: no extern \"C\" kernel {name}"


def test_launch_bounds_and_fixed_block_macros_match_blocks():
    for k in KERNELS:
        src = source(k.file)
        m = re.search(r"__launch_bounds__\((\d+)\)", src)
        if m:
            assert all(b[0] * b[1] * b[2] <= int(m.group(1)) for b in k.blocks), k.file
        # kernels written for one fixed block size say so with a BLOCK macro
        m = re.search(r"#define BLOCK (\d+)", src)
        if m and "blockDim" not in src.split("#define BLOCK")[1].split("{", 1)[1]:
            assert all(b == (int(m.group(1)), 1, 1) for b in k.blocks), k.file


# ---------------------------------------------------------------- launches


def _sizes(kw):
    return {k: v for k, v in kw.items() if k != "seed"}


def _work(s) -> tuple[int, int]:
    """(items the grid must cover, items one thread covers) from the kernel's decomposition."""
    kw = _sizes(s.problem_kwargs)
    f = s.params["file"]
    per = {"gelu_chunked.cu": 16, "stencil1d_dyn_smem.cu": 4, "stencil1d_regs.cu": 4}.get(f, 1)
    if "items" in s.params:
        per = s.params["items"]
    vec = {"gelu_vec4.cu": 4, "particles_soa_float4.cu": 4, "axpy_half2.cu": 2, "bias_relu_bf162.cu": 2,
           "embedding_vec8.cu": 8, "swiglu_bf162.cu": 2}.get(f, 1)
    if f in ("particles_aos_shfl.cu",):
        return 8 * kw["n"], 1
    if "n" in kw:
        return kw["n"], per * vec
    if f.startswith("colsum"):
        return kw["cols"], 1
    if f.startswith("embedding"):
        return kw["tokens"] * kw["dim"], vec
    if f.startswith("swiglu"):
        return kw["rows"] * kw["d"], vec
    if f.startswith("bias_relu"):
        return kw["rows"] * kw["cols"], vec
    return kw["rows"], 1


GRID_STRIDE = {"gelu_kernel_loop.cu", "dot_grid_stride_shfl.cu", "dot_cg.cu", "dot_vec4.cu", "bias_relu_bf16_vec8.cu",
               "particles_soa_view.cu", "axpy_half_vec8.cu", "axpy_half_blocked.cu", "hist_shared.cu",
               "hist_shared_vec16.cu", "hist_per_warp.cu", "embedding_warp_gridstride.cu", "swiglu_fast.cu"}
BLOCK_PER_ROW = {"rowsum_smem_tree.cu", "rowsum_interleaved.cu", "rowsum_vec4.cu", "rmsnorm_block_smem.cu",
                 "rmsnorm_cg.cu", "rmsnorm_vec8.cu", "argmax_block_smem.cu", "argmax_vec4.cu", "softmax_block.cu",
                 "softmax_cg.cu", "softmax_smem_row.cu", "gemv_block_vec4.cu", "embedding_block_per_token.cu"}
ROW_GROUP = {"rowsum_warp_shfl.cu": 32, "rowsum_cg.cu": 32, "rmsnorm_warp_half2.cu": 32, "argmax_warp_shfl.cu": 32,
             "argmax_tile16.cu": 16, "softmax_warp_online.cu": 32, "gemv_warp_per_row.cu": 32,
             "gemv_cg_multirow.cu": 8}  # 4 rows per 32-thread tile = one row per 8 threads


HGEMM_TILES = {"hgemm_wmma_warp.cu": (16, 64), "hgemm_wmma_smem.cu": (64, 64), "hgemm_wmma_t.cu": (128, 128)}


@pytest.mark.parametrize("s", SAMPLES, ids=lambda s: f"{s.family}-{s.variant}-{s.size}")
def test_launch_is_valid_and_covers_the_problem(s):
    threads = s.threads_per_block
    assert 32 <= threads <= 1024 and threads % 32 == 0
    assert s.block[0] <= 1024 and s.block[1] <= 1024 and s.block[2] <= 64
    assert 1 <= s.grid[0] < 2**31 and 1 <= s.grid[1] <= 65535 and 1 <= s.grid[2] <= 65535
    assert 0 <= s.smem <= 48 * 1024  # no kernel here asks for the opt-in carve-out
    static = sum(math.prod(map(int, dims)) * 4 for dims in
                 [re.findall(r"\[(\d+)\]", m) for m in re.findall(r"__shared__\s+\w+\s+\w+((?:\[\d+\])+)", s.source)])
    assert static + s.smem <= 48 * 1024
    f = s.params["file"]
    kw = _sizes(s.problem_kwargs)
    total_threads = s.grid[0] * s.grid[1] * s.grid[2] * threads
    if f in GRID_STRIDE:
        return  # any grid covers the data; just not absurdly oversized
    if f in BLOCK_PER_ROW:
        rows = kw.get("rows", kw.get("tokens"))
        assert s.grid == (rows, 1, 1)
    elif f in ROW_GROUP:
        assert s.grid[0] * threads // ROW_GROUP[f] >= kw["rows"]
        assert (s.grid[0] - 1) * threads // ROW_GROUP[f] < kw["rows"]
    elif f.startswith("colsum") and f != "colsum_thread_per_col.cu":
        cols_per_x = 4 * s.block[0] if "vec4" in f else (32 if s.block[0] == 32 and s.block[1] > 1 else s.block[0])
        assert s.grid[0] * cols_per_x >= kw["cols"]
        if "split_rows" in f or "vec4" in f:
            assert s.grid[1] <= kw["rows"]
        else:
            assert s.grid[1] * 256 >= kw["rows"]
    elif f == "bias_relu_bf16_rowfast.cu":
        assert s.grid[0] * s.block[0] >= kw["rows"] and s.grid[1] * s.block[1] >= kw["cols"]
    elif f == "bias_relu_bf16_tiled.cu":
        assert s.grid[0] * s.block[0] >= kw["cols"] and s.grid[1] * s.params["rows_per"] >= kw["rows"]
    elif f == "swiglu_vec8.cu":
        assert s.grid[1] == kw["rows"] and s.grid[0] * s.block[0] * 8 >= kw["d"]
    elif f.startswith("hgemm"):     # a block's tile of C: (rows, cols)
        rows, cols = HGEMM_TILES.get(f, (s.block[1], s.block[0]))
        assert s.grid[0] * cols >= kw["n"] and (s.grid[0] - 1) * cols < kw["n"]
        assert s.grid[1] * rows >= kw["m"] and (s.grid[1] - 1) * rows < kw["m"]
    else:
        items, per_thread = _work(s)
        assert total_threads * per_thread >= items, "grid does not cover the problem"
        assert (total_threads - threads) * per_thread < items, "a whole block would be idle"


def test_template_parameters_fit_the_sizes():
    for s in SAMPLES:
        kw = s.problem_kwargs
        if s.params["file"] == "rmsnorm_vec8.cu":
            assert kw["cols"] % 8 == 0 and kw["cols"] <= s.block[0] * 8 * s.params["iters"]
        if s.params["file"] in ("rowsum_smem_tree.cu", "rmsnorm_cg.cu", "softmax_block.cu", "dot_vec4.cu",
                                "gemv_block_vec4.cu", "swiglu_vec8.cu", "bias_relu_bf16_tiled.cu"):
            assert f"<{s.block[0]}" in s.kernel  # BLOCK template argument equals the launched block
        if s.params["file"] in ("gelu_unroll.cu", "particles_soa_ilp.cu", "axpy_half_tiled.cu", "stencil1d_smem.cu"):
            assert re.search(rf"[<,]{s.block[0]},", s.kernel)


def test_vector_kernels_get_aligned_sizes():
    for s in SAMPLES:
        kw = s.problem_kwargs
        tags = s.params["tags"]
        if "float4" in tags or "int4_vector" in tags:
            for k in ("cols", "dim", "d"):
                if k in kw:
                    assert kw[k] % 8 == 0
        if "n" in kw:
            assert kw["n"] % 16 == 0


def test_power_of_two_tree_reductions_get_power_of_two_blocks():
    for s in SAMPLES:
        if s.params["file"] in ("rowsum_interleaved.cu", "dot_strided_index.cu", "rmsnorm_block_smem.cu"):
            assert s.block[0] & (s.block[0] - 1) == 0


# ---------------------------------------------------------------- problems


def _tiny(group) -> dict:
    base = dict(group.sizes[0].kwargs)
    shrink = {"rows": 5, "cols": 24, "n": 1000, "tokens": 7, "dim": 16, "vocab": 11, "d": 16, "m": 32, "k": 48}
    return {k: shrink[k] for k in base} | {"seed": 3}


@pytest.mark.parametrize("family", sorted(GROUPS))
def test_problem_matches_buffers(family):
    group = GROUPS[family]
    kw = _tiny(group)
    prob = resolve(f"corpus.handwritten.problems:{group.problem}")(**kw)
    again = resolve(f"corpus.handwritten.problems:{group.problem}")(**kw)
    args = group.args(kw)
    bufs = [a for a in args if isinstance(a, Buffer)]
    ins = {b.name for b in bufs if b.role in ("in", "inout")}
    outs = {b.name for b in bufs if b.role in ("out", "inout", "zero")}
    assert set(prob.inputs) == ins and set(prob.expected) == outs
    for b in bufs:
        arr = prob.inputs.get(b.name, prob.expected.get(b.name))
        assert arr.ndim == 1 and arr.size == b.size and arr.dtype == NP_DTYPE[b.dtype], b.name
    for name, arr in prob.inputs.items():
        assert np.array_equal(arr, again.inputs[name]), "problem() must be deterministic"
        assert np.any(arr != 0)
    for name, arr in prob.expected.items():
        vals = bf16_to_f32(arr) if arr.dtype == np.uint16 else arr
        assert np.all(np.isfinite(vals.astype(np.float64)))
    for a in args:
        if isinstance(a, Scalar) and a.name in kw:
            assert a.value == kw[a.name]


def _f(x):
    return [float(v) for v in (bf16_to_f32(x) if x.dtype == np.uint16 else x)]


def test_rowsum_colsum_gemv_references():
    p = P.rowsum(rows=3, cols=5, seed=1)
    x = _f(p.inputs["x"])
    assert np.allclose(p.expected["y"], [sum(x[r * 5:(r + 1) * 5]) for r in range(3)], rtol=1e-6)
    p = P.colsum(rows=3, cols=5, seed=1)
    x = _f(p.inputs["x"])
    assert np.allclose(p.expected["y"], [sum(x[r * 5 + c] for r in range(3)) for c in range(5)], rtol=1e-6)
    p = P.gemv(rows=3, cols=4, seed=1)
    a, v = _f(p.inputs["A"]), _f(p.inputs["x"])
    assert np.allclose(p.expected["y"], [sum(a[r * 4 + c] * v[c] for c in range(4)) for r in range(3)], rtol=1e-6)


def test_argmax_reference_takes_first_maximum():
    p = P.argmax(rows=4, cols=9, seed=2)
    x = _f(p.inputs["x"])
    for r in range(4):
        row = x[r * 9:(r + 1) * 9]
        assert p.expected["idx"][r] == row.index(max(row))


def test_softmax_reference():
    p = P.softmax(rows=2, cols=6, seed=2)
    x = _f(p.inputs["x"])
    for r in range(2):
        row = x[r * 6:(r + 1) * 6]
        m = max(row)
        e = [math.exp(v - m) for v in row]
        assert np.allclose(p.expected["y"][r * 6:(r + 1) * 6], [v / sum(e) for v in e], rtol=1e-5)


def test_gelu_dot_stencil_references():
    p = P.gelu(n=50, seed=4)
    x = _f(p.inputs["x"])
    want = [0.5 * v * (1 + math.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3))) for v in x]
    assert np.allclose(p.expected["y"], want, rtol=1e-5, atol=1e-6)
    p = P.dot(n=40, seed=4)
    assert math.isclose(p.expected["out"][0], sum(a * b for a, b in zip(_f(p.inputs["x"]), _f(p.inputs["y"]))),
                        rel_tol=1e-6)
    p = P.stencil1d(n=20, seed=4)
    x = _f(p.inputs["x"])
    w = [0.05, 0.1, 0.2, 0.3, 0.2, 0.1, 0.05]
    want = [x[i] if i < 3 or i >= 17 else sum(w[k] * x[i - 3 + k] for k in range(7)) for i in range(20)]
    assert np.allclose(p.expected["y"], want, rtol=1e-6, atol=1e-7)


def test_histogram_reference():
    p = P.histogram256(n=3000, seed=5)
    counts = [0] * 256
    for b in p.inputs["data"].tolist():
        counts[b] += 1
    assert p.expected["hist"].tolist() == counts


def _particle_step(f):
    x, y, z, vx, vy, vz, m, q = f
    qm = q / m
    vx += 0.01 * qm * 0.5
    vy += 0.01 * qm * -0.25
    vz += 0.01 * (qm * 1.0 - 9.81)
    return [x + 0.01 * vx, y + 0.01 * vy, z + 0.01 * vz, vx, vy, vz, m, q]


def test_particle_references_agree_with_each_other_and_by_hand():
    n = 6
    aos, soa = P.particles_aos(n=n, seed=6), P.particles_soa(n=n, seed=6)
    a_in, s_in = _f(aos.inputs["p_in"]), _f(soa.inputs["soa_in"])
    for i in range(n):
        fields = a_in[8 * i:8 * i + 8]
        assert fields == [s_in[f * n + i] for f in range(8)], "both layouts hold the same particles"
        want = _particle_step(fields)
        assert np.allclose(aos.expected["p_out"][8 * i:8 * i + 8], want, rtol=1e-6)
        assert np.allclose([soa.expected["soa_out"][f * n + i] for f in range(6)], want[:6], rtol=1e-6)


def test_half_references():
    p = P.rmsnorm_half(rows=2, cols=8, seed=7)
    x, w = _f(p.inputs["x"]), _f(p.inputs["w"])
    for r in range(2):
        row = x[r * 8:(r + 1) * 8]
        inv = 1 / math.sqrt(sum(v * v for v in row) / 8 + 1e-5)
        assert np.allclose(p.expected["y"][r * 8:(r + 1) * 8].astype(np.float64),
                           [v * inv * g for v, g in zip(row, w)], rtol=1e-3, atol=1e-3)
    p = P.axpy_half(n=64, seed=7)
    want = np.array([1.5 * a + b for a, b in zip(_f(p.inputs["x"]), _f(p.inputs["y"]))]).astype(np.float16)
    assert np.array_equal(p.expected["out"], want)


def test_hgemm_reference():
    p = resolve("corpus.handwritten.problems:hgemm")(m=24, n=40, k=56, seed=3)
    a = p.inputs["A"].astype(np.float64).reshape(24, 56)
    b = p.inputs["B"].astype(np.float64).reshape(56, 40)
    assert p.inputs["A"].dtype == np.float16 and p.expected["C"].dtype == np.float32
    np.testing.assert_allclose(p.expected["C"].reshape(24, 40), a @ b, rtol=1e-5, atol=1e-5)


def test_bf16_references():
    p = P.bias_relu_bf16(rows=3, cols=4, seed=8)
    x, b = _f(p.inputs["x"]), _f(p.inputs["bias"])
    want = [max(x[i] + b[i % 4], 0.0) for i in range(12)]
    assert np.allclose(_f(p.expected["y"]), want, rtol=8e-3, atol=1e-6)
    p = P.embedding_bf16(tokens=5, dim=4, vocab=9, seed=8)
    t = p.inputs["table"].tolist()
    want = [t[i * 4 + d] for i in p.inputs["ids"].tolist() for d in range(4)]
    assert p.expected["out"].tolist() == want
    assert p.inputs["ids"].min() >= 0 and p.inputs["ids"].max() < 9
    p = P.swiglu_bf16(rows=2, d=4, seed=8)
    x = _f(p.inputs["x"])
    want = [x[r * 8 + c] / (1 + math.exp(-x[r * 8 + c])) * x[r * 8 + 4 + c] for r in range(2) for c in range(4)]
    assert np.allclose(_f(p.expected["out"]), want, rtol=8e-3, atol=1e-6)


def test_bf16_helpers_round_trip():
    v = np.array([1.0, -2.5, 0.15625], dtype=np.float32)
    assert np.array_equal(bf16_to_f32(f32_to_bf16(v)), v)


def test_tolerances_reject_an_off_by_one_kernel():
    """A kernel that reads its neighbour's element must fail the check."""
    for family in ("hw_rowsum", "hw_gelu", "hw_rmsnorm", "hw_bias_relu_bf16", "hw_stencil1d"):
        group = GROUPS[family]
        kw = _tiny(group)
        prob = resolve(f"corpus.handwritten.problems:{group.problem}")(**kw)
        (name, exp), = prob.expected.items()
        e = (bf16_to_f32(exp) if exp.dtype == np.uint16 else exp).astype(np.float64)
        shifted = np.roll(e, 1)
        ok = np.abs(shifted - e) <= group.atol(kw) + group.rtol * np.abs(e)
        assert not ok.all(), family


def test_sizes_are_labelled_consistently():
    for g in GROUPS.values():
        assert len(g.sizes) >= 3 and len({s.label for s in g.sizes}) == len(g.sizes)
        assert all(isinstance(s, Size) for s in g.sizes)
        bytes_ = [g.bytes(s.kwargs) for s in g.sizes]
        assert bytes_ == sorted(bytes_) and bytes_[0] <= 20 * 2**20, g.family
        # from L2-resident to DRAM-bound; the histogram is atomic-bound instead, and its
        # naive global-atomic kernel already takes ~35 ms at 128M bytes on an H200
        assert bytes_[-1] >= (128 if g.family == "hw_histogram256" else 380) * 2**20, g.family


# ---------------------------------------------------------------- compile


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")
def test_a_spread_of_kernels_compiles_with_nvcc():
    # one kernel per style, then the group baselines: about fifteen compiles
    chosen: dict[str, str] = {}
    for k in KERNELS:
        chosen.setdefault(k.style, k.file)
    files = sorted(set(chosen.values()))[:15]

    def compile_one(f):
        r = subprocess.run(["nvcc", "-cubin", "-arch=sm_90", "-o", "/dev/null", str(KERNEL_DIR / f"{f}.cu")],
                           capture_output=True, text=True)
        return f, r.returncode, r.stderr

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(compile_one, files))
    failed = [(f, err) for f, rc, err in results if rc != 0]
    assert not failed, failed
    assert len(files) >= 12


@pytest.mark.slow
def test_every_kernel_compiles_with_nvrtc_and_names_resolve():
    pytest.importorskip("cuda.bindings.nvrtc")
    from corpus.handwritten.check import names_by_file, nvrtc_compile
    failed = {}
    for file, names in names_by_file().items():
        log = nvrtc_compile(source(file[:-3]), file, names)
        if log:
            failed[file] = log[:500]
    assert not failed, failed


# ---------------------------------------------------------------- GPU


def _gpu_available() -> bool:
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # no CuPy, no driver, no device
        return False


@pytest.mark.gpu
@pytest.mark.slow
@pytest.mark.skipif(not _gpu_available(), reason="needs CuPy and an NVIDIA GPU")
def test_every_kernel_is_correct_on_the_gpu_at_its_smallest_size():
    from corpus.handwritten.check import run_gpu
    first = {}
    for s in SAMPLES:
        first.setdefault(s.family, s.size)
    chosen = sorted((s for s in SAMPLES if s.size == first[s.family]), key=lambda s: (s.family, s.size))
    assert run_gpu(chosen, reps=1) == 0
