"""Idioms of public CUDA projects that the linter misread when it was first run over them
(bench/real_code.py): each test is a small kernel written here in that style, not their code.

- a header's launch-bounds macro between `template <...>` and `__global__` (PyTorch's
  C10_LAUNCH_BOUNDS_1/_2), alone or inside `#if ... #endif`: the kernel was not found at all;
- `sizeof(T)` of a template type no launch gives (`16 / sizeof(scalar_t)` elements a pack):
  every index after it was unknown;
- a type alias in a kernel's body (`using pack_t = uint4;`): 16-byte loads through it were
  taken as 4-byte loads, and GM103 suggested the vector loads the code already makes;
- a launch whose block has one dimension from a header (`dim3 block(1, BLOCK_SIZE, 1)`): the
  launch was dropped for the default 32x8 guess, whose lanes run along the other axis;
- a load on the right of `&&` (`idx < numel && input[idx] != pad`): it runs only where the left
  side holds, which GM104 did not see;
- host code the grammar cannot read (`TORCH_CHECK(...)` without `;`, a namespace behind
  `LIB_NAMESPACE_END`): PA001 reported regions that hide nothing the analysis reads;
- Caffe's grid-stride loop macro, `CUDA_KERNEL_LOOP(i, n)` (and mmcv's, detectron2's, PyTorch's
  variants), whose header is seldom beside the file: every index in the loop was unknown;
- inline PTX behind a macro, invoked over several lines (`HMMA16816(d0, d1,\n a0, ...)`, the
  mma.sync of hand-written flash attention): macros over lines were not expanded and asm bodies
  never were, so the tensor-core products went uncounted;
- a barrier in a grid-stride loop whose exit test is the same for the whole block
  (`i - threadIdx.x < n`, or a bound that adds the thread's offset as the start does): SY301
  called it divergent;
- a barrier behind a macro from an unseen header (`SYNC_WARPS;`, code shared with OpenCL): the
  race check read past it and reported the reads after it;
- a statement macro with its `;` inside its unseen definition, alone on a line (`USING_ACCSCALAR_T`,
  `SYNC_WARPS`): the grammar read it as the type of a declaration of the next line, which swallowed
  that statement (a kernel launch, a shared store);
- inline PTX arithmetic on a uniform value (`bfind.u32` of the length, to round it to a power of
  two): its result was taken as per-thread, so loops bounded by it were divergent to SY301;
- file-scope code the grammar cannot read that holds no device code (onnxruntime's
  `SPECIALIZED_IMPL(float)` instantiating a template, Paddle's `PD_REGISTER_KERNEL(...) {...}`):
  PA001 reported it, though it hides nothing the analysis reads;
- a work-efficient (Blelloch) scan's up-sweep, `for (d = n >> 1; d > 0; d >>= 1) { __syncthreads();
  ... temp[bi] += temp[ai]; }`, then `if (tid == 0) temp[n - 1] = 0;`: SM202 took the loop's first
  iteration's writers for the ones still unordered after it, though each met the next iteration's
  barrier; only the last iteration's (thread 0 alone) are;
- an access inside a statement macro's expansion (gromacs' `DO_FSPLINE(4);`, a loop over a strided
  array): its finding quoted whatever followed the invocation in the file (a comment's words) at a
  column past the line's end; now the access as expanded, at the invocation's column;
- a kernel without a bounds check launched on a grid that rounds down (cuda-samples' matrixMul:
  `dim3 grid(dimsB.x / threads.x, dimsA.y / threads.y)`): GM104 warned of an overhanging last
  block that this grid cannot have;
- arithmetic on numbers alone, stored (GROMACS' `real div = 1.0/3;`): FP501 called it FP64 arithmetic,
  which the compiler folds away; combined with a variable (`x * (1.0 / 3)`) it still is;
- a launch whose block is braced (`k<<<grid, {bx, by, 1}, 0, stream>>>`, NVIDIA's multi-GPU
  Jacobi): the grammar cannot read it there, so the launch was lost and PA001 reported it;
- an access written over two lines (Rodinia's `J_cuda[cols * BLOCK_SIZE * (gridDim.y - 1) +\\n ...]`):
  its finding's message carried the line break, so `path:line:col: CODE message` took two lines;
- a kernel without a launch in the file whose shared rows are narrower than a warp and indexed by
  threadIdx.x (the NVIDIA blog's finite differences: `__shared__ float s_f[my + 8][sPencils]` with
  sPencils = 4, read `s_f[sj][si]` with `si = threadIdx.x`): the 32x8 default block ran threads past
  the row's end into the next, and SM202 saw races between rows that do not exist; the guessed block
  is now as wide as the row (4x64);
- a header's macro alone on a line before a template kernel (cuCollections'
  `CUCO_SUPPRESS_KERNEL_WARNINGS`): the template after it was misread and the kernel lost its
  `__launch_bounds__(BlockSize)`;
- barriers in inline PTX (`bar.sync 0`, named barriers `bar.sync 1, 128`, `bar.arrive`,
  `mbarrier.try_wait`): the race check read past them too;
- inline PTX laid out with escapes (`"{\\n\\tld.global.f32 %0, [%1];\\n}"`): the instruction after
  `\\t` was not recognized, so its access was not counted;
- a host variable set through its address before the launch that passes it (Paddle's arange:
  `int64_t size = 0; GetSize(start, end, step, &size); Range<<<grid, block>>>(..., size, ...)`):
  it was taken for the constant 0, and no thread reached the kernel's store;
- a host loop's counter passed to each launch (PolyBench's LU: `for (int k = 0; k < N; k++)
  lu_kernel1<<<grid1, block1>>>(A, k)`): k took the unknown name's 4096, at which no thread passed
  `j > k && j < N`; it now takes the loop's first value. The same code sets the grid through its
  member before each launch (`grid1.x = ...`), which was read as the declaration's one block;
- a pointer moved by a local of a grid-stride loop's body (Caffe's LRN: `int offset = ...; in +=
  offset;`): the carried increment named the local, reported as a parameter assumed 4096;
- a range-for loop (`for (auto const& e : v)`, cuda::std::array code): its body was not walked.

The thirty-second session's set (72 files of 33 other projects):
- `for (int k = 0, cnt = 0; k < n && cnt < nsample; ++k)` (PointNet++'s ball query): `k` was left
  undefined, a name of 4096, and no thread reached the loop's loads;
- a double literal passed alone as an argument (`vec3 c(a + RND, 0.2, b)`, `vec3(0, -1000.0, -1)`):
  FP501 read a neighbour's arithmetic (or the literal's own sign) as its own;
- furthest point sampling's `if (tid == 0) idxs[j] = old;` inside a loop every thread runs, after an
  equal condition before it: DV402 took the loop for one lane's;
- nerfacc's `CUDA_GET_THREAD_ID(i, n);` from an unseen header: the index was a name of 4096;
- the fields of one record a lane (`p[3 * i + 0..2]`): one GM101/GM102 a field, now one a record;
- GM103 on arrays of structs from headers (`curandState`), taken as 4-byte scalars;
- GM104 twice for one element stored and loaded over two lines (`C[i] =\n beta * C[i]`).
"""
from __future__ import annotations

import pytest

from analyzer.lint import lint_source
from analyzer.parse import parse, preprocess

COPY_BODY = """__global__ void copy(scalar_t* out, const scalar_t* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
"""


@pytest.mark.parametrize("bounds, expected", [
    ("C10_LAUNCH_BOUNDS_1(THREADS)\n", (512, None)),
    ("C10_LAUNCH_BOUNDS_2(THREADS, 4)\n", (512, 4)),
    ("#if __CUDA_ARCH__ >= 350 || defined USE_ROCM\nC10_LAUNCH_BOUNDS_2(256, 4)\n#endif\n", (256, 4)),
    ("#if defined(FAST)\n__launch_bounds__(128)\n#endif\n", (128, None)),
    ("C10_LAUNCH_BOUNDS_0\n", None),            # no arguments: blanked, the kernel stays
    ("MY_LAUNCH_BOUNDS(THREADS)\n", None),      # a name shorter than __launch_bounds__: blanked
])
def test_a_launch_bounds_macro_before_a_template_kernel(bounds, expected):
    src = "#define THREADS 512\ntemplate <typename scalar_t>\n" + bounds + COPY_BODY
    p = parse(src)
    assert not p.errors
    (k,) = p.kernels
    assert k.name == "copy" and k.template_params == {"scalar_t": None}
    got = (k.launch_bounds.max_threads, k.launch_bounds.min_blocks) if k.launch_bounds else None
    assert got == expected


def test_the_macro_pass_keeps_every_offset_and_leaves_definitions_alone():
    src = (b"#define MY_KERNEL_LAUNCH_BOUNDS(n) __launch_bounds__(n)\ntemplate <typename T>\n"
           b"C10_LAUNCH_BOUNDS_1(64)\n" + COPY_BODY.replace("scalar_t", "T").encode())
    pre = preprocess(src)
    assert len(pre.text) == len(src)
    assert pre.text.splitlines()[0] == src.splitlines()[0]
    assert pre.text.splitlines()[2] == b"__launch_bounds__  (64)"


def test_the_bound_sizes_the_block_where_no_launch_does():
    src = "template <typename scalar_t>\nC10_LAUNCH_BOUNDS_1(1024)\n" + COPY_BODY
    (k,) = lint_source(src, "k.cu").kernels
    assert k.block == (1024, 1, 1)


PACKED = """template <typename scalar_t>
__global__ void scale_packed(scalar_t* out, const scalar_t* in, float s, int n) {
  const int pack = 16 / sizeof(scalar_t);
  int base = (blockIdx.x * blockDim.x + threadIdx.x) * pack;
  if (base < n) {
    uint4 v = reinterpret_cast<const uint4*>(in + base)[0];
    reinterpret_cast<uint4*>(out + base)[0] = v;
  }
}
"""


def test_sizeof_a_template_type_no_launch_gives_is_taken_as_4_bytes_with_a_note():
    r = lint_source(PACKED, "k.cu")
    (k,) = r.kernels
    assert k.unknown_accesses == 0
    # 16-byte accesses of consecutive threads: 16 sectors a request, none wasted
    assert k.global_load_sectors_per_request == k.global_load_ideal == 16
    assert any("template type scalar_t taken as 4 bytes" in n for n in r.notes)
    # a launch that gives the type gives its size, and no note
    r = lint_source(PACKED, "k.cu", kernels=["scale_packed<double>"])
    assert r.kernels[0].unknown_accesses == 0 and not any("template type" in n for n in r.notes)


ALIASED = """__global__ void copy4(const float* in, float* out, int n) {
  using pack_t = float4;
  typedef float4 vec_t;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i * 4 < n) {
    pack_t v = reinterpret_cast<const pack_t*>(in)[i];
    reinterpret_cast<vec_t*>(out)[i] = v;
  }
}
"""


def test_a_type_alias_in_the_kernel_body_gives_its_type_s_width():
    r = lint_source(ALIASED, "k.cu")
    (k,) = r.kernels
    assert k.global_load_sectors_per_request == 16 and k.global_store_sectors_per_request == 16
    assert not [f for f in r.findings if f.code == "GM103"]
    # the same kernel with 4-byte accesses is what GM103 is for
    plain = ALIASED.replace("reinterpret_cast<const pack_t*>(in)[i]", "in[i]").replace(
        "reinterpret_cast<vec_t*>(out)[i] = v", "out[i] = v").replace("pack_t v", "float v")
    assert lint_source(plain, "k.cu").kernels[0].global_load_sectors_per_request == 4


BLOCK_UNIFORM_LOOP = """__global__ void check(const float* x, int* flag, int n) {
  __shared__ int stop;
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int stride = gridDim.x * blockDim.x;
  for (int i = tid; i - threadIdx.x < n; i += stride) {
    if (threadIdx.x == 0) stop = *flag;
    __syncthreads();
    if (stop) break;
    if (i < n && x[i] != x[i]) *flag = 1;
    __syncthreads();
  }
}
"""

OFFSET_BOUND_LOOP = """__global__ void scan_tokens(const float* k, float* out, int T, int C) {
  __shared__ float kk[64];
  int tid = threadIdx.x;
  int start = blockIdx.x * T * C + tid;
  for (int t = start; t < (blockIdx.x + 1) * T * C + tid; t += C) {
    __syncthreads();
    kk[tid] = k[t];
    __syncthreads();
    out[t] = kk[(tid + 1) % 64];
  }
}
"""


