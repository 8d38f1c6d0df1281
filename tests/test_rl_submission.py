"""rl.submission: replies -> candidates. The key property: a corpus variant resubmitted as a reply
(its source plus a launch line) is that very corpus sample (same sample_id), so a replay oracle
can answer it."""
from __future__ import annotations

import re

import pytest

from rl.submission import (SubmissionError, extract_code, kernels, launch_line, parse_launch, parse_submission,
                           resolve_kernel, split_launch, task_prompt)
from rl.tasks import get

KERNEL = ('extern "C" __global__ void add(const float* x, float* y, int n)\n'
          "{ int i = threadIdx.x; if (i < n) y[i] = x[i]; }\n")
SCALARS = {"n": 1000, "rows": 4096, "cols": 3000, "eps": 1e-5}
DTYPES = {"n": "int32", "rows": "int32", "cols": "int32", "eps": "float32"}


def fenced(code: str, lang: str = "cuda") -> str:
    return f"```{lang}\n{code}```"


def reply(sample, line: str | None = None, at_end: bool = False) -> str:
    line = line or launch_line(sample)
    code = sample.source + line + "\n" if at_end else line + "\n" + sample.source
    return "Here is a faster kernel.\n\n" + fenced(code) + "\nIt should be faster because ...\n"


# ------------------------------------------------------------------ extract_code

@pytest.mark.parametrize("lang", ["cuda", "cu", "cpp", "c++", "CUDA", "c"])
def test_extract_code_takes_a_fenced_block_of_each_code_language(lang):
    assert extract_code(f"text\n```{lang}\n{KERNEL}```\nmore text") == KERNEL


def test_extract_code_last_code_block_wins_and_other_languages_are_ignored():
    text = f"first try:\n```cuda\n// old\n{KERNEL}```\nbetter:\n```cpp\n// new\n{KERNEL}```\n```python\nprint(1)\n```\n"
    assert extract_code(text) == "// new\n" + KERNEL


def test_extract_code_unlabelled_block_with_a_kernel_and_unfenced_reply():
    assert extract_code(f"```\n{KERNEL}```") == KERNEL
    assert extract_code(KERNEL) == KERNEL
    # an unlabelled block without a kernel is not code for us
    with pytest.raises(SubmissionError, match="no CUDA code block"):
        extract_code("```\nsome text\n```\nand __global__ in prose")


def test_extract_code_skips_reasoning_and_accepts_a_fence_opened_after_prose():
    text = f"<think>maybe ```cuda\nbad\n``` no</think>Answer: ```cuda\n{KERNEL}```"
    assert extract_code(text) == KERNEL
    assert extract_code(f"```cuda\r\n{KERNEL.rstrip()}\r\n```\r\n") == KERNEL


@pytest.mark.parametrize("text, msg", [
    ("I would use shared memory.", "no CUDA code block"),
    ("```python\nprint('__global__')\n```", "no CUDA code block"),
    ("", "no CUDA code block"),
    (f"```cuda\n{KERNEL}", "never closed"),
])
def test_extract_code_errors(text, msg):
    with pytest.raises(SubmissionError, match=msg):
        extract_code(text)


# ------------------------------------------------------------------ the launch line

def test_split_launch_removes_the_line_wherever_it_is():
    spec_a, code_a = split_launch("// launch: grid=(4) block=(256)\n" + KERNEL)
    spec_b, code_b = split_launch("\n\n" + KERNEL + "   // Launch : grid=(4) block=(256)\n\n")
    assert code_a == code_b == KERNEL
    assert spec_a == spec_b == "grid=(4) block=(256)"
    with pytest.raises(SubmissionError, match="no `// launch:` line"):
        split_launch(KERNEL)
    with pytest.raises(SubmissionError, match="2 `// launch:` lines"):
        split_launch("// launch: grid=1 block=1\n// launch: grid=2 block=1\n" + KERNEL)


