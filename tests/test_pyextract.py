"""CUDA in .py files as people save them (analyzer.pyextract.extract_module): PyCUDA modules, kernels
in strings no recognised call takes, a model's reply in markdown fences, Python that does not parse.
The shapes are those of public KernelBench-style solutions and PyCUDA scripts."""
from __future__ import annotations

import pytest

from analyzer.pyextract import extract, extract_module

PYCUDA = '''import pycuda.autoinit
from pycuda.compiler import SourceModule

mod = SourceModule("""
__global__ void twice(float *out, const float *in)
{
  out[threadIdx.x] = 2.0f * in[threadIdx.x];
}
""")
other = SourceModule(source=KERNEL_TEXT)
'''


def test_pycuda_source_modules_are_linted():
    found = extract_module(PYCUDA)
    assert [e.line for e in found.embedded] == [4]
    assert found.embedded[0].source.startswith("\n__global__ void twice")
    assert found.skipped == [(10, "SourceModule")]        # its CUDA is bound elsewhere


LOOSE = '''import torch.utils.cpp_extension as ext
"""Kernels for __global__ functions (a string no code uses: prose, not CUDA)."""

header = r"""
__host__ __device__ inline int cdiv(int a, int b) { return (a + b - 1) / b; }
"""
body = r"""
__global__ void add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
"""

def build(src):
    with open("k.cu", "w") as f:
        f.write(src)
    return ext.load(name="k", sources=["k.cu"])

def load_cuda(cuda_src):
    return ext.load_inline(name="k", cpp_sources="", cuda_sources=[cuda_src])

module = load_cuda(header + body)
'''


def test_strings_holding_a_kernel_that_no_call_takes_are_linted():
    """Written to a file for `load`, or passed through a wrapper function: the string with the
    kernel is linted, the one without (a helper) and the docstring are not; the wrapper's call,
    whose CUDA is then likely among them, gets no 'not spelled out' note."""
    found = extract_module(LOOSE)
    assert [(e.line, e.col) for e in found.embedded] == [(7, 12)]
    assert "void add" in found.embedded[0].source
    assert found.skipped == []
    assert extract(LOOSE) == []                          # the strict reading: calls only


HIP_CPP = '''from torch.utils.cpp_extension import load_inline
src = """
#include <hip/hip_runtime.h>
__global__ void k(float* y) { y[threadIdx.x] = 1.0f; }
"""
decls = "torch::Tensor run(torch::Tensor x);"
mod = load_inline(name="m", cpp_sources=[decls, src], functions=["run"])
'''


def test_kernels_in_cpp_sources_are_linted_and_declarations_are_not():
    found = extract_module(HIP_CPP)
    assert [e.line for e in found.embedded] == [2]
    assert found.skipped == []


REPLY = '''```python
import torch
from torch.utils.cpp_extension import load_inline

src = """
__global__ void relu(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.0f);
}
"""
mod = load_inline(name="relu", cpp_sources="", cuda_sources=src)
```

And the kernel alone:

```cuda
__global__ void neg(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = -x[i];
}
```
'''


def test_a_models_reply_in_markdown_fences():
    found = extract_module(REPLY)
    lines = REPLY.splitlines()
    assert [(e.line, e.col) for e in found.embedded] == [(5, 10), (17, 1)]
    python_string, cuda_block = found.embedded
    assert lines[python_string.line - 1][python_string.col - 1:] == ""     # the string opens the line after
    assert lines[python_string.line].startswith("__global__ void relu")
    assert python_string.to_python(2, 1) == (6, 1)                         # its line 2: `__global__ void relu`
    assert lines[cuda_block.line - 1].startswith("__global__ void neg")
    assert found.notes and "markdown code blocks" in found.notes[0][1]


def test_a_reply_cut_off_inside_its_block_still_gives_the_block():
    cut = "Here it is:\n```cuda\n__global__ void k(float* y) {\n  y[threadIdx.x] = 0.0f;\n"
    found = extract_module(cut)
    assert [(e.line, e.col) for e in found.embedded] == [(3, 1)]


PYTHON2 = '''import pycuda.autoinit
from pycuda.compiler import SourceModule
mod = SourceModule("""
__global__ void copy(float *dst, float *src)
{
  dst[threadIdx.x] = src[threadIdx.x];
}
""")
print "done"
'''


def test_python_that_does_not_parse_gives_its_kernels_through_the_tokenizer():
    found = extract_module(PYTHON2)
    assert [(e.line, e.col) for e in found.embedded] == [(3, 23)]
    assert found.embedded[0].source.startswith("\n__global__ void copy")
    assert "Python does not parse" in found.notes[0][1] and "line 9" in found.notes[0][1]


def test_python_that_does_not_parse_and_holds_no_kernel_is_still_an_error():
    with pytest.raises(SyntaxError):
        extract_module("def (:\n")
    with pytest.raises(SyntaxError):
        extract_module("```python\ndef (:\n```\n")