@pytest.mark.parametrize("src", [BLOCK_UNIFORM_LOOP, OFFSET_BOUND_LOOP])
def test_a_grid_stride_loop_whose_exit_is_the_same_for_the_block_is_no_divergent_barrier(src):
    assert not [f for f in lint_source(src, "k.cu").findings if f.code == "SY301"]


@pytest.mark.parametrize("src", [
    # the plain grid-stride loop: threads of the last block leave it at different iterations
    BLOCK_UNIFORM_LOOP.replace("i - threadIdx.x < n", "i < n"),
    # a bound that adds another thread term than the start's
    OFFSET_BOUND_LOOP.replace("* C + tid; t += C", "* C + 2 * tid; t += C"),
    # a step that depends on the thread
    BLOCK_UNIFORM_LOOP.replace("i += stride", "i += stride + threadIdx.x"),
])
def test_loops_whose_exit_differs_between_threads_still_are(src):
    assert [f for f in lint_source(src, "k.cu").findings if f.code == "SY301"]


COLUMNS = """__global__ void mask(const float* x, float* y, int ncols) {
  int col = blockDim.y * blockIdx.y + threadIdx.y;
  int row = blockDim.x * blockIdx.x + threadIdx.x;
  if (col < ncols) y[row * ncols + col] = x[row * ncols + col];
}
void launch(const float* x, float* y, int rows, int ncols) {
  const dim3 block(1, BLOCK_FROM_A_HEADER, 1);
  mask<<<dim3(rows, 64, 1), block>>>(x, y, ncols);
}
"""


def test_a_block_with_one_unknown_dimension_keeps_its_known_ones():
    r = lint_source(COLUMNS, "k.cu")
    (k,) = r.kernels
    assert k.block == (1, 256, 1) and k.grid[1] == 64
    assert "its unknown y taken as 256" in k.launch_source
    assert k.global_store_sectors_per_request == 4       # lanes run along y: coalesced
    assert not [f for f in r.findings if f.code in ("GM101", "GM102")]


@pytest.mark.parametrize("launch, block", [
    ("mask<<<dim3(rows, 64, 1), dim3(1, BLOCK_FROM_A_HEADER)>>>(x, y, ncols);", (1, 256, 1)),
    ("mask<<<rows, dim3(2, THREADS_Y)>>>(x, y, ncols);", (2, 128, 1)),
    # __launch_bounds__ gives the size the unknown dimension makes up
    ("mask<<<dim3(rows, 64, 1), block>>>(x, y, ncols);", (1, 512, 1)),
    # two unknown dimensions: the default guess, as before
    ("mask<<<dim3(rows, 64, 1), dim3(BX, BY, 1)>>>(x, y, ncols);", (32, 8, 1)),
])
def test_partial_blocks_at_launch_sites(launch, block):
    src = COLUMNS.replace("  mask<<<dim3(rows, 64, 1), block>>>(x, y, ncols);", "  " + launch)
    if block == (1, 512, 1):
        src = src.replace("__global__ void mask", "__global__ void __launch_bounds__(512) mask")
    assert lint_source(src, "k.cu").kernels[0].block == block


SHORT_CIRCUIT = """__global__ void starts(const int* input, int* out, int numel, int pad) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < numel && (idx == 0 || input[idx] != input[idx - 1]) && input[idx] != pad) out[idx] = 1;
}
"""


def test_a_load_right_of_a_short_circuit_bound_check_is_guarded_by_it():
    r = lint_source(SHORT_CIRCUIT, "k.cu")
    assert not [f for f in r.findings if f.code == "GM104"]
    ka = r.contexts[0].accesses
    loads = [a for a in ka.accesses if a.kind == "load"]
    assert len(loads) == 3 and all(a.guards for a in loads)
    # `input[idx - 1]` runs only where `idx == 0` fails
    first = next(a for a in loads if a.text == "input[idx - 1]")
    assert any("idx" in str(g) or "blockIdx" in str(g) for g in first.guards)
    # the check on the right of the load guards nothing: the load runs first
    unguarded = SHORT_CIRCUIT.replace("idx < numel && (idx == 0 || input[idx] != input[idx - 1]) && input[idx] != pad",
                                      "input[idx] != pad && idx < numel")
    found = [f for f in lint_source(unguarded, "k.cu").findings if f.code == "GM104"]
    assert [f.col for f in found] == [unguarded.splitlines()[2].index("input[idx]") + 1]


HOST_MACROS = """LIB_NAMESPACE_BEGIN
__global__ void twice(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}
void run(const float* x, float* y, int n) {
  CHECK_ARG(n > 0, "n must be positive")
  CHECK_ARG(x != nullptr, "x");
  twice<<<(n + 255) / 256, 256>>>(x, y, n);
}
LIB_NAMESPACE_END
"""


def test_unreadable_host_code_that_hides_no_launch_is_no_pa001():
    r = lint_source(HOST_MACROS, "k.cu")
    assert r.contexts[0].program.errors            # the grammar still cannot read CHECK_ARG(...)
    assert not [f for f in r.findings if f.code == "PA001"]
    assert r.kernels[0].launch_source == "the launch at line 9"


def test_an_unreadable_region_with_a_launch_in_it_still_is():
    src = HOST_MACROS.replace('  CHECK_ARG(x != nullptr, "x");\n  twice<<<',
                              '  DISPATCH(float, [&] { twice<<<').replace("(x, y, n);\n}", "(x, y, n); }\n}")
    src = src.replace("(x, y, n); }", "(x, y, n) })")
    assert [f for f in lint_source(src, "k.cu").findings if f.code == "PA001"]


HEADER_LOOP = """template <typename Dtype>
__global__ void relu_forward(const int n, const Dtype* in, Dtype* out, Dtype slope) {
  CUDA_KERNEL_LOOP(index, n) {
    out[index] = in[index] > 0 ? in[index] : in[index] * slope;
  }
}
"""


@pytest.mark.parametrize("macro, expected", [
    ("CUDA_KERNEL_LOOP(index, n)", 4),
    ("CUDA_1D_KERNEL_LOOP(index, n)", 4),
    ("CUDA_KERNEL_LOOP_TYPE(index, n, int64_t)", 4),
    # a name no framework uses stays an unknown statement
    ("MY_OWN_LOOP(index, n)", None),
])
def test_a_framework_s_grid_stride_macro_is_its_loop(macro, expected):
    r = lint_source(HEADER_LOOP.replace("CUDA_KERNEL_LOOP(index, n)", macro), "k.cu")
    (k,) = r.kernels
    assert k.global_load_sectors_per_request == expected
    if expected:
        ka = r.contexts[0].accesses
        assert [lp.step is not None for lp in ka.accesses[0].loops] == [True]


def test_the_file_s_own_definition_wins_and_2d_loops_nest():
    own = "#define CUDA_KERNEL_LOOP(i, n) for (int i = threadIdx.x * 32; i < (n); i += 1)\n" + HEADER_LOOP
    (k,) = lint_source(own, "k.cu").kernels
    assert k.global_load_sectors_per_request == 32     # lanes 32 elements apart: its loop, not the grid's
    two_d = """__global__ void add2d(const float* a, float* b, int n, int m) {
  CUDA_2D_KERNEL_LOOP(i, n, j, m) { b[j * n + i] = a[j * n + i] + 1.0f; }
}
"""
    r = lint_source(two_d, "k.cu")
    assert len(r.contexts[0].accesses.accesses[0].loops) == 2
    assert r.kernels[0].global_store_sectors_per_request == 4


EARLY_RETURN = """__global__ void add_partial(int* data, const int* partial, int len) {
  __shared__ int buf;
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  if (id >= len) return;
  if (threadIdx.x == 0) buf = partial[blockIdx.x];
  __syncthreads();
  data[id] += buf;
}
"""


def test_a_barrier_after_an_early_return_says_so():
    (f,) = [f for f in lint_source(EARLY_RETURN, "k.cu").findings if f.code == "SY301"]
    assert "after an early return of the threads where" in f.message and "exited threads" in f.message
    assert "(id >= len)" in f.message or ">= len)" in f.message
    # a barrier inside the branch itself is the plain case
    inside = EARLY_RETURN.replace("  if (id >= len) return;\n", "").replace(
        "  __syncthreads();\n", "  if (id < len) __syncthreads();\n")
    (g,) = [f for f in lint_source(inside, "k.cu").findings if f.code == "SY301"]
    assert "is reached only by threads where" in g.message


PTX_MACRO = """#define MMA_M16N8K16(D0, D1, A0, A1, A2, A3, B0, B1, C0, C1)                          \\
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%8, %9};\\n" \\
                 : "=r"(D0), "=r"(D1)                                                  \\
                 : "r"(A0), "r"(A1), "r"(A2), "r"(A3), "r"(B0), "r"(B1), "r"(C0), "r"(C1))
__global__ void tile_mma(const unsigned* a, const unsigned* b, unsigned* c, int k_tiles) {
  unsigned ra[4], rb[2], rc[2] = {0, 0};
  for (int k = 0; k < k_tiles; ++k) {
    for (int i = 0; i < 4; ++i) ra[i] = a[(k * 4 + i) * 32 + threadIdx.x];
    for (int i = 0; i < 2; ++i) rb[i] = b[(k * 2 + i) * 32 + threadIdx.x];
    MMA_M16N8K16(rc[0], rc[1],   // accumulate in place
                 ra[0], ra[1], ra[2], ra[3],
                 rb[0], rb[1],
                 rc[0], rc[1]);
  }
  c[threadIdx.x * 2] = rc[0];
  c[threadIdx.x * 2 + 1] = rc[1];
}
"""


def test_an_inline_ptx_macro_invoked_over_lines_is_its_instruction():
    r = lint_source(PTX_MACRO, "k.cu")
    ka = r.contexts[0].accesses
    assert [(m.macs, m.line) for m in ka.mmas] == [(16 * 8 * 16, 10)]
    assert len(ka.mmas[0].loops) == 1
    # every line after the invocation keeps its number
    assert [a.line for a in ka.accesses if a.kind == "store" and a.space == "global"] == [15, 16]


MACRO_SYNC = """__global__ void pairs(const float* in, float* out) {
  __shared__ float s[128];
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * 128 + t];
  %s
  out[blockIdx.x * 128 + t] = s[t ^ 1];
}
"""


@pytest.mark.parametrize("statement, race", [
    ("SYNC_WARPS;", False),
    ("SYNC_WARPS", False),             # no `;`: the header's definition holds it
    ("BLOCK_BARRIER();", False),
    ("CTA_SYNC();", False),
    ("__SYNC;", False),
    ("CP_ASYNC_WAIT_ALL();", True),     # an async copy's wait: not a barrier between threads
    ("syncThreads(0);", True),         # a function, not a macro: what it does is unknown
    ("memcpy_async(s, in);", True),
    ("", True),                        # nothing between the write and the read
    ("NOTIFY_WARPS;", True),           # another macro: no reason to take it as a barrier
    ("__syncwarp_unknown_x;", True),   # a double-underscore name is a compiler's, not a header macro
])
def test_a_barrier_macro_from_an_unseen_header_orders_shared_memory(statement, race):
    r = lint_source(MACRO_SYNC % statement, "k.cu")
    assert any(f.code == "SM202" for f in r.findings) == race
    ka = r.contexts[0].accesses
    if not race:
        name = statement.split("(")[0].rstrip(";")
        assert [b.name for b in ka.barriers] == [name]
        assert any(name in n and "barrier" in n for n in ka.notes)


@pytest.mark.parametrize("definition, race, note", [
    ("#define SYNC_WARPS do_other_thing()", True, None),      # the file says what it is: no barrier
    ("#define SYNC_WARPS", True, None),                       # defined away (a one-warp build)
    ("#define SYNC_WARPS cg::this_thread_block().sync()", False, "its definition in the file holds one"),
    ("", False, "its definition is not in the file"),
])
def test_a_barrier_named_macro_the_file_defines_is_what_its_definition_says(definition, race, note):
    r = lint_source(definition + "\n" + MACRO_SYNC % "SYNC_WARPS;", "k.cu")
    assert any(f.code == "SM202" for f in r.findings) == race
    notes = r.contexts[0].accesses.notes
    assert (note is None and not any("SYNC_WARPS" in n for n in notes)) or any(note in n for n in notes)