@pytest.mark.parametrize("spec, grid, block, smem", [
    ("grid=(4, 2, 1) block=(32, 8, 1)", (4, 2, 1), (32, 8, 1), 0),
    ("grid=(cdiv(cols, 32), cdiv(rows, 8)) block=(32, 8)", (94, 512, 1), (32, 8, 1), 0),
    ("grid=cdiv(n, 256) block=256", (4, 1, 1), (256, 1, 1), 0),
    ("grid=dim3(ceil_div(n,128)) block=dim3(128)", (8, 1, 1), (128, 1, 1), 0),
    ("grid=((n + 255) / 256) block=(256) smem=256 * 4", (4, 1, 1), (256, 1, 1), 1024),
    ("grid=(min(n // 7, 132 * 4)) block=(1 << 8) smem=(n % 7) * 2", (142, 1, 1), (256, 1, 1), 12),
    ("grid=(n // 256) block=256 // floor division inside parentheses, a comment outside", (3, 1, 1), (256, 1, 1), 0),
    ("grid=(max(1, -7 / 2 + 5)) block=(rows >> 4)", (2, 1, 1), (256, 1, 1), 0),   # / truncates as in C
    ("grid=(cdiv(cols, 32), cdiv(rows, 8)), block=(32, 8), smem = 0  // one thread per element",
     (94, 512, 1), (32, 8, 1), 0),
    ("// launch: grid=(1) block=(1)", (1, 1, 1), (1, 1, 1), 0),
])
def test_parse_launch_evaluates_expressions(spec, grid, block, smem):
    got = parse_launch(spec, SCALARS, DTYPES)
    assert (got.grid, got.block, got.smem, got.kernel) == (grid, block, smem, None)


def test_parse_launch_kernel_names():
    assert parse_launch("kernel=add grid=1 block=1", SCALARS).kernel == "add"
    assert parse_launch("kernel=reduce< 256 > grid=1 block=1", SCALARS).kernel == "reduce<256>"


@pytest.mark.parametrize("spec, msg", [
    ("grid=(cdiv(m, 32)) block=(32)", r"grid x: unknown name 'm' \(known: n, rows, cols\)"),
    ("grid=(cdiv(n, 32) * eps) block=(32)", "eps is a float32 scalar"),
    ("grid=(n / 2.5) block=(32)", "only integer literals"),
    ("grid=(2 ** 10) block=(32)", "is not integer arithmetic"),
    ("grid=(__import__('os').getpid()) block=(32)", "unknown function"),
    ("grid=((lambda: 1)()) block=(32)", "unknown function"),
    ("grid=(n.bit_length()) block=(32)", "unknown function"),
    ("grid=(cdiv(n)) block=(32)", r"cdiv\(\) takes 2 arguments"),
    ("grid=(cdiv(n, b=2)) block=(32)", "positional"),
    ("grid=(n // 0) block=(32)", "division by zero"),
    ("grid=(cdiv(n, 0)) block=(32)", "division by zero"),
    ("grid=(n +) block=(32)", "cannot read"),
    ("grid=(1, 2, 3, 4) block=(32)", "4 components"),
    ("grid=() block=(32)", "0 components"),
    ("grid=(1) block=(64, 32)", "2048 threads; at most 1024"),
    ("grid=(1) block=(1, 1, 128)", "block z = 128 is over the limit of 64"),
    ("grid=(1) block=(2048)", "block x = 2048 is over the limit of 1024"),
    ("grid=(1, rows * cols) block=(32)", "grid y = 12288000 is over the limit of 65535"),
    ("grid=(1 << 31) block=(32)", "grid x = 2147483648 is over the limit"),
    ("grid=(n - 1000) block=(32)", "grid x = 0: every grid dimension must be at least 1"),
    ("grid=(1) block=(0)", "block x = 0"),
    ("grid=(1) block=(32) smem=-4", "cannot be negative"),
    ("grid=(1) block=(32) smem=1 << 20", "over the 232448-byte limit"),
    ("grid=(1) block=(32) shmem=0", "unknown launch key 'shmem'"),
    ("grid=(1) grid=(2) block=(32)", "grid= is given twice"),
    ("block=(32)", "no grid="),
    ("grid=(1)", "no block="),
    ("grid=(1) block=", "block= has no value"),
    ("use 256 threads", "cannot read the launch line"),
    ("256 threads grid=(1) block=(32)", "cannot read '256 threads'"),
    ("kernel=add() grid=(1) block=(32)", "is not a kernel name"),
    ("grid=(" + "1+" * 200 + "1) block=(32)", "longer than 300"),
    ("grid=(" + "n*" * 30 + "n) block=(32)", "too large"),
])
def test_parse_launch_errors_are_one_line_and_say_what(spec, msg):
    with pytest.raises(SubmissionError, match=msg) as err:
        parse_launch(spec, SCALARS, DTYPES)
    assert "\n" not in str(err.value)