FSTRINGS = '''BLOCK = 128
taken = f"""
__global__ void a(float* y) {{ y[threadIdx.x * {BLOCK}] = 0.0f; }}
"""
loose = f"""
__global__ void b(float* y) {{ y[blockIdx.x * {BLOCK} + threadIdx.x] = 0.0f; }}
"""
mod = RawKernel(taken, "a")
'''


def test_f_strings_are_linted_whole_and_rendered():
    """Neither f-string is linted in pieces: the one a call takes once, the loose one rendered."""
    found = extract_module(FSTRINGS)
    assert [e.line for e in found.embedded] == [2, 5]
    assert "threadIdx.x * 128]" in found.embedded[0].source
    assert "blockIdx.x * 128 + threadIdx.x]" in found.embedded[1].source and "{{" not in found.embedded[1].source


STRIDED_REPLY = '''I wrote the kernel:

```python
from torch.utils.cpp_extension import load_inline
src = """
__global__ void gather(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i * 32] = x[i];
}
"""
mod = load_inline(name="g", cpp_sources="", cuda_sources=src)
```
'''


def test_lint_of_a_saved_reply_reports_at_the_files_lines(tmp_path, capsys):
    from analyzer.cli import main

    path = tmp_path / "reply.py"
    path.write_text(STRIDED_REPLY)
    code = main(["lint", "--isolated", "--select", "GM102", str(path)])
    out, err = capsys.readouterr()
    assert code == 1
    assert f"{path}:8:16: GM102 uncoalesced global store `y[i * 32]`" in out
    assert f"{path}: note: markdown code blocks (a model's reply?): linted the CUDA inside them" in err
    (tmp_path / "old.py").write_text(PYTHON2)
    code = main(["lint", "--isolated", str(tmp_path / "old.py")])
    out, err = capsys.readouterr()
    assert code in (0, 1) and "Python does not parse (Missing parentheses in call to 'print'" in err


def test_line_ranges_in_messages_move_to_the_python_file():
    (e,) = extract_module('import cupy\n\nk = cupy.RawKernel("""\n__global__ void k() {}\n""", "k")\n').embedded
    assert e.line == 3      # the CUDA's line 1 is the .py file's line 3
    assert e.text_to_python("unparsed code (lines 3-20) was skipped; the loop at line 4") == \
        "unparsed code (lines 5-22) was skipped; the loop at line 6"


def test_an_f_string_template_of_types_and_names_parses():
    """A kernel template filled from a function's locals (`{dtype}`, `{name}`): the holes render as
    the bare names, so the declarations around them still parse (in brackets they did not)."""
    from analyzer.lint import lint_source

    module = '''def build(dtype, name):
    return RawKernel(f"""
__global__ void {name}(const {dtype}* x, {dtype}* y, int n) {{
    __shared__ {dtype} tile[256];
    int i = blockIdx.x * 256 + threadIdx.x;
    tile[threadIdx.x] = x[i];
    __syncthreads();
    if (i < n) y[i] = tile[255 - threadIdx.x];
}}
""", name)
'''
    (e,) = extract_module(module).embedded
    assert "__shared__ dtype tile[256];" in e.source and "void name(const dtype* x" in e.source
    res = lint_source(e.source, "t.cu")
    assert not [f for f in res.findings if f.code == "PA001"]
    assert [k.name for k in res.kernels] == ["name"] and res.kernels[0].accesses == 4


def test_lint_of_a_reply_saved_as_markdown_or_text(tmp_path, capsys):
    """`lint reply.md` / `reply.txt`: the fenced blocks are linted at the reply's lines (read as CUDA
    the whole reply was one unparsed region); a .md with no kernel block says so, a .txt without
    fences is CUDA as before."""
    from analyzer.cli import main

    reply = ("Here is the kernel.\n\n```cuda\n__global__ void k(float* y, int n) {\n"
             "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i * 32] = 0.f;\n}\n```\n")
    for name in ("reply.md", "reply.txt"):
        (tmp_path / name).write_text(reply)
        code = main(["lint", "--isolated", "--select", "GM102,PA001", str(tmp_path / name)])
        out, err = capsys.readouterr()
        assert code == 1 and f"{tmp_path / name}:6:14: GM102 uncoalesced global store `y[i * 32]`" in out
        assert "PA001" not in out and "markdown code blocks" in err
    (tmp_path / "notes.md").write_text("# notes\n\nno code here\n")
    code = main(["lint", "--isolated", str(tmp_path / "notes.md")])
    out, err = capsys.readouterr()
    assert code == 0 and "no code block holding a __global__ kernel" in err
    (tmp_path / "plain.txt").write_text("__global__ void k(float* y) { y[threadIdx.x * 32] = 0.f; }\n")
    code = main(["lint", "--isolated", "--select", "GM102", str(tmp_path / "plain.txt")])
    out, _ = capsys.readouterr()
    assert code == 1 and "plain.txt:1:31: GM102" in out