def test_a_barrier_macro_under_a_branch_is_no_divergent_syncthreads():
    # SY301 is about __syncthreads; a macro may be a warp barrier, so its branch is left alone
    src = MACRO_SYNC % "if (t < 64) { SYNC_WARPS; }"
    assert not any(f.code == "SY301" for f in lint_source(src, "k.cu").findings)


def test_a_function_or_variable_of_that_name_is_not_a_barrier():
    src = MACRO_SYNC.replace("__global__", "__device__ void sync_flag(int) {}\n__global__") % "sync_flag(1);"
    assert any(f.code == "SM202" for f in lint_source(src, "k.cu").findings)


@pytest.mark.parametrize("asm, name", [
    ('asm volatile("bar.sync 0;" ::: "memory");', "__barrier_sync"),
    ('asm volatile("barrier.sync.aligned %0;" :: "r"(0));', "__barrier_sync"),
    ('asm volatile("bar.sync 1, 128;");', "bar.sync"),
    ('asm volatile("bar.arrive 1, 64;");', "bar.arrive"),
    ('asm volatile("bar.warp.sync -1;");', "__syncwarp"),
    ('asm volatile("{\\n\\t.reg .pred p;\\n\\tmbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\\n}" '
     ':: "r"(0), "r"(0));', "mbarrier.try_wait"),
    ('asm volatile("membar.cta;");', None),      # a fence orders this thread's accesses, not the block's
])
def test_a_ptx_barrier_orders_shared_memory(asm, name):
    r = lint_source(MACRO_SYNC % asm, "k.cu")
    assert any(f.code == "SM202" for f in r.findings) == (name is None)
    assert [b.name for b in r.contexts[0].accesses.barriers] == ([name] if name else [])


def test_only_a_whole_block_ptx_barrier_under_a_branch_is_divergent():
    whole = MACRO_SYNC % 'if (t < 64) asm volatile("bar.sync 0;");'
    named = MACRO_SYNC % 'if (t < 64) asm volatile("bar.sync 1, 64;");'   # warp specialization
    assert any(f.code == "SY301" for f in lint_source(whole, "k.cu").findings)
    assert not any(f.code == "SY301" for f in lint_source(named, "k.cu").findings)


def test_inline_ptx_after_escaped_layout_is_read():
    src = """__global__ void k(const float* in, float* out) {
  float v;
  asm volatile("{\\n\\tld.global.f32 %0, [%1];\\n}" : "=f"(v) : "l"(in + blockIdx.x * 128 + threadIdx.x * 2));
  out[blockIdx.x * 128 + threadIdx.x] = v;
}
"""
    loads = [a for a in lint_source(src, "k.cu").contexts[0].accesses.accesses if a.kind == "load"]
    assert [(a.line, a.space) for a in loads] == [(3, "global")]


LONE_MACRO_LAUNCH = """__global__ void scale(float* y, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.f * x[i];
}
void run(float* y, const float* x, int n) {
  auto body = [&] {
    using scalar_t = float;
    USING_ACCSCALAR_T
    scale<<<(n + 127) / 128, 128>>>(y, x, n);
  };
  body();
}
"""


def test_a_lone_statement_macro_leaves_the_next_statement_readable():
    r = lint_source(LONE_MACRO_LAUNCH, "k.cu")
    assert not any(f.code == "PA001" for f in r.findings)
    assert [(l.kernel, l.block) for l in parse(LONE_MACRO_LAUNCH).launches] == [("scale", (128, 1, 1))]
    pre = preprocess(LONE_MACRO_LAUNCH.encode())
    assert len(pre.text) == len(LONE_MACRO_LAUNCH) and pre.text.count(b"\n") == LONE_MACRO_LAUNCH.count("\n")
    assert b"   USING_ACCSCALAR_T;\n" in pre.text


@pytest.mark.parametrize("src", [
    "void f() {\n  g(a,\n    BLOCK_SIZE\n  );\n}\n",                       # an argument on its own line
    "void f() {\n  int x = a +\n    OFFSET_X\n    + b;\n}\n",                # an expression continued
    "void f() {\n  int x = 1;\n  AT_DISPATCH_ALL\n    (t, \"k\", [&] {});\n}\n",  # a call split before its `(`
    "#define SYNC_ALL __syncthreads();\nvoid f() {\n  int x = 1;\n  SYNC_ALL\n  x++;\n}\n",  # the file defines it
])
def test_a_lone_capitalized_name_that_is_no_statement_is_left_alone(src):
    assert preprocess(src.encode()).text == src.encode()


@pytest.mark.parametrize("define, use", [
    ("#define SYNC_ALL __syncthreads();", "SYNC_ALL"),
    ("#define SYNC_ALL __syncthreads()", "SYNC_ALL;"),
    ("#define SYNC_ALL __syncwarp(0xffffffff);", "SYNC_ALL"),
])
def test_the_file_s_own_barrier_macro_is_expanded(define, use):
    src = define + "\n" + MACRO_SYNC % use
    r = lint_source(src, "k.cu")
    assert not any(f.code == "SM202" for f in r.findings)
    ka = r.contexts[0].accesses
    assert [b.name for b in ka.barriers] == [define.split()[2].split("(")[0]]
    assert not ka.notes        # expanded, not assumed
    assert [a.line for a in ka.accesses if a.kind == "store" and a.space == "global"] == [7]


ASM_BOUND = """__device__ unsigned highest_bit(unsigned w) {
  unsigned r;
  asm volatile(%s);
  return r;
}
__global__ void sweep(float* data, unsigned len) {
  __shared__ float s[1024];
  unsigned len2 = 1u << (highest_bit(len - 1u) + 1);
  for (unsigned k = 2; k <= len2; k <<= 1) {
    if (threadIdx.x < len2) s[threadIdx.x] = data[threadIdx.x];
    __syncthreads();
  }
}
"""


@pytest.mark.parametrize("asm, divergent", [
    ('"bfind.u32 %0, %1;" : "=r"(r) : "r"(w)', False),                        # a function of w
    ('"{\\n\\t.reg .pred p;\\n\\tsetp.ne.u32 p, %1, 0;\\n\\tselp.u32 %0, 31, 0, p;\\n}" : "=r"(r) : "r"(w)', False),
    ('"bfind.u32 %0, %1;" : "=r"(r) : "r"(w + threadIdx.x)', True),           # its input differs per thread
    ('"mov.u32 %0, %%laneid;" : "=r"(r)', True),                             # a special register
    ('"ld.global.u32 %0, [%1];" : "=r"(r) : "l"(data + threadIdx.x)', True),  # memory
])
def test_inline_ptx_arithmetic_is_a_function_of_its_inputs(asm, divergent):
    r = lint_source(ASM_BOUND % asm, "k.cu")
    assert any(f.code == "SY301" for f in r.findings) == divergent


FILE_SCOPE = """template <typename T> __global__ void twice(T* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2;
}
template <typename T> void launch(T* x, int n) { twice<<<(n + 255) / 256, 256>>>(x, n); }
#define INSTANTIATE(T) template void launch<T>(T*, int);
INSTANTIATE(float)
INSTANTIATE(double)
%s
"""


@pytest.mark.parametrize("extra, reported", [
    ("", []),                                                      # instantiations: nothing to read
    ("HIDDEN_KERNEL(256) void scale(float* x, int n) {\n  x[blockIdx.x * blockDim.x + threadIdx.x] *= 2.f;\n}", [9]),
    ("LAUNCH_ALL(twice<<<1, 32>>>)\nLAUNCH_ALL(x)", [9]),            # a launch in it
])
def test_unreadable_file_scope_code_is_reported_only_where_it_hides_device_code(extra, reported):
    r = lint_source(FILE_SCOPE % extra, "k.cu")
    regions = [(f.line, f.estimate["end_line"]) for f in r.findings if f.code == "PA001"]
    # one region for each line expected (the grammar may join it to the unreadable lines before)
    assert len(regions) == len(reported) and all(a <= line <= b for line, (a, b) in zip(reported, regions))


UPSWEEP = """#define N 512
__global__ void scan(const float* in, float* sums) {
  __shared__ float temp[N];
  int tid = threadIdx.x;
  temp[2 * tid] = in[blockIdx.x * N + 2 * tid];
  temp[2 * tid + 1] = in[blockIdx.x * N + 2 * tid + 1];
  int offset = 1;
  for (int d = N >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (tid < d) {
      int ai = offset * (2 * tid + 1) - 1;
      int bi = offset * (2 * tid + 2) - 1;
      temp[bi] += temp[ai];
    }
    offset *= 2;
  }
  if (tid == %d) sums[blockIdx.x] = temp[N - 1];
}
void run(const float* in, float* sums, int blocks) { scan<<<blocks, 256>>>(in, sums); }
"""


@pytest.mark.parametrize("reader, race", [(0, False), (1, True)])
def test_only_a_loop_s_last_iteration_is_unordered_after_a_barrier_at_its_top(reader, race):
    # the last iteration (d = 1) has thread 0 write temp[N - 1]: thread 0 may read it, thread 1 not
    r = lint_source(UPSWEEP % reader, "k.cu")
    assert [f.line for f in r.findings if f.code == "SM202"] == ([17] if race else [])


MACRO_BODY = """#define SUM_ROW(k) for (int j = 0; j < (k); j++) acc += w[i * (k) + j]
__global__ void rows(const float* w, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.f;
  if (i < n) {
    SUM_ROW(16);  /* a comment after the invocation, longer than the invocation itself */
    out[i] = acc;
  }
}
"""


def test_a_finding_inside_a_macro_s_expansion_points_at_the_invocation():
    r = lint_source(MACRO_BODY, "k.cu")
    f = next(f for f in r.findings if f.code == "GM101")
    assert (f.line, f.col) == (6, 5)
    assert "`w[i * (16) + j]`" in f.message


def test_an_access_that_is_a_whole_macro_use_is_still_quoted_as_written():
    src = """#define AT(i) x[(i) * 2]
__global__ void k(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) AT(i) = 0.f;
}
"""
    f = next(f for f in lint_source(src, "k.cu").findings if f.code == "GM102")
    assert (f.line, f.col) == (4, 14) and "`AT(i)`" in f.message


EXACT_GRID = """__global__ void twice(float* y, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = 2.f * x[i];
}
void run(float* y, const float* x, int n, int w) {
  %s
}
"""


@pytest.mark.parametrize("host, warned", [
    ("dim3 threads(256);\n  dim3 grid(n / threads.x);\n  twice<<<grid, threads>>>(y, x, n);", False),
    ("twice<<<n / 256, 256>>>(y, x, n);", False),
    ("twice<<<dim3(n / 256), 256>>>(y, x, n);", False),
    ("twice<<<(n + 255) / 256, 256>>>(y, x, n);", True),                     # rounded up: overhangs
    ("twice<<<n / 256, 256>>>(y, x, n);\n  twice<<<(w + 255) / 256, 256>>>(y, x, w);", True),
    ("", True),                                                               # no launch in the file
])
def test_a_grid_that_rounds_down_has_no_overhanging_block(host, warned):
    r = lint_source(EXACT_GRID % host, "k.cu")
    assert any(f.code == "GM104" for f in r.findings) == warned


FOLDED = """__global__ void k(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float third = 1.0 / 3;
  if (i < n) x[i] = x[i] * third + x[i] * (1.0 / 3) - (2.0 * 3.0);
}
"""


def test_double_arithmetic_on_numbers_alone_is_folded_unless_it_meets_a_variable():
    lines = sorted((f.line, f.col) for f in lint_source(FOLDED, "k.cu").findings if f.code == "FP501")
    assert lines == [(4, 44), (4, 56), (4, 62)]


BRACED = """template <int BX, int BY>
__global__ void stencil(float* out, const float* in, int nx) {
  int ix = blockIdx.x * BX + threadIdx.x, iy = blockIdx.y * BY + threadIdx.y;
  if (ix < nx) out[iy * nx + ix] = in[(iy * nx +
                                       ix) * 2];
}
void run(float* out, const float* in, int nx, int ny) {
  constexpr int bx = 32, by = 4;
  dim3 grid(nx / bx, ny / by, 1);
  stencil<bx, by><<<grid, {bx, by, 1}, 0, 0>>>(out, in, nx);
}
"""


