"""Cooperative groups (cooperative_groups.h): a group's ranks and sizes are the expressions they
stand for (block, grid, tiled_partition<n>), and its sync() is the barrier it is: a block's
__syncthreads(), a tile's __syncwarp(), a grid's grid-wide sync."""
from __future__ import annotations

import pytest

from analyzer.lint import LaunchSpec, lint_source

HEAD = "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"


def _lint(body, block=(256, 1, 1), grid=(4, 1, 1), n=1 << 16):
    src = HEAD + "__global__ void k(const float* x, float* y, int n) {\n" + body + "\n}\n"
    r = lint_source(src, "k.cu", launches={"k": LaunchSpec(block, grid, 0, {"n": n})})
    ctx = r.contexts[0]
    return r.findings, [(a, e) for a, e in zip(ctx.accesses.accesses, ctx.estimates)]


def test_a_tile_sync_under_a_warp_branch_is_a_warp_barrier():
    # __syncthreads() there would hang the block (SY301); a tile's sync() is a __syncwarp()
    findings, _ = _lint("""
    __shared__ float s[32];
    if (threadIdx.x < 32) {
        auto tile = cg::tiled_partition<32>(cg::this_thread_block());
        s[threadIdx.x] = x[threadIdx.x];
        tile.sync();
        y[threadIdx.x] = s[31 - threadIdx.x];
    }""")
    assert not [f for f in findings if f.code in ("SY301", "SM202")]


@pytest.mark.parametrize("sync", ["block.sync();", "cg::sync(block);", "cg::this_thread_block().sync();"])
def test_a_block_sync_is_a_block_barrier(sync):
    body = """
    __shared__ float s[256];
    cg::thread_block block = cg::this_thread_block();
    s[threadIdx.x] = x[threadIdx.x];
    %s
    y[threadIdx.x] = s[255 - threadIdx.x];"""
    findings, _ = _lint(body % sync)
    assert not [f for f in findings if f.code == "SM202"]
    findings, _ = _lint(body % "")
    assert [f for f in findings if f.code == "SM202"]      # without it, a race
    findings, _ = _lint((body % sync).replace(sync, "if (threadIdx.x < 128) { %s }" % sync))
    assert [f for f in findings if f.code == "SY301"]      # and under a thread-dependent branch, a hang


def test_ranks_and_sizes_index_like_the_thread_ids_they_stand_for():
    findings, got = _lint("""
    cg::thread_block block = cg::this_thread_block();
    y[blockIdx.x * block.size() + block.thread_rank()] = 1.0f;
    auto tile = cg::tiled_partition<32>(block);
    y[tile.thread_rank() * 32 + tile.meta_group_rank()] = 2.0f;""", block=(32, 8, 1))
    first, second = (e for _, e in got)
    assert first.units / first.requests == 4          # rank over a 32x8 block: contiguous
    assert second.units / second.requests == 32       # lane * 32: a sector per lane


def test_a_grid_stride_loop_over_this_grid_counts_its_iterations():
    _, got = _lint("""
    auto g = cg::this_grid();
    for (int i = g.thread_rank(); i < n; i += g.size()) y[i] = x[i];""", block=(128, 1, 1), grid=(4, 1, 1))
    # 65536 elements over 512 threads: 128 iterations of 4 warps, 4 sectors each
    assert all(e.requests == 128 * 4 and e.units == 128 * 4 * 4 for _, e in got)


def test_a_tile_declared_with_its_template_type_is_a_tile():
    # the grammar reads this declaration as `(cg::thread_block_tile < 32) > (tile = ...)`: it cannot
    # know that thread_block_tile is a template
    body = """
    extern __shared__ float sums[];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    if (tile.thread_rank() == 0) sums[tile.meta_group_rank()] = x[blockIdx.x];
    block.sync();
    if (tile.meta_group_rank() == 0) y[blockIdx.x * 32 + tile.thread_rank()] = sums[tile.thread_rank()];"""
    from analyzer.parse import parser
    src = (HEAD + "__global__ void k(const float* x, float* y, int n) {\n" + body + "\n}\n").encode()
    stack, kinds = [parser().parse(src).root_node], []
    while stack:
        n = stack.pop()
        if src[n.start_byte:n.end_byte].startswith(b"cg::thread_block_tile<32> tile") and n.type.endswith("statement"):
            kinds.append(n.type)
        stack.extend(n.children)
    assert kinds == ["expression_statement"]      # the misreading this test is about
    findings, got = _lint(body)
    assert all(e is not None for _, e in got)
    (store,) = [e for a, e in got if a.space == "shared" and a.kind == "store"]
    assert store.requests == 8 and store.active_lanes == 1      # lane 0 of each of the 8 warps