def test_python_flag_says_nothing_of_python_files_without_cuda(tmp_path, capsys):
    """`lint --python a.py b.py` (the pre-commit hook for Python): a file with no CUDA, or Python that
    does not parse and holds no kernel, is passed quietly; named without --python it is a note / an
    error as before."""
    from analyzer.cli import main

    (tmp_path / "plain.py").write_text("x = 1\n")
    (tmp_path / "broken.py").write_text("def (:\n")
    (tmp_path / "solution.py").write_text(STRIDED_REPLY.split("```python\n")[1].split("```")[0])
    files = [str(tmp_path / n) for n in ("plain.py", "broken.py", "solution.py")]
    code = main(["lint", "--isolated", "--python", "--select", "GM102", *files])
    out, err = capsys.readouterr()
    assert code == 1 and "solution.py:5:16: GM102" in out
    assert "plain.py" not in err and "broken.py" not in err and "plain.py" not in out
    code = main(["lint", "--isolated", *files[:2]])
    out, err = capsys.readouterr()
    assert code == 2 and "plain.py: note: no CUDA found" in err and "broken.py: error: Python does not parse" in err


HALF_MODULE = '''
from torch.utils.cpp_extension import load_inline

SRC = r"""
#include <torch/extension.h>
#include <cuda_fp16.h>
__global__ void add_half(const __half* a, const __half* b, __half* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] + b[i];
}
"""
CPP = "torch::Tensor add(torch::Tensor a, torch::Tensor b);"
FLAGS = FLAGS_VALUE
mod = load_inline(name="add", cpp_sources=CPP, cuda_sources=SRC, functions=["add"]EXTRA)
'''


@pytest.mark.parametrize("extra, defines", [
    ("", ("__CUDA_NO_HALF_OPERATORS__", "__CUDA_NO_HALF_CONVERSIONS__", "__CUDA_NO_BFLOAT16_CONVERSIONS__",
          "__CUDA_NO_HALF2_OPERATORS__")),
    (', extra_cuda_cflags=["-O3", "-U__CUDA_NO_HALF_OPERATORS__", "-U", "__CUDA_NO_HALF_CONVERSIONS__"]',
     ("__CUDA_NO_BFLOAT16_CONVERSIONS__", "__CUDA_NO_HALF2_OPERATORS__")),
    (", extra_cuda_cflags=FLAGS", ("__CUDA_NO_BFLOAT16_CONVERSIONS__",)),
    (", extra_cuda_cflags=make_flags()", ()),       # not spelled out: not known
])
def test_load_inline_strings_carry_pytorchs_defines(extra, defines):
    text = HALF_MODULE.replace("EXTRA", extra).replace(
        "FLAGS_VALUE", '["-U__CUDA_NO_HALF_OPERATORS__", "--undefine-macro=__CUDA_NO_HALF_CONVERSIONS__", '
                       '"-U__CUDA_NO_HALF2_OPERATORS__"]')
    (emb,) = extract(text)
    assert emb.defines == defines


def test_cp707_in_a_load_inline_string_unless_its_flags_undefine_them(tmp_path, capsys):
    """A __half operator in load_inline's CUDA fails PyTorch's build (CP707) unless extra_cuda_cflags
    take the flags back; the same kernel in a .cu file (flags not known) is not reported."""
    from analyzer.cli import main

    path = tmp_path / "ext.py"
    path.write_text(HALF_MODULE.replace("EXTRA", "").replace("FLAGS_VALUE", "[]"))
    code = main(["lint", "--isolated", "--select", "CP706,CP707", str(path)])
    out, _ = capsys.readouterr()
    assert code == 1 and f"{path}:9:25: CP707 `a[i] + b[i]` uses `__half`'s operator +" in out, out
    undone = '["-U__CUDA_NO_HALF_OPERATORS__", "-U__CUDA_NO_HALF_CONVERSIONS__", ' \
             '"-U__CUDA_NO_BFLOAT16_CONVERSIONS__", "-U__CUDA_NO_HALF2_OPERATORS__"]'
    path.write_text(HALF_MODULE.replace("EXTRA", ", extra_cuda_cflags=FLAGS").replace("FLAGS_VALUE", undone))
    assert main(["lint", "--isolated", "--select", "CP706,CP707", str(path)]) == 0
    capsys.readouterr()
    cu = tmp_path / "ext.cu"
    cu.write_text(extract(HALF_MODULE.replace("EXTRA", "").replace("FLAGS_VALUE", "[]"))[0].source)
    assert main(["lint", "--isolated", "--select", "CP706,CP707", str(cu)]) == 0