def test_a_braced_block_in_a_launch_is_read_and_messages_keep_to_one_line():
    r = lint_source(BRACED, "k.cu")
    assert not any(f.code == "PA001" for f in r.findings)
    assert [(l.kernel, l.block, l.grid_exact) for l in parse(BRACED).launches] == [("stencil", (32, 4, 1), True)]
    assert r.findings and all("\n" not in f.message for f in r.findings)


NARROW = """const int rows = 64, width = 4;
__global__ void deriv(const float* f, float* df) {
  __shared__ float s[rows + 8][width];
  int si = threadIdx.x, sj = threadIdx.y + 4;
  int g = blockIdx.y * rows * width + threadIdx.y * width + si;
  s[sj][si] = f[g];
  __syncthreads();
  if (threadIdx.y < 4) {
    s[sj - 4][si] = s[sj + rows - 4][si];
    s[sj + rows][si] = s[sj + 1][si];
  }
  __syncthreads();
  df[g] = s[sj + 1][si] - s[sj - 1][si];
}
"""


def test_a_guessed_block_is_no_wider_than_the_shared_rows_threadidx_x_indexes():
    r = lint_source(NARROW, "k.cu")
    k = r.kernels[0]
    assert k.block == (4, 64, 1) and "4 threads wide as the rows of shared s" in k.launch_source
    assert not any(f.code == "SM202" for f in r.findings)
    # a launch in the file still decides
    launched = lint_source(NARROW + "void run(const float* f, float* df) { deriv<<<64, dim3(32, 8)>>>(f, df); }", "k.cu")
    assert launched.kernels[0].block == (32, 8, 1)


BEFORE_TEMPLATE = """namespace lib {

LIB_SUPPRESS_WARNINGS

template <int BlockSize>
__global__ __launch_bounds__(BlockSize) void fill(float* out, int n) {
  int i = blockIdx.x * BlockSize + threadIdx.x;
  if (i < n) out[i] = 0.f;
}
}
"""


def test_a_macro_line_before_a_template_kernel_leaves_its_launch_bounds():
    r = lint_source(BEFORE_TEMPLATE, "k.cuh")
    assert not any(f.code == "PA001" for f in r.findings)
    assert r.kernels[0].launch_source.startswith("__launch_bounds__")
    assert preprocess(BEFORE_TEMPLATE.encode()).text.count(b"\n") == BEFORE_TEMPLATE.count("\n")


LAUNCHED_BEHIND_MACRO = """#include "attrs.h"
KERNEL_ATTR void scale(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}
void run(float* x, int n) { scale<<<(n + 255) / 256, 256>>>(x, n); }
"""


def test_a_function_the_file_launches_is_a_kernel_whatever_its_macro_qualifier():
    """`KERNEL_ATTR` from a header hides `__global__`; only a kernel can be launched with <<<>>>."""
    r = lint_source(LAUNCHED_BEHIND_MACRO, "k.cu")
    assert [k.name for k in r.kernels] == ["scale"]
    assert r.contexts[0].launch.block == (256, 1, 1)
    # not launched: host code, as before (nothing says it is device code)
    assert not lint_source(LAUNCHED_BEHIND_MACRO.split("void run")[0], "k.cu").kernels
    # an overload: the file's own kernel of that name is the one launched
    both = LAUNCHED_BEHIND_MACRO.replace("void run", "__global__ void scale(float* x) { x[threadIdx.x] = 0.0f; }\nvoid run")
    assert [k.name for k in lint_source(both, "k.cu").kernels] == ["scale"]


SET_THROUGH_ADDRESS = """\
__global__ void fill(float* out, float start, float step, long size) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < size) out[i] = start + step * i;
}
void arange(float* out, float start, float end, float step) {
  long size = 0;
  get_size(start, end, step, &size);
  fill<<<(size + 255) / 256, 256>>>(out, start, step, size);
}
"""


def test_a_host_variable_set_through_its_address_is_no_launch_constant():
    r = lint_source(SET_THROUGH_ADDRESS, "a.cu")
    assert not [n for n in r.notes if "no thread" in n]
    (k,) = r.kernels
    assert "size" in k.assumed and k.global_store_sectors_per_request == 4
    # never set again: the constant it is
    fixed = lint_source(SET_THROUGH_ADDRESS.replace("get_size(start, end, step, &size);", ""), "a.cu")
    assert [n for n in fixed.notes if "no thread" in n]


def test_address_taken_reads_unary_ampersands_only():
    from analyzer.parse import address_taken

    text = b"f(&size); x = a & mask; if (p && q) g(& n); int& r = v; y = (a)&b; z = t[1]&c; cudaMemcpy(&h, d, 4);"
    assert address_taken(text) == {b"size", b"n", b"h"}


def test_barriers_after_one_early_return_are_one_finding():
    """kaldi's Cholesky kernels return early and then meet five barriers: one cause, reported at
    the first barrier after each return with the count of the rest."""
    src = EARLY_RETURN.replace("  data[id] += buf;\n", "  data[id] += buf;\n  __syncthreads();\n"
                               "  if (threadIdx.x >= 16) return;\n  __syncthreads();\n  __syncthreads();\n")
    found = sorted((f.line, f.message) for f in lint_source(src, "k.cu").findings if f.code == "SY301")
    assert [line for line, _ in found] == [6, 10]
    assert found[0][1].endswith("; 1 more barrier after it")
    assert "(threadIdx.x >= 16)" in found[1][1] and found[1][1].endswith("; 1 more barrier after it")


# PolyBench's LU in its style: each step of a host loop launches the kernels with the step's
# counter, and sets the grid's x through its member before each launch
HOST_LOOP = """#define N 2048
__global__ void eliminate(float *A, int k) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j > k && j < N) A[k * N + j] = A[k * N + j] / A[k * N + k];
}
void run(float *A) {
  dim3 block(256);
  dim3 grid(1, 1, 1);
  for (int k = 0; k < N; k++) {
    grid.x = (N - (k + 1) + block.x - 1) / block.x;
    eliminate<<<grid, block>>>(A, k);
  }
}
"""


def test_a_host_loop_counter_launch_argument_takes_the_loop_first_value():
    """`for (int k = 0; ...) eliminate<<<...>>>(A, k)`: k was an unknown name of 4096, at which
    `j > k && j < N` holds for no thread, and the kernel's accesses went unestimated."""
    r = lint_source(HOST_LOOP, "lu.cu")
    assert not [n for n in r.notes if "no thread" in n]
    (ctx,) = r.contexts
    assert ctx.launch.args == {"k": 0}
    assert ctx.launch_source == "the launch at line 11; k = 0 as at its first launch (host code changes it between launches)"
    (k,) = r.kernels
    assert k.assumed == () and k.global_store_sectors_per_request == 4.0
    # the same loop, counter assigned in its header (`int k; for (k = 0; ...)`), steps from 1
    other = lint_source(HOST_LOOP.replace("for (int k = 0;", "int k; for (k = 1;"), "lu.cu").contexts[0]
    assert other.launch.args == {"k": 1}
    # a name that is no counter of a loop around the launch is still unknown
    outside = HOST_LOOP.replace("eliminate<<<grid, block>>>(A, k);\n  }", "}\n  eliminate<<<grid, block>>>(A, m);")
    assert lint_source(outside.replace("void run(float *A)", "void run(float *A, int m)"), "lu.cu").kernels[0].assumed == ("k",)


def test_a_dim3_set_through_its_members_is_no_constant_shape():
    """`dim3 grid(1, 1, 1); ... grid.x = ...;` before the launch: the grid was taken as one block."""
    (ctx,) = lint_source(HOST_LOOP, "lu.cu").contexts
    assert ctx.launch.grid != (1, 1, 1) and ctx.launch.block == (256, 1, 1)
    fixed = lint_source(HOST_LOOP.replace("    grid.x = (N - (k + 1) + block.x - 1) / block.x;\n", ""), "lu.cu")
    assert fixed.contexts[0].launch.grid == (1, 1, 1)
    # a block whose y is set the same way: its y is unknown, x kept (the partial block's rule)
    src = HOST_LOOP.replace("dim3 block(256);", "dim3 block(32, 8);\n  block.y = rows;").replace(
        "void run(float *A)", "void run(float *A, int rows)")
    assert lint_source(src, "lu.cu").contexts[0].launch.block[0] == 32


def test_a_host_variable_stepped_before_the_launch_is_no_launch_constant():
    """`int count = 0; for (...) if (...) count++; k<<<...>>>(count)`: count was the constant 0 (its one
    assignment); stepped before the launch, it is unknown there. Stepped after it (`++offset` in the
    loop that launches, mxnet's priors) it still holds its first value, and so does what host code
    computes from a loop's counter (Parboil's `int base = QGrid * K;`)."""
    from analyzer.parse import incremented

    text = b"for (k = 0; k < n; k++) x[i]++; --j; a-- > 0; p->q; c = a - -b; y = x + ++z; k--;"
    # each name's first operator's offset
    assert incremented(text) == {b"k": text.index(b"k++") + 1, b"j": text.index(b"--j"), b"a": text.index(b"a--") + 1,
                                 b"z": text.index(b"++z")}
    counted = HOST_LOOP.replace("  for (int k = 0; k < N; k++) {\n", "  int k = 0;\n  for (int i = 0; i < N; i++) if (A[i] > 0) k++;\n  {\n")
    assert "k" in lint_source(counted, "lu.cu").kernels[0].assumed
    after = HOST_LOOP.replace("  for (int k = 0; k < N; k++) {\n", "  int k = 0;\n  for (int i = 0; i < N; i++) {\n").replace(
        "(A, k);\n", "(A, k);\n    ++k;\n")
    assert lint_source(after, "lu.cu").contexts[0].launch.args == {"k": 0}
    derived = HOST_LOOP.replace("for (int k = 0;", "for (int step = 0;").replace("k < N; k++) {\n", "step < N; step++) {\n    int k = step * 64;\n")
    ctx = lint_source(derived, "lu.cu").contexts[0]
    assert ctx.launch.args == {"k": 0} and "k = 0 as at its first launch" in ctx.launch_source


def test_a_pointer_moved_by_a_local_of_a_grid_stride_loop_is_read_as_its_first_pass():
    """Caffe's LRN (and mmcv's three_nn): `int offset = ...; in += offset;` inside a grid-stride
    loop. The carried increment named the body's local, which was then taken for a parameter of 4096
    ("assuming offset=4096"); each pass is read as the first now, from the pointer's start. A scalar
    stepped by such a local has no closed form (it was `old + iter * 4096`)."""
    src = """
__global__ void fill_scale(const int nthreads, const float* in, const int width, float* scale) {
  for (int index = blockIdx.x * blockDim.x + threadIdx.x; index < nthreads; index += blockDim.x * gridDim.x) {
    int offset = index * 2;
    in += offset;
    scale[index] = in[0] * in[1];
  }
}
"""
    r = lint_source(src, "lrn.cu")
    (k,) = r.kernels
    assert k.assumed == ("nthreads",) and k.unknown_accesses == 0
    assert k.global_load_sectors_per_request == 8.0      # a stride of 2 floats: 256 bytes a warp
    stepped = src.replace("in += offset;\n    scale[index] = in[0] * in[1];",
                          "int j = 0;\n    for (int t = 0; t < width; ++t) { int step = t * 3; j += step; scale[j] = in[index]; }")
    (k,) = lint_source(stepped, "lrn.cu").kernels
    assert "step" not in k.assumed


def test_a_range_for_loop_body_is_walked():
    """`for (auto const& e : v) { ... }` (cuda::std::array loops, cuCollections' style): the body was
    not walked at all, so its accesses went uncounted. Its element is a value the walk cannot follow."""
    src = """
__global__ void weigh(const float* __restrict__ x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v[4] = {1.f, 2.f, 3.f, 4.f};
  float acc = 0.f;
  for (auto const& e : v) { acc += e * x[i * 4]; }
  if (i < n) y[i] = acc;
}
"""
    (k,) = lint_source(src, "r.cu").kernels
    assert k.accesses == 2 and k.unknown_accesses == 0 and k.assumed == ("n",)
    assert k.global_load_sectors_per_request == 16.0     # x[i * 4]: 4 floats apart
    # the element, read as an index, is no name of 4096
    (k,) = lint_source(src.replace("x[i * 4]", "x[i * 4 + (int)e]"), "r.cu").kernels
    assert k.assumed == ("n",)