# ------------------------------------------------------------------ kernels in the code

def test_kernels_sees_linkage_templates_and_ignores_comments_and_strings():
    code = '''
    // __global__ void in_a_comment(int x)
    /* extern "C" __global__ void in_a_block_comment() */
    #define K __global__ void in_a_macro()
    extern "C" {
    __global__ void __launch_bounds__(256, 2) inside_block(float* a, int n) { printf("__global__ void s()"); }
    }
    extern "C" __global__ void plain_c(float* a) {}
    __global__ void cpp_linkage(float* a, int n, int m) {}
    template <int B> __global__ void templ(const float* __restrict__ x, float* y) {}
    template __global__ void templ<128>(const float* __restrict__, float*);
    '''
    got = {k.name: (k.extern_c, k.template, k.params) for k in kernels(code)}
    assert got == {"inside_block": (True, False, 2), "plain_c": (True, False, 1),
                   "cpp_linkage": (False, False, 3), "templ": (False, True, 2)}


def test_resolve_kernel_defaults_and_errors():
    assert resolve_kernel(KERNEL, None) == "add"
    assert resolve_kernel(KERNEL, "add") == "add"
    templ = "template <int B> __global__ void r(float* x) {}\ntemplate __global__ void r<64>(float*);\n"
    assert resolve_kernel(templ, None) == "r<64>"
    assert resolve_kernel(templ, "r<128>") == "r<128>"      # NVRTC instantiates a named expression
    with pytest.raises(SubmissionError, match=r'kernel add2 is not extern "C": declare it `extern "C" __global__`'):
        resolve_kernel(KERNEL.replace('extern "C" ', "").replace("add", "add2"), None)
    with pytest.raises(SubmissionError, match='not extern "C"'):
        resolve_kernel(KERNEL + KERNEL.replace('extern "C" ', "").replace("add", "add2"), "add2")
    with pytest.raises(SubmissionError, match=r"several extern \"C\" kernels \(add, add2\)"):
        resolve_kernel(KERNEL + KERNEL.replace("add", "add2"), None)
    with pytest.raises(SubmissionError, match="the code has no __global__ sub"):
        resolve_kernel(KERNEL, "sub")
    with pytest.raises(SubmissionError, match="is a template: name an instantiation, e.g. kernel=r<64>"):
        resolve_kernel(templ, "r")
    with pytest.raises(SubmissionError, match="not a template kernel"):
        resolve_kernel(KERNEL, "add<4>")
    with pytest.raises(SubmissionError, match="no __global__ kernel"):
        resolve_kernel("__device__ float f(float x) { return x; }\n", None)


# ------------------------------------------------------------------ parse_submission

def test_transpose_candidate_with_an_expression_launch_is_the_corpus_sample():
    task = get("transpose/r4K_c4K")
    tiled = [c for c in task.candidates if c.params.get("kind") == "padded"]
    assert tiled
    for c in tiled:
        t, rows_per = c.params["tile"], c.params["block_y"]
        line = f"// launch: kernel={c.kernel} grid=(cdiv(cols, {t}), cdiv(rows, {t})) block=({t}, {rows_per})"
        s = parse_submission(task, reply(c, line))
        assert s.sample_id == c.sample_id
        assert (s.variant, s.baseline, s.params) == ("submitted", False, {})
        assert s.args == task.baseline.args and s.problem == task.baseline.problem
        assert (s.atol, s.rtol, s.size, s.family) == (task.atol, task.rtol, task.size, task.family)


@pytest.mark.parametrize("task_id", ["transpose/r4K_c4K", "reduction/n32M", "softmax/r16K_c128", "layernorm/r4K_c4K",
                                     "elementwise/n3000001", "matmul/m1000_n1500_k700", "stencil2d/h2048w1024_star5",
                                     "histogram/n2M_bins256_uniform"])