BALL_QUERY = """
__global__ void ball_query(int n, int nsample, float radius2, const float* __restrict__ xyz, int* __restrict__ idx) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0, cnt = 0; k < n && cnt < nsample; ++k) {
    float x = xyz[k * 3 + 0];
    if (x * x < radius2) {
      idx[j * nsample + cnt] = k;
      ++cnt;
    }
  }
}
"""


def test_a_for_header_declaring_two_variables_compared_together():
    """`for (int k = 0, cnt = 0; k < n && cnt < nsample; ++k)` (PointNet++'s ball query, copied into
    many point-cloud projects): the condition compares no single variable, and the last declared
    (`cnt`) was taken for the loop's, leaving `k` undefined ("assumed k=4096") and no thread reaching
    the loads. The loop's variable is the one the update moves; the other is a variable of the loop."""
    (k,) = lint_source(BALL_QUERY, "bq.cu").kernels
    assert "k" not in k.assumed and set(k.assumed) == {"n", "nsample"}
    # the load every lane makes at the same k: one sector a request; the store's slot is data-dependent
    assert k.global_load_sectors_per_request == 1.0
    assert k.accesses == 2 and k.unknown_accesses == 1
    # written with the loop's variable alone in the header, the same reading
    single = BALL_QUERY.replace("for (int k = 0, cnt = 0;", "int cnt = 0;\n  for (int k = 0;")
    (s,) = lint_source(single, "bq.cu").kernels
    assert (s.assumed, s.global_load_sectors_per_request, s.unknown_accesses) == \
        (k.assumed, k.global_load_sectors_per_request, k.unknown_accesses)


def _codes(src: str, code: str) -> list[tuple[int, str]]:
    return [(f.line, f.message) for f in lint_source(src, "k.cu").findings if f.code == code]


def test_a_double_literal_passed_as_an_argument_is_no_fp64_arithmetic():
    """Ray tracers' vec3 code (`vec3 center(a + RND, 0.2, b + RND)`, `new sphere(center, 0.2, ...)`,
    `vec3(0, -1000.0, -1)`): the literal was read inside the argument list's text, where a neighbour's
    `+` (or its own `-`) looked like FP64 arithmetic (FP501). Passed alone it is converted to the
    parameter's type at compile time; in arithmetic inside an argument it still counts."""
    src = """
__global__ void scene(float* out, sphere** list) {
  int i = threadIdx.x;
  float a = out[i];
  vec3 center(a + 1.0f, 0.2, a);
  list[i] = new sphere(center, 0.2, vec3(0, -1000.0, -1));
  out[i] = center.x();
}
"""
    assert _codes(src, "FP501") == []
    mixed = src.replace("vec3 center(a + 1.0f, 0.2, a);", "vec3 center(a * 0.2, 0.2, a);")
    (hit,) = _codes(mixed, "FP501")
    assert hit[0] == 5 and "`a * 0.2`" in hit[1]


def test_a_lane_zero_store_inside_a_loop_every_thread_runs_is_no_serial_loop():
    """Furthest point sampling (PointNet++, copied into many point-cloud projects): `if (threadIdx.x
    == 0) idxs[0] = old;` before a loop that every thread runs, and `if (tid == 0) idxs[j] = old;`
    inside it. The inner condition equals the outer one, and DV402 took the whole loop for one run
    by lane 0 alone; a loop counts only inside the branch's own lines."""
    src = """
__global__ void fps(int n, int m, const float* __restrict__ data, float* __restrict__ temp, int* __restrict__ idxs) {
  int tid = threadIdx.x;
  if (threadIdx.x == 0)
    idxs[0] = 0;
  __syncthreads();
  for (int j = 1; j < m; j++) {
    temp[j * 256 + tid] = data[j * 256 + tid];
    if (tid == 0)
      idxs[j] = j;
  }
}
"""
    assert _codes(src, "DV402") == []
    # the same loop inside the lane-0 branch is one
    serial = src.replace("if (threadIdx.x == 0)\n    idxs[0] = 0;\n  __syncthreads();\n  for", "if (threadIdx.x == 0)\n  for")
    (hit,) = _codes(serial, "DV402")
    assert hit[0] == 5 and "only one lane of the block runs the loop at line 5" in hit[1]


CONTRACT = """
__global__ void contract(const int n, const float* samples, float* out) {
  CUDA_GET_THREAD_ID(i, n);
  samples += i * 3;
  out += i * 3;
  const float x = samples[0], y = samples[1], z = samples[2];
  out[0] = x * 0.5f;
  out[1] = y * 0.5f;
  out[2] = z * 0.5f;
}
"""


def test_a_thread_index_macro_of_nerf_headers():
    """nerfacc's and Plenoxels' `CUDA_GET_THREAD_ID(i, n);` (their helpers_cuda.h, seldom beside the
    file) declares the thread's index and returns past the end. Unexpanded, `i` was a name of 4096,
    the same in every lane, and the stride-3 records it indexes read as one sector a request."""
    (k,) = lint_source(CONTRACT, "c.cu").kernels
    assert k.assumed == ("n",) and k.unknown_accesses == 0
    assert k.global_load_sectors_per_request == 12.0        # 12-byte records: 384 bytes a warp
    # a file that defines the macro itself is read by its own definition, not this one
    own = "#define CUDA_GET_THREAD_ID(tid, Q) const int tid = 0\n" + CONTRACT
    (k,) = lint_source(own, "c.cu").kernels
    assert k.global_load_sectors_per_request != 12.0


def test_the_fields_of_one_record_a_lane_are_one_finding():
    """Point-cloud, graphics and physics code reads `p[3 * i]`, `p[3 * i + 1]`, `p[3 * i + 2]` (or
    moves `p` to the record first): each access alone is 3x the sectors of a coalesced one, and
    GM101 said so three times. They read the same sectors between them, and one change (a wide
    load a record, or struct-of-arrays) fixes all: one finding names them, and counts them all
    for the reward's features."""
    from rewardmodel.features import extract

    r = lint_source(CONTRACT, "c.cu")
    loads = [f for f in r.findings if f.code == "GM101"]
    stores = [f for f in r.findings if f.code == "GM102"]
    assert len(loads) == len(stores) == 1
    (f,) = loads
    assert (f.line, f.estimate["accesses"]) == (6, 3)
    assert "`samples[0]`, `samples[1]`, `samples[2]`" in f.message and "12-byte record" in f.message
    assert "read 12 of each 12 bytes" in f.message
    feat = extract(CONTRACT, "contract", grid=(64, 1, 1), block=(256, 1, 1), args={"n": 16384})
    assert feat.values["n_GM101"] == 3 and feat.values["n_GM102"] == 3
    # two fields of the three: what they leave unread is said
    (f,) = [f for f in lint_source(CONTRACT.replace(", z = samples[2]", ", z = 1.f"), "c.cu").findings
            if f.code == "GM101"]
    assert f.estimate["accesses"] == 2 and "read 8 of each 12 bytes" in f.message
    # records of different arrays, or far apart (a lane's next record), stay apart
    apart = CONTRACT.replace("samples[1]", "samples[3 * 4096]")
    assert len([f for f in lint_source(apart, "c.cu").findings if f.code == "GM101"]) == 2


def test_no_wider_load_is_suggested_for_an_array_of_structs_of_unknown_size():
    """`curandState st = states[i];` (a 48-byte struct from a header) and `Pack2X<T>` records were
    taken as 4-byte elements, and GM103 suggested reading four at a time as one 16-byte load."""
    src = """
__global__ void noise(float* out, const curandState* states, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    curandState st = states[i];
    out[i] += curand_uniform(&st);
  }
}
"""
    hits = [f for f in lint_source(src, "n.cu").findings if f.code == "GM103"]
    assert [f.estimate["array"] for f in hits] == ["out"]


def test_a_load_and_store_of_one_element_over_two_lines_is_one_unchecked_place():
    """`C[row * N + col] =\\n    alpha * acc + beta * C[row * N + col];` (SGEMM tutorials): the store and
    the load of the same element are one omission of a bounds check, and GM104 reported it at both
    lines. A second element left unchecked is still reported."""
    src = """
__global__ void gemm_tail(int N, float alpha, float beta, const float* A, float* C) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.f;
  for (int k = 0; k < N; ++k) acc += A[row * N + k];
  C[row * N + col] =
      alpha * acc + beta * C[row * N + col];
}
"""
    hits = _codes(src, "GM104")
    assert [line for line, _ in hits] == [7]
    other = src.replace("beta * C[row * N + col]", "beta * C[row * N + col + 1]")
    assert [line for line, _ in _codes(other, "GM104")] == [7, 8]


TILE_ROWS = """
template <int BM, int TM>
__global__ void tile_rows(const float* A, float* out) {
  __shared__ float As[256];
  const int row = threadIdx.x / (BM / TM);
  As[threadIdx.x] = A[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  float acc = 0.f;
  for (int i = 0; i < TM; ++i) acc += As[row * TM + i];
  out[blockIdx.x * 256 + threadIdx.x] = acc;
}
"""


def test_tile_sizes_of_a_template_no_file_instantiates_are_not_guessed():
    """SGEMM tutorials' kernels (`template <const int BM, const int BN, const int BK, const int TM, const
    int TN>`) are instantiated in another file. Their tile sizes took the 4096 of an unknown size:
    `threadIdx.x / (BN / TN)` became `threadIdx.x`, and shared reads of a row a thread group shares
    32-way conflicts that do not exist. Accesses whose address depends on such values are not judged
    (GM101/GM102/SM201); a note names the values and how to give them, and given, they are judged."""
    r = lint_source(TILE_ROWS, "tiles.cu")
    assert not [f for f in r.findings if f.code in ("SM201", "GM101", "GM102")]
    (note,) = r.notes
    assert "1 access not judged" in note and "template values BM, TM" in note
    assert "`// cudaperf: launch tile_rows<...>`" in note and "`--arg BM=...`" in note
    # given (an instantiation, or --arg), the read is judged: 8 lanes a row, rows 8 words apart, no conflict
    for given in (lint_source(TILE_ROWS, "tiles.cu", kernels=["tile_rows<64, 8>"]),
                  lint_source("// cudaperf: launch tile_rows<64, 8> block=256\n" + TILE_ROWS, "tiles.cu")):
        assert given.notes == [] and given.findings == []
        (k,) = given.kernels
        assert k.shared_load_wavefronts_per_request == k.shared_load_ideal
    # a row a lane, 32 words long: a 32-way conflict, found
    (f,) = lint_source(TILE_ROWS, "tiles.cu", kernels=["tile_rows<32, 32>"]).findings
    assert f.code == "SM201" and f.line == 9


CHUNK16 = """
__global__ void chunk_sum(const int* in, int* out, int n) {
  int sum = 0;
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = idx * 16; i < n; i += blockDim.x * gridDim.x * 16) {
    sum += in[i] + in[i + 1] + in[i + 2] + in[i + 3];
  }
  atomicAdd(out, sum);
}
"""


def test_a_chunk_a_thread_loop_that_the_sampled_block_skips_is_estimated_on_the_first_block():
    """HeCBench's atomic reductions (`for (i = idx * 16; i < n; ...)`): from block 1 of the guessed
    grid on, every thread's first element is past the assumed n = 4096, so the loop's loads had no
    estimate, without a note, while the atomic after it had one. Where some accesses (all in loops)
    are skipped so, the kernel is estimated on a grid of one block, whose threads start lowest; its
    four loads, the fields of a 64-byte chunk a lane, are one finding."""
    r = lint_source(CHUNK16, "chunk.cu")
    (k,) = r.kernels
    assert k.grid == (1, 1, 1) and "block 1 of the guessed" in k.launch_source
    assert k.global_load_sectors_per_request == 32.0
    (f,) = [f for f in r.findings if f.code == "GM101"]
    assert f.estimate["accesses"] == 4 and "64-byte record a lane" in f.message and "read 16 of each 64 bytes" in f.message
    # a launch that gives the grid is taken as given
    launched = CHUNK16 + "void run(const int* in, int* out, int n) { chunk_sum<<<1024, 256>>>(in, out, n); }\n"
    (k,) = lint_source(launched, "chunk.cu").kernels
    assert k.grid == (1024, 1, 1)


def test_an_in_place_shared_max_that_overwrites_a_neighbours_read_is_a_race():
    """Furthest point sampling in pytorch_cluster: `if (t + i < THREADS && best[t] < best[t + i]) best[t] =
    best[t + i];` after one barrier an iteration. Thread t overwrites best[t] while thread t - i may
    not have read it yet: SM202 looked only for reads after writes. A warp-synchronous reduction, whose
    steps race both ways, still gets one finding a step (its reads')."""
    src = """
#define THREADS 256
__global__ void argmax_inplace(const float* in, float* out) {
  __shared__ float best[THREADS];
  int t = threadIdx.x;
  best[t] = in[blockIdx.x * THREADS + t];
  for (int i = 1; i < THREADS; i *= 2) {
    __syncthreads();
    if ((t + i) < THREADS && best[t] < best[t + i]) {
      best[t] = best[t + i];
    }
  }
  __syncthreads();
  if (t == 0) out[blockIdx.x] = best[0];
}
"""
    (hit,) = _codes(src, "SM202")
    assert hit[0] == 10 and "overwrite an element another thread reads at line 9" in hit[1]
    # read into a register, a barrier, then the write: no race
    fixed = src.replace("""    if ((t + i) < THREADS && best[t] < best[t + i]) {
      best[t] = best[t + i];
    }""", """    float other = (t + i) < THREADS ? best[t + i] : best[t];
    __syncthreads();
    if (best[t] < other) best[t] = other;""")
    assert _codes(fixed, "SM202") == []
    warp = """
__global__ void warp_sum(const float* in, float* out) {
  __shared__ volatile float s[64];
  int t = threadIdx.x;
  s[t] = in[t];
  __syncthreads();
  if (t < 32) {
    s[t] += s[t + 32];
    s[t] += s[t + 16];
    s[t] += s[t + 8];
  }
  if (t == 0) out[blockIdx.x] = s[0];
}
"""
    assert [line for line, _ in _codes(warp, "SM202")] == [9, 10]


def test_an_sfinae_pointer_template_parameter_parses():
    """`template <typename T, typename std::enable_if<std::is_same<T, float>::value>::type* = nullptr>`
    (an overload for float only, OneFlow-style fast atomics): the grammar reads `::type = 0` but not the
    `*` before `= nullptr`, and PA001 reported the line. The `*` is blanked for the parse."""
    src = """
template <typename T, typename std::enable_if<std::is_same<float, T>::value>::type* = nullptr>
__device__ __forceinline__ void add_to(T* base, size_t offset, T value) { atomicAdd(base + offset, value); }
template <typename T, std::enable_if_t<!std::is_same<float, T>::value>* = nullptr>
__device__ __forceinline__ void add_to(T* base, size_t offset, T value) { base[offset] += value; }
__global__ void scatter(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) add_to(out, (size_t)i, in[i]);
}
"""
    pre = preprocess(src.encode())
    assert len(pre.text) == len(src.encode()) and b"::type  = nullptr" in pre.text
    p = parse(src)
    assert not p.errors and {f.name for f in p.functions} == {"add_to", "scatter"}
    assert _codes(src, "PA001") == []


def test_a_variable_a_header_macro_declares_is_unknown_not_a_size():
    """`GET_RAY_INDEX(i, n);` from an unseen header declares `i` (as nerfacc's CUDA_GET_THREAD_ID does,
    which is known by name): `i` was a name of 4096, the same in every lane, so its strided records
    read as one sector a request. A name a capitalized statement macro is given before anything
    declares it is unknown now; a parameter, a constant or a declared variable passed to one is not."""
    src = """
__global__ void gather(const int n, const float* samples, float* out) {
  GET_RAY_INDEX(i, n);
  samples += i * 3;
  out[i] = samples[0];
}
"""
    (k,) = lint_source(src, "g.cu").kernels
    assert "i" not in k.assumed and k.unknown_accesses == k.accesses == 2
    declared = src.replace("GET_RAY_INDEX(i, n);", "int i = blockIdx.x * blockDim.x + threadIdx.x;\\n  CHECK_INDEX(i, n);")
    (k,) = lint_source(declared, "g.cu").kernels
    assert k.unknown_accesses == 0 and k.global_load_sectors_per_request == 12.0


def test_a_write_after_a_loop_is_not_checked_against_the_loops_first_pass():
    """MAGMA's prefix sum: the up-sweep above, then `if (tid == 0) temp[N - 1] = 0;`. In the last pass
    only thread 0 reads temp[N - 1], the one that then writes it; SM202's write-over-read check took
    the loop's reads at their first pass (thread 255 reading it) and reported a race that cannot
    happen. Reads in a loop whose passes a barrier splits are not paired with a write after it; a
    read loop without a barrier in it still is (below)."""
    src = (UPSWEEP % 0).replace("sums[blockIdx.x] = temp[N - 1];", "temp[N - 1] = 0.f;")
    assert "temp[N - 1] = 0.f;" in src and _codes(src, "SM202") == []


def test_a_write_after_a_read_loop_with_no_barrier_in_it_is_still_checked():
    """exllamav2's head norm: every thread sums the warps' partial sums (`for (i ...) sum += sums[i];`)
    after a barrier, then lane 0 of each warp writes its next partial `sums[warp_id]` with only
    shuffles between: a slow warp may still be reading. The read loop holds no barrier, so any of its
    passes shares the write's interval."""
    src = """
__global__ void two_pass_norm(const float* x, float* y) {
  __shared__ float sums[8];
  int t = threadIdx.x, warp_id = t / 32, lane = t % 32;
  float v = x[blockIdx.x * 256 + t];
  float s = v;
  for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffff, s, o);
  if (lane == 0) sums[warp_id] = s;
  __syncthreads();
  float total = 0.f;
  for (int i = 0; i < 8; ++i) total += sums[i];
  float d = v - total / 256.f;
  float q = d * d;
  for (int o = 16; o > 0; o /= 2) q += __shfl_xor_sync(0xffffffff, q, o);
  if (lane == 0) sums[warp_id] = q;
  y[blockIdx.x * 256 + t] = d;
}
void run(const float* x, float* y) { two_pass_norm<<<64, 256>>>(x, y); }
"""
    (hit,) = _codes(src, "SM202")
    assert hit[0] == 15 and "reads at line 11" in hit[1]


def test_an_atomic_on_an_address_the_walk_cannot_read_is_no_contended_one():
    """SPH grid binning (`atomicAdd(&counters[cell], 1)` with `cell = getCellIndex(particles[i].position,
    ...)`, Particle and getCellIndex from headers): the member of a struct the file does not define is
    unknown, and an unknown argument made the call's result the same for every thread, so GM105 said
    32 lanes hit one address. An unknown argument makes the result unknown; an address the walk cannot
    read is not one address."""
    src = """
__global__ void bin(const Particle* particles, int n, float cell_size, int* counters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int cell = getCellIndex(particles[i].position, cell_size);
    atomicAdd(&counters[cell], 1);
    atomicAdd(&counters[particles[i].cell], 1);
  }
}
"""
    assert _codes(src, "GM105") == []
    # one address for all, still found
    (hit,) = _codes(src.replace("atomicAdd(&counters[cell], 1);", "atomicAdd(&counters[0], 1);"), "GM105")
    assert hit[0] == 6


def test_an_index_read_from_memory_is_not_the_thread_id_gm104_blames():
    """BFS frontier expansion: `v = queue[tid + 1]; b = begin[v];` GM104 said `begin[v]` was indexed by
    the global thread id (the load's own index is); the unchecked access is the read of queue."""
    src = """
__global__ void expand(const int* queue, const int* begin, const int* len, const int* adj, int* visited, int off) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x + off;
  int v = queue[tid + 1];
  int b = begin[v];
  for (int i = 0; i < len[v]; i++) visited[adj[b + i]] = 1;
}
"""
    assert [line for line, _ in _codes(src, "GM104")] == [4]


def test_fp501_says_a_math_h_constant_is_a_double_too():
    """`__cosf((2.0 * M_PI * k) / m)` in float FFT code: FP501 said to write `2.0f`, after which
    `2.0f * M_PI` still computes in FP64 (M_PI is a double). The message says so."""
    src = """
__global__ void twiddle(float2* t, int m) {
  int k = threadIdx.x;
  t[k].x = __cosf((2.0 * M_PI * k) / m);
}
"""
    (hit,) = _codes(src, "FP501")
    assert "write `2.0f`, and `(float)M_PI` (M_PI is a double too)" in hit[1]


HEADER_PARAMS = """#include "params.h"
__global__ void scale(Params p, const Args* __restrict__ q, float a) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    hash_t local;
    local.words[i % 4] = 1u;
    if (i < p.n) p.y[i * 32] = a * p.x[i] + q->w[i];
}
"""


def test_buffers_in_a_parameter_struct_from_a_header_are_global_accesses():
    """`p.x[i]` where `Params` comes from a header (a kernel's parameter struct carrying its
    buffers): the access was dropped, with no estimate and no finding. A subscripted member of
    the kernel's parameter, or through a pointer to such a struct, is global memory of 4-byte
    elements now, with a note; a local's members are its own (`hash_t local`: not global)."""
    r = lint_source(HEADER_PARAMS, "k.cu")
    ctx = r.contexts[0]
    got = {(a.array, a.kind, a.space) for a in ctx.accesses.accesses}
    assert {("p.x", "load", "global"), ("p.y", "store", "global"), ("q.w", "load", "global")} <= got
    assert not any(a.array.startswith("local") and a.space == "global" for a in ctx.accesses.accesses)
    assert [(f.code, f.line) for f in r.findings if f.code in ("GM101", "GM102")] == [("GM102", 6)]
    assert any("`p`'s type Params is not defined in the file" in n for n in ctx.accesses.notes)
    assert all(a.elem_type == "?" for a in ctx.accesses.accesses if a.array in ("p.x", "p.y", "q.w"))


RADIX_GUARD = """#define RADIX 256
__global__ void k(unsigned *flags, unsigned *out, unsigned part) {
    __shared__ unsigned s[RADIX];
    if (threadIdx.x < RADIX) {
        if (part & 1) {
            while (flags[threadIdx.x] == 0) { __threadfence(); }
            __syncthreads();
        }
        s[threadIdx.x] = flags[threadIdx.x];
    }
    __syncthreads();
    out[blockIdx.x * RADIX + threadIdx.x] = s[threadIdx.x];
}
"""


@pytest.mark.parametrize("launch, fires", [
    ("void go(unsigned *f, unsigned *o, int n) { k<<<n, RADIX>>>(f, o, 1u); }\n", False),   # every thread
    ("void go(unsigned *f, unsigned *o, int n) { k<<<n, 512>>>(f, o, 1u); }\n", True),      # half skip it
    ("", True),     # no launch: the default block is a guess, the condition may split a larger one
])
def test_a_barrier_under_a_thread_bound_that_the_known_block_meets_whole(launch, fires):
    """`if (threadIdx.x < RADIX) { ... __syncthreads(); }` launched with RADIX threads: every thread
    of the block reaches the barrier (GPUSorting's emulated deadlocking sort). SY301 said some skip it."""
    hits = _codes(RADIX_GUARD + launch, "SY301")
    assert bool(hits) == fires


ROWS_OF_BLOCKS = """
__global__ void row_copy(const long *tokens, long *out, int row_len) {
    int row = blockIdx.x, col = threadIdx.x;
    out[row * row_len + col] = tokens[row * row_len + col];
}
__global__ void flat(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    y[i] = 2.0f * x[i];
}
__global__ void rows(const float *x, float *y, int w) {
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    y[r * w + threadIdx.x] = x[r * w + threadIdx.x];
}
"""


def test_a_block_per_row_is_no_global_thread_index():
    """`out[blockIdx.x * row_len + threadIdx.x]` (fairseq's n-gram blocking: one block per row, its
    threads the row's columns): the grid counts rows, no last block overhangs, and GM104 said one did.
    A global thread index, also one scaled by a row stride, is still checked."""
    r = lint_source(ROWS_OF_BLOCKS, "r.cu")
    assert sorted(f.kernel for f in r.findings if f.code == "GM104") == ["flat", "rows"]