def test_every_candidate_resubmitted_is_its_corpus_sample(task_id):
    """Launch line at the top (kernel named) or at the bottom (kernel left to the default)."""
    task = get(task_id)
    for c in task.candidates:
        assert parse_submission(task, reply(c)).sample_id == c.sample_id, c.variant
        unnamed = re.sub(r"kernel=\S+ ", "", launch_line(c))
        assert parse_submission(task, reply(c, unnamed, at_end=True)).sample_id == c.sample_id, c.variant


def test_a_changed_launch_or_source_is_a_new_candidate():
    task = get("transpose/r4K_c4K")
    c = task.baseline
    ids = {c.sample_id,
           parse_submission(task, reply(c, "// launch: grid=(128, 512) block=(32, 8) smem=128")).sample_id,
           parse_submission(task, reply(c, "// launch: grid=(256, 512) block=(16, 8)")).sample_id,
           parse_submission(task, reply(c).replace("int c = ", "const int c = ")).sample_id}
    assert len(ids) == 4


def test_parse_submission_errors_name_the_problem():
    task = get("transpose/r4K_c4K")
    src = task.baseline.source
    with pytest.raises(SubmissionError, match="no `// launch:` line"):
        parse_submission(task, fenced(src))
    with pytest.raises(SubmissionError, match='transpose_naive_row is not extern "C"'):
        parse_submission(task, fenced("// launch: grid=(128, 512) block=(32, 8)\n" + src.replace('extern "C" ', "")))
    with pytest.raises(SubmissionError, match=r"takes 3 parameters; it is called with 4: \(const float\* in, "
                                              r"float\* out, int rows, int cols\)"):
        parse_submission(task, fenced("// launch: grid=(1) block=(32)\n" + src.replace(", int cols", "")))
    with pytest.raises(SubmissionError, match="unknown name 'n'"):
        parse_submission(task, fenced("// launch: grid=(cdiv(n, 256)) block=(256)\n" + src))


def test_float_scalars_cannot_size_a_launch():
    task = get("elementwise/n1M")
    with pytest.raises(SubmissionError, match=r"a is a float32 scalar; launch expressions use the integer ones \(n\)"):
        parse_submission(task, reply(task.baseline, "// launch: grid=(cdiv(n, 256) * a) block=(256)"))


# ------------------------------------------------------------------ the prompt

def test_task_prompt_states_signature_size_tolerance_baseline_and_format():
    task = get("transpose/r4K_c4K")
    p = task_prompt(task)
    for want in ("transpose/r4K_c4K", "rows = 4096, cols = 4096", "const float* in", "float* out", "int rows",
                 "int cols", "16777216 x float32", "exactly", launch_line(task.baseline), task.baseline.source.strip(),
                 "// launch: kernel=NAME grid=(EXPR, EXPR, EXPR)", "(rows, cols)", 'extern "C"'):
        assert want in p, want
    # the parameters in the kernel's order
    assert p.index("const float* in") < p.index("float* out") < p.index("int rows") < p.index("int cols")
    # the prompt's baseline block is itself a valid reply for the baseline launch
    block = p[p.index("```cuda"):]
    assert parse_submission(task, block[:block.index("```", 3) + 3]).sample_id == task.baseline.sample_id


def test_task_prompt_tolerance_roles_and_template_launch():
    task = get("reduction/n32M")
    p = task_prompt(task)
    assert f"|out - ref| <= {task.atol:g} + {task.rtol:g} * |ref|" in p
    assert "zeroed before the launch" in p and "int n" in p and "= 33554432" in p
    assert f"kernel={task.baseline.kernel}" in p and "<" in task.baseline.kernel
    elem = task_prompt(get("elementwise/n1M"))
    assert "float a" in elem and "(n)" in elem     # only the integer scalar may size a launch


def test_a_task_without_a_baseline_launch_is_refused_in_one_line():
    from rl.tasks import Task

    torch_like = Task("torch/gelu/small", "torch", None)   # torch tasks have no Sample baseline
    for call in (lambda: task_prompt(torch_like), lambda: parse_submission(torch_like, fenced(KERNEL))):
        with pytest.raises(SubmissionError, match=r"task torch/gelu/small \(torch\) has no baseline kernel launch"):
            call()