SERIAL_NGRAM = """
__global__ void ban(const long *tokens, float *lprobs, int max_len, int ngram) {
    extern __shared__ long sh[];
    int col = threadIdx.x;
    sh[col] = tokens[blockIdx.x * max_len + col];
    if (col == blockDim.x - 1)
        for (int i = 1; i < ngram; i++)
            sh[col + i] = tokens[blockIdx.x * max_len + col + i];
    __syncthreads();
    lprobs[blockIdx.x * max_len + col] = (float)sh[col + ngram - 1];
}
"""


def test_a_serial_loop_s_trip_count_from_an_assumed_size_says_so():
    """DV402 on `for (i = 1; i < ngram; i++)` run by one lane: ~4095 iterations came from ngram's
    assumed 4096 (an n-gram length, 2-4 in practice); the message now says the count is a guess."""
    (f,) = [f for f in lint_source(SERIAL_NGRAM, "s.cu").findings if f.code == "DV402"]
    assert "at the assumed ngram=4096" in f.message and "fewer than 32 iterations would be harmless" in f.message


SHARED_TABLE = """
__device__ unsigned round_body(const unsigned* K, unsigned x) {
  x += K[0]; x ^= K[1]; x += K[2]; x ^= K[3];
  x += K[4];
  x ^= K[5];
  return x;
}
__global__ void rounds(const unsigned* table, unsigned* out) {
  __shared__ unsigned s_K[64];
  if (threadIdx.x < 64) s_K[threadIdx.x] = table[threadIdx.x];
  out[blockIdx.x * blockDim.x + threadIdx.x] = round_body(s_K, threadIdx.x);
}
void go(const unsigned* t, unsigned* o) { rounds<<<16, 128>>>(t, o); }
"""


def test_one_missing_barrier_before_a_table_s_many_reads_is_one_finding():
    """ccminer's sha256t fills a shared table of round constants and reads it, in a device function,
    with no barrier between: SM202 said so 78 times, once a read line. One finding a write now, at the
    first read, naming the other reads' lines; the reward's count of racing read lines is unchanged."""
    (f,) = [f for f in lint_source(SHARED_TABLE, "t.cu").findings if f.code == "SM202"]
    assert f.line == 3 and "write at line 10" in f.message and "so may the reads at lines 4, 5" in f.message
    assert f.estimate["accesses"] == 3       # a read line each, as the findings were


ACCESSORS = """#include <torch/extension.h>
using Acc1 = torch::PackedTensorAccessor32<int, 1, torch::RestrictPtrTraits>;
__global__ void pairs(int n, const torch::PackedTensorAccessor32<float, 2, torch::RestrictPtrTraits> pos,
                      float cut2, Acc1 counter) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= pos.size(0)) return;
    float dx = pos[i][0] - pos[0][0];
    if (dx * dx > cut2) return;
    atomicAdd(&counter[0], 1);
}
__global__ void columns(at::PackedTensorAccessor64<double, 2> out) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    for (int r = 0; r < out.size(0); ++r) out[r][c] = 0.0;
}
void go(int n, torch::PackedTensorAccessor32<float, 2, torch::RestrictPtrTraits> p, float c, Acc1 k) {
    pairs<<<(n + 127) / 128, 128>>>(n, p, c, k);
}
"""


def test_pytorch_tensor_accessors_are_row_major_arrays():
    """NNPOps' neighbour pairs and pytorch3d's ball query index `PackedTensorAccessor` parameters
    (`pos[i][0]`, `atomicAdd(&counter[0], 1)`): their subscripts were dropped, no access, no note, and
    a shared counter's atomic (GM105) went unseen. An accessor is global memory of its element type,
    row-major, each dimension after the first of the size `acc.size(d)` (assumed where not given)."""
    r = lint_source(ACCESSORS, "a.cu")
    pairs, columns = r.contexts
    assert {(a.array, a.kind, a.elem_size) for a in pairs.accesses.accesses} >= {("pos", "load", 4), ("counter", "atomic", 4)}
    codes = {(f.code, f.kernel, f.line) for f in r.findings}
    assert ("GM105", "pairs", 9) in codes
    (gm101,) = [f for f in r.findings if f.code == "GM101"]
    assert gm101.line == 7 and "pos.size(1)=4096" in gm101.message    # a row of pos per lane: 3 floats in fact
    # the last dimension is contiguous: out[r][c] with c the thread is coalesced 8-byte stores
    (est,) = [e for a, e in zip(columns.accesses.accesses, columns.estimates) if a.array == "out"]
    assert est.per_request == est.ideal_per_request == 8.0


STRUCT_SIZES = """#include "params.h"
template <bool DA>
static __device__ void interpolate(const InterpolateParams p) {
    int px = blockIdx.x * blockDim.x + threadIdx.x, py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= p.width || py >= p.height) return;
    int pidx = px + p.width * py;
    ((float4*)p.out)[pidx] = ((const float4*)p.rast)[pidx];
}
__global__ void interpolate_fwd(const InterpolateParams p) { interpolate<false>(p); }
__global__ void strided(const float* in, float* out, longlong4 strides) {
    out[threadIdx.x * strides.w] = in[threadIdx.x];
}
"""


def test_sizes_in_a_parameter_struct_are_sizes():
    """nvdiffrast's `pidx = px + p.width * py` (p the kernel's parameter struct, from a header, passed
    on to an inlined function): `p.width` was an opaque value and every access through pidx had no
    estimate. A scalar member of the kernel's struct parameter is a size like a scalar parameter's,
    assumed where nothing gives it; a vector type's members (`longlong4 strides`) stay unknown."""
    r = lint_source(STRUCT_SIZES, "p.cu")
    fwd, strided = r.contexts
    ests = {a.array: e for a, e in zip(fwd.accesses.accesses, fwd.estimates)}
    assert ests["p.out"] is not None and ests["p.out"].per_request == ests["p.out"].ideal_per_request == 16.0
    assert "p.width" in ests["p.rast"].assumed
    assert [e for a, e in zip(strided.accesses.accesses, strided.estimates) if a.array == "out"] == [None]


FLOAT4_FIELDS = """
__global__ void area(float *out, const float4 *b, const float3 *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float x0 = b[i].x, y0 = b[i].y, x1 = b[i].z, y1 = b[i].w;
    out[i] = (x1 - x0) * (y1 - y0) + c[i].x + c[i].y + c[i].z;
  }
}
void go(float *o, const float4 *b, const float3 *c, int n) { area<<<(n + 255) / 256, 256>>>(o, b, c, n); }
"""


def test_all_fields_of_a_float4_element_are_one_wide_load():
    """maskrcnn's box_iou reads `box2[k].x` ... `.w` of a `float4*`: nvcc makes one 16-byte load
    (ld.global.v4.f32), coalesced, and GM101 called the four 4-byte loads uncoalesced. A float3
    (12 bytes, no 16-byte alignment) is three loads: still reported."""
    (f,) = [f for f in lint_source(FLOAT4_FIELDS, "b.cu").findings if f.code == "GM101"]
    assert "`c[i].x`" in f.message and f.estimate["accesses"] == 3
    # box_iou's own form: the element's index no polynomial (`i % N`), each field on its line
    modulo = FLOAT4_FIELDS.replace("int i = blockIdx.x * blockDim.x + threadIdx.x;",
                                   "int i = (blockIdx.x * blockDim.x + threadIdx.x) % n;")
    hits = [f for f in lint_source(modulo, "b.cu").findings if f.code == "GM101"]
    assert hits and not any("`b[i]" in f.message for f in hits)      # c's three still are
    strided = FLOAT4_FIELDS.replace("b[i].", "b[2 * i].")      # every other element: 2x the sectors, reported
    assert any("`b[2 * i].x`" in f.message for f in lint_source(strided, "b.cu").findings if f.code == "GM101")


IF_SELECTED = """#define USE_SMALL 0
#define USE_BIG 1
#define ENABLE_BF16
#if USE_BIG
#define NT 128
#endif
#if USE_SMALL
#define NT 16
#endif
#if defined(ENABLE_BF16)
typedef __nv_bfloat16 floatX;
#else
typedef float floatX;
#endif
#ifdef FROM_THE_COMMAND_LINE
#define OTHER 64
#endif
__global__ void scale(floatX *p) { p[blockIdx.x * NT + threadIdx.x] *= 2; }
void launch(floatX *p, int blocks) { scale<<<blocks, NT>>>(p); }
"""


def test_an_if_s_branch_the_file_s_own_macros_select_is_the_one_read():
    """SpeedCodeBench's FFT sizes and llm.c's `floatX` come from `#if` branches the file's own macros
    select; every branch was read, and the last `#define` (or typedef) won: a 16-thread block (OC603)
    where the real one is 128, 4-byte elements for bf16. A condition on a name the file does not
    define (a -D flag) still reads every branch."""
    from analyzer.parse import parse

    p = parse(IF_SELECTED)
    assert p.constants["NT"] == 128 and p.resolve_type("floatX") == "__nv_bfloat16"
    assert [l.block for l in p.launches] == [(128, 1, 1)]
    assert p.constants.get("OTHER") == 64      # unknown condition: read as before


@pytest.mark.parametrize("src, flagged", [
    ("__global__ void k(float *t, int n) { t[blockIdx.x * n + threadIdx.x] = 1e38; }", False),     # a store
    ("__global__ void k(float *b, int n) { int i = threadIdx.x; auto v = b[i]; b[i] = 1. - v; }", False),
    ("__global__ void k(float *b, int n) { int i = threadIdx.x; auto v = b[i] * 2; b[i] = 0.1 * v; }", True),
])
def test_fp501_on_a_stored_constant_and_an_auto_float(src, flagged):
    """pointnet2's `temp[b * n + j] = 1e38;` stores a constant nvcc converts (no FP64: the index's
    arithmetic made it look like some), and SSD's `auto v = bbox[2]; 1. - v` is FP32 as `float v` is."""
    assert bool(_codes(src, "FP501")) == flagged


SHFL_NEIGHBOUR = """
__global__ void k(unsigned *out) {
    __shared__ unsigned s[256];
    s[threadIdx.x] = out[blockIdx.x * 256 + threadIdx.x];
    __syncthreads();
    unsigned lane = threadIdx.x & 31;
    if (lane != 0)
        s[threadIdx.x] += __shfl_sync(0xfffffffeu, s[threadIdx.x - 1], 1);
    __syncthreads();
    out[blockIdx.x * 256 + threadIdx.x] = s[threadIdx.x];
}
void launch(unsigned *o, int n) { k<<<n, 256>>>(o); }
"""


def test_a_warp_collective_orders_its_lanes_reads_before_their_writes():
    """GPUSorting's `s[t] += __shfl_sync(m, s[t - 1], 1)` under `lane != 0`: every lane reads s[t - 1]
    for the shuffle, which returns only when all have, before any writes s[t]; SM202 called it a
    write over another thread's read. Across warps nothing orders them: without the `lane != 0`,
    lane 0 reads the element the last lane of the warp before writes, and the race is reported."""
    assert _codes(SHFL_NEIGHBOUR, "SM202") == []
    across = SHFL_NEIGHBOUR.replace("    if (lane != 0)\n", "    if (threadIdx.x > 0)\n")
    assert len(_codes(across, "SM202")) == 1
    # GPUSorting's own spelling: a header's lane helper, `getLaneId()`, is the lane
    helper = SHFL_NEIGHBOUR.replace("    if (lane != 0)\n", "    if (getLaneId())\n")
    assert _codes(helper, "SM202") == []


def test_other_writer_of_another_warp_agrees_with_a_loop():
    import numpy as np
    from analyzer.rules.shared import _other_writer

    rng = np.random.default_rng(0)
    for _ in range(300):
        n = int(rng.integers(1, 128))
        sa, la = rng.integers(0, 40, n), rng.integers(0, 40, n)
        writers = np.flatnonzero(rng.random(n) < 0.7)
        readers = np.flatnonzero(rng.random(n) < 0.7)
        want = any(sa[w] == la[t] and w // 32 != t // 32 for t in readers for w in writers)
        assert _other_writer(sa, writers, la, readers, warps_apart=True) == want


NEXT_PASS = """
__global__ void pick(const float *v, int *out, int m) {
  __shared__ int s_idx[512];
  int old = 0;
  for (int j = 1; j < m; j++) {
    s_idx[threadIdx.x] = (int)v[old * 512 + threadIdx.x];
    __syncthreads();
    old = s_idx[0];
    if (threadIdx.x == 0) out[j] = old;
  }
}
void launch(const float *v, int *o, int m) { pick<<<1, 512>>>(v, o, m); }
"""


def test_a_loop_with_one_barrier_races_with_its_next_pass():
    """pointnet2's furthest point sampling (both ports) and a stencil's grid-stride loop: the shared
    reads after the loop's only barrier and the next pass's writes before it share an interval, so
    thread 0 may overwrite s[0] while a slower warp still reads it. A second barrier at the loop's end
    orders them."""
    (hit,) = _codes(NEXT_PASS, "SM202")
    assert hit[0] == 6 and "next pass of the loop at line 5" in hit[1] and "reads at line 8" in hit[1]
    fixed = NEXT_PASS.replace("    if (threadIdx.x == 0) out[j] = old;\n",
                              "    if (threadIdx.x == 0) out[j] = old;\n    __syncthreads();\n")
    assert _codes(fixed, "SM202") == []


BRACE_INIT = """
__global__ void pipe(float *x, int n) {
    extern __shared__ float s_buffer[];
    const int tx { static_cast<int>(threadIdx.x) };
    float *s_out { s_buffer };
    float4 first { 1.f };
    s_out[tx] = 0.f;
    __syncthreads();
    for (int i = 0; i < n; i++) {
        float v = (tx == 0) ? x[i] : s_out[tx - 1];
        s_out[tx] = v * 0.5f + first.x;
    }
}
"""


def test_brace_initialized_locals_have_their_value():
    """cuSignal's `const int tx { static_cast<int>(threadIdx.x) };` and `T *s_out { s_buffer };`: a
    braced initializer left the local opaque and every access through it unresolved (a systolic
    race, SM202, went unseen). One value in braces (or parentheses) of a scalar or pointer is its
    value; a vector's (`float4 first { 1.f }`) is only its first field."""
    r = lint_source(BRACE_INIT, "b.cu")
    assert any(f.code == "SM202" and "s_out[tx - 1]" in f.message for f in r.findings)
    from analyzer import symbolic as S

    (ctx,) = r.contexts
    shared = [a for a in ctx.accesses.accesses if a.array == "s_buffer"]
    assert len(shared) == 3 and all(not S.is_unknown(a.address) for a in shared)


@pytest.mark.parametrize("body, flagged", [
    ("float omega = 2.f * M_PI * k / n; y[i] = cosf(omega);", ["M_PI"]),     # math.h's double: FP64
    ("y[i] = 2.0 * M_PI * k;", ["2.0"]),             # one finding: the literal's names (float)M_PI too
    ("v[i] = v[i] * 0.7071;", []),                   # float2's operator* takes a float: converted once
    ("y[i] = v[i].x * 0.1;", ["0.1"]),               # a component is a float: FP64
])
def test_fp501_knows_math_h_constants_and_vector_operators(body, flagged):
    """Goertzel's `2.f * M_PI * k / N` in float code (M_PI is a double: FP64, missed), and
    SpeedCodeBench's `v[5] * M_SQRT1_2` of a float2 through the file's `operator*(float2, float)`
    (a constant converted once, no FP64)."""
    src = ("__global__ void g(float2 *v, float *y, int k, int n) {\n  int i = threadIdx.x;\n  " + body + "\n}\n")
    hits = [f for f in lint_source(src, "m.cu").findings if f.code == "FP501"]
    assert [f.estimate["literal"] for f in hits] == flagged
    for f in hits:
        if f.estimate["literal"] == "M_PI":
            assert "write `(float)M_PI`" in f.message and f.fix[0].new == "(float)M_PI"


SHARED_FLOAT2 = """
__global__ void acc(const float2 *w, float2 *out, int n) {
    __shared__ float2 t[256];
    __shared__ float2 u[512];
    t[threadIdx.x] = make_float2(0.f, 0.f);
    for (int a = 0; a < n; ++a) {
        float2 v = w[a];
        t[threadIdx.x].x += v.x;
        t[threadIdx.x].y += v.y;
        u[2 * threadIdx.x].x += v.x;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = t[threadIdx.x];
}
void run(const float2 *w, float2 *out, int n) { acc<<<64, 256>>>(w, out, n); }
"""


def test_both_fields_of_a_shared_float2_are_one_8_byte_access():
    """OSKAR's beam pattern: `t[tid].x += ...; t[tid].y += ...;` of a `__shared__ float2` is one
    8-byte access to nvcc (ld/st.shared.v2.f32), conflict-free; SM201 judged the fields as 4-byte
    accesses 8 bytes apart (2-way). A lone field at a wider stride (`u[2 * tid].x`) still conflicts."""
    hits = _codes(SHARED_FLOAT2, "SM201")
    assert hits and all("`u[2 * threadIdx.x].x`" in m for _, m in hits)


def test_a_device_helpers_own_shared_array_is_shared_memory_of_the_kernel():
    """A block reduction's scratch declared in its device helper (`__shared__ float s[32];` in
    `block_sum`, the softmax and layernorm pattern): its accesses were dropped and its bytes left
    out of the kernel's shared memory (occupancy, the reward's features)."""
    src = """
__device__ float block_sum(float v) {
    __shared__ float s[32];
    int lane = threadIdx.x % 32, wid = threadIdx.x / 32;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
    if (lane == 0) s[wid] = v;
    __syncthreads();
    v = (threadIdx.x < blockDim.x / 32) ? s[lane] : 0.f;
    return v;
}
__device__ float block_max(float v) {
    __shared__ float s[64][33];
    s[threadIdx.x % 64][threadIdx.x / 64] = v;
    __syncthreads();
    return s[0][threadIdx.x % 32];
}
__global__ void row_sum(const float* x, float* out, int n) {
    __shared__ float s[8];
    float acc = 0.f;
    for (int i = threadIdx.x; i < n; i += blockDim.x) acc += x[blockIdx.x * n + i];
    acc = block_sum(acc) + block_sum(acc * acc) + block_max(acc);
    s[threadIdx.x % 8] = acc;
    if (threadIdx.x == 0) out[blockIdx.x] = acc + s[1];
}
int main() { row_sum<<<1024, 256>>>(0, 0, 4096); }
"""
    res = lint_source(src, "r.cu")
    ctx = res.contexts[0]
    shared = [(a.array, a.kind, a.line) for a in ctx.accesses.accesses if a.space == "shared"]
    # block_sum's two accesses at each of its two calls, block_max's two, the kernel's own two
    assert shared == [("s", "store", 6), ("s", "load", 8), ("s", "store", 6), ("s", "load", 8),
                      ("s", "store", 13), ("s", "load", 15), ("s", "store", 22), ("s", "load", 23)]
    assert [(a.name, a.dims) for a in ctx.accesses.helper_shared] == [("s", (32,)), ("s", (64, 33))]
    assert ctx.static_shared_bytes == 4 * (32 + 64 * 33 + 8)     # each helper's array once
    # block_max's column store into 33-float rows: no conflict (its index read as the kernel's 8-float `s`
    # would be another access entirely)
    est = dict(zip(map(id, ctx.accesses.accesses), ctx.estimates))
    store = next(a for a in ctx.accesses.accesses if a.line == 13)
    assert est[id(store)].ways == 1
    assert not [f for f in res.findings if f.code == "SM201"]


@pytest.mark.parametrize("vec, make", [("short4", "make_short4(0, 0, 0, 0)"), ("longlong2", "make_longlong2(0, 0)"),
                                       ("char4", "make_char4(0, 0, 0, 0)")])
def test_every_aligned_vector_type_is_one_access_in_shared_memory_too(vec, make):
    """SM201 knew fewer vector types than GM101 (no short4, char4, longlong2): their fields of one
    shared element were judged as narrow accesses a vector apart."""
    fields = "xyzw"[:4 if vec != "longlong2" else 2]
    body = "\n".join(f"        t[threadIdx.x].{f} += v.{f};" for f in fields)
    src = f"""
__global__ void acc(const {vec} *w, {vec} *out, int n) {{
    __shared__ {vec} t[256];
    t[threadIdx.x] = {make};
    for (int a = 0; a < n; ++a) {{
        {vec} v = w[a];
{body}
    }}
    out[blockIdx.x * blockDim.x + threadIdx.x] = t[threadIdx.x];
}}
void run(const {vec} *w, {vec} *out, int n) {{ acc<<<64, 256>>>(w, out, n); }}
"""
    assert _codes(src, "SM201") == []


def test_a_pointer_to_rows_indexes_rows_of_its_width():
    """`const float (*a)[W]` (textbook matrix kernels with a compile-time width): `a[row][col]` is
    row * W + col; the accesses were dropped (the parameter was named `(*a)`)."""
    src = """
#define W 64
__global__ void by_rows(const float (*a)[W], float (*c)[W], int n) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < n && col < W) c[row][col] = 2.f * a[row][col];
}
__global__ void by_columns(const float (*a)[W], float (*c)[W], int n) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < n) c[row][blockIdx.y] = a[row][blockIdx.y];
}
void run(const float (*a)[W], float (*c)[W], int n) {
    by_rows<<<dim3(2, n / 8), dim3(32, 8)>>>(a, c, n);
    by_columns<<<dim3(n / 256, W), 256>>>(a, c, n);
}
"""
    res = lint_source(src, "m.cu")
    rows, cols = res.contexts
    assert [a.text for a in rows.accesses.accesses] == ["a[row][col]", "c[row][col]"]
    assert [e.units / e.requests for e in rows.estimates] == [4.0, 4.0]
    assert [e.units / e.requests for e in cols.estimates] == [32.0, 32.0]   # 256-byte rows, a lane each
    assert sorted((f.code, f.line) for f in res.findings) == [("GM101", 10), ("GM102", 10)]


def test_an_argument_left_out_takes_the_parameters_default():
    """SpeedCodeBench's FFT: `GPU_DoFft(v, tx)` of `GPU_DoFft(float2* v, int j, int stride = 1)`: the
    exchange through shared memory indexes `(idxD + r * incD) * stride`, and `stride` was an unknown
    size (4096: 32-way conflicts that a stride of 1 does not have)."""
    src = """
__device__ void put(float* s, float v, int stride = 1, int pad = PAD) { s[threadIdx.x * stride] = v; }
__global__ void k(const float* x, float* y) {
    __shared__ float s[1024];
    put(s, x[threadIdx.x]);
    put(s, x[threadIdx.x], 2);
    __syncthreads();
    y[threadIdx.x] = s[threadIdx.x];
}
void run(const float* x, float* y) { k<<<1, 256>>>(x, y); }
"""
    ctx = lint_source(src, "d.cu").contexts[0]
    stores = [e.ways for a, e in zip(ctx.accesses.accesses, ctx.estimates) if a.space == "shared" and a.kind == "store"]
    assert stores == [1.0, 2.0]


def test_a_clamped_index_is_bounded_and_qualified_min_is_min():
    """`y[min(i, n - 1)]` cannot leave the array: GM104 said nothing checks it. And `::min`,
    `std::min<int>` are the same function as `min`: their accesses had no estimate."""
    src = """
__global__ void clamp(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    y[min(i, n - 1)] = x[::min(i, n - 1)] + x[std::min<int>(i + 1, n - 1)];
}
__global__ void unclamped(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    y[min(i, threadIdx.x + 8)] = x[i];
}
void run(const float* x, float* y, int n) {
    clamp<<<(n + 255) / 256, 256>>>(x, y, n);
    unclamped<<<(n + 255) / 256, 256>>>(x, y, n);
}
"""
    res = lint_source(src, "c.cu")
    clamp = res.contexts[0]
    # a lane each, contiguous: 4 sectors a request (5 where `i + 1` starts a word late)
    assert [e.units / e.requests for e in clamp.estimates] == [4.0, 5.0, 4.0]
    assert [(f.code, f.kernel) for f in res.findings if f.code == "GM104"] == [("GM104", "unclamped")]
