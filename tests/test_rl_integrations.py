"""The TRL, verl and OpenRLHF adapters, each called the way its framework calls it.

The calls mirror the frameworks' own code (trl 1.16.0 `GRPOTrainer._calculate_rewards`, verl 0.9.1
`NaiveRewardManager.run_single` and `load_module`, openrlhf 0.11.2 `SingleTurnAgentExecutor`);
when TRL is installed, its real `_calculate_rewards` runs too. Replies are real corpus
candidates with literal launch lines, so the replay oracle can answer them.
"""
from __future__ import annotations

import asyncio
import importlib
import importlib.util
import sys
import types
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

pytest.importorskip("xgboost")
pytest.importorskip("pandas")

import rl.integrations as integ  # noqa: E402
from rl.integrations import openrlhf as orl  # noqa: E402
from rl.integrations import trl as rtrl  # noqa: E402
from rl.integrations import verl as rverl  # noqa: E402
from rl_replies import TASKS, fresh_core, reply  # noqa: E402
from rewardmodel.reward import RewardConfig  # noqa: E402

FAIL = RewardConfig().fail_reward

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def batch():
    ids = [TASKS[0]] * 4 + [TASKS[1]] * 3
    ks = [0, 1, 2, 3, 0, 1, 2]
    return ids, [reply(t, k) for t, k in zip(ids, ks)], ks


# --------------------------------------------------------------------------- shared pieces
def test_reply_text_reads_every_completion_form():
    assert integ.reply_text("plain") == "plain"
    assert integ.reply_text([{"role": "assistant", "content": "conv"}]) == "conv"
    assert integ.reply_text({"role": "assistant", "content": "one"}) == "one"
    blocks = [{"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}]
    assert integ.reply_text(blocks) == "ab"
    # tool turns: the last assistant message with text is the reply
    turns = [{"role": "assistant", "content": "first"}, {"role": "tool", "content": "log"},
             {"role": "assistant", "content": "final"}, {"role": "assistant", "content": ""}]
    assert integ.reply_text(turns) == "final"
    assert integ.reply_text(None) == ""


def test_oracle_from_env(monkeypatch):
    monkeypatch.delenv(integ.ENV_ORACLE, raising=False)
    assert integ.oracle_from_env() == "replay"
    monkeypatch.setenv(integ.ENV_ORACLE, " GPU ")
    assert integ.oracle_from_env() == "gpu"
    monkeypatch.setenv(integ.ENV_ORACLE, "bogus")
    with pytest.raises(ValueError, match="CUDAPERF_ORACLE='bogus'"):
        integ.oracle_from_env()


def test_default_core_is_built_once_from_the_environment(monkeypatch):
    monkeypatch.setenv(integ.ENV_ORACLE, "none")
    monkeypatch.delenv(integ.ENV_URL, raising=False)
    integ.set_default_core(None)
    try:
        a = integ.default_core()
        assert a is integ.default_core()
        assert a.oracle is None
    finally:
        integ.set_default_core(None)


def test_score_replies_matches_the_core(batch):
    ids, texts, _ = batch
    got = integ.score_replies(ids, texts, core=fresh_core())
    want = fresh_core().score_texts(ids, texts)
    assert [r["reward"] for r in got] == [s.reward for s in want]
    assert [r["sample_id"] for r in got] == [s.sample_id for s in want]
    with pytest.raises(ValueError, match="2 task ids for 1 replies"):
        integ.score_replies(ids[:2], texts[:1], core=fresh_core("none"))


# --------------------------------------------------------------------------- TRL
def _trl_call(func, prompts, completions, columns, n):
    """What GRPOTrainer._calculate_rewards passes to a custom reward function (trl 1.16.0)."""
    extra: dict[str, list] = {}
    metrics: dict[str, list] = {}
    out = func(prompts=prompts, completions=completions, completion_ids=[[1, 2, 3]] * n, **columns,
               trainer_state=object(), log_extra=lambda col, vals: extra.setdefault(col, []).extend(vals),
               log_metric=lambda name, v: metrics.setdefault(name, []).append(v))
    return out, extra, metrics


@pytest.mark.parametrize("conversational", [True, False])
def test_trl_reward_as_grpo_calls_it(batch, conversational):
    ids, texts, _ = batch
    n = len(texts)
    if conversational:
        prompts = [integ.prompt_messages(t) for t in ids]
        completions = [[{"role": "assistant", "content": x}] for x in texts]
    else:
        prompts = [integ.prompt_messages(t)[0]["content"] for t in ids]
        completions = list(texts)
    seen = []
    func = rtrl.make_trl_reward(core=fresh_core(), log=seen.extend)
    rewards, extra, metrics = _trl_call(func, prompts, completions, {"task_id": ids, "difficulty": ["x"] * n}, n)
    want = [s.reward for s in fresh_core().score_texts(ids, texts)]
    assert rewards == want and all(isinstance(r, float) for r in rewards)
    assert set(extra) == {"cudaperf_source", "cudaperf_speedup", "cudaperf_error"}
    assert all(len(v) == n for v in extra.values())
    assert set(metrics) == {"cudaperf/valid_share", "cudaperf/measured_share"}
    assert metrics["cudaperf/valid_share"] == [1.0]
    assert [r["reward"] for r in seen] == want
    assert func.__name__ == "cudaperf_reward"


def test_trl_reward_bad_rows_and_foreign_rows():
    ids = [TASKS[0], None, "nosuch/task", TASKS[0]]
    completions = [[{"role": "assistant", "content": x}] for x in
                   (reply(TASKS[0], 0), "anything", reply(TASKS[0], 0), "no code at all")]
    rewards, extra, _ = _trl_call(rtrl.make_trl_reward(core=fresh_core()), [[]] * 4, completions,
                                  {"task_id": ids}, 4)
    assert rewards[1] is None                                  # not our row: TRL skips it
    assert rewards[2] == rewards[3] == FAIL                    # the fail reward, with an error
    assert extra["cudaperf_error"][1] is None
    assert "nosuch/task" in extra["cudaperf_error"][2]
    assert extra["cudaperf_error"][3]
    assert rewards[0] > FAIL


def test_trl_reward_needs_the_task_id_column():
    with pytest.raises(ValueError, match="task_id"):
        rtrl.cudaperf_reward(prompts=["p"], completions=["c"], completion_ids=[[1]])


def test_module_level_trl_reward_uses_the_shared_core(batch, monkeypatch):
    ids, texts, _ = batch
    monkeypatch.delenv(integ.ENV_URL, raising=False)
    integ.set_default_core(fresh_core())
    try:
        rewards, _, _ = _trl_call(rtrl.cudaperf_reward, [""] * len(ids), list(texts), {"task_id": ids}, len(ids))
    finally:
        integ.set_default_core(None)
    assert rewards == [s.reward for s in fresh_core().score_texts(ids, texts)]


def test_trl_dataset_rows():
    rows = rtrl.trl_dataset(TASKS)
    assert [r["task_id"] for r in rows] == list(TASKS)
    assert rows[0]["prompt"][-1]["role"] == "user" and rows[0]["prompt"][-1]["content"]
    plain = rtrl.trl_dataset(TASKS[:1], conversational=False, system="be fast")
    assert isinstance(plain[0]["prompt"], str) and plain[0]["prompt"].startswith("be fast")


def test_trl_real_calculate_rewards(batch):
    """TRL's own reward loop, run on our function (only where trl is installed)."""
    trl = pytest.importorskip("trl")
    from types import SimpleNamespace

    from accelerate import Accelerator
    from transformers import TrainerState

    ids, texts, _ = batch
    func = rtrl.make_trl_reward(core=fresh_core())
    logged: dict[str, list] = {}
    fake = SimpleNamespace(accelerator=Accelerator(cpu=True), reward_funcs=[func], reward_processing_classes=[None],
                           reward_func_names=["cudaperf_reward"], state=TrainerState(),
                           args=SimpleNamespace(report_to=[]), environments=None,
                           _log_completion_extra=lambda c, v: logged.setdefault(c, []).extend(v),
                           _log_metric=lambda name, v: None)
    inputs = [{"prompt": integ.prompt_messages(t), "task_id": t} for t in ids]
    prompts = [x["prompt"] for x in inputs]
    completions = [[{"role": "assistant", "content": x}] for x in texts]
    out = trl.GRPOTrainer._calculate_rewards(fake, inputs, prompts, completions, [[1]] * len(ids))
    want = [s.reward for s in fresh_core().score_texts(ids, texts)]
    assert out[:, 0].tolist() == pytest.approx(want, rel=1e-6)
    assert len(logged["cudaperf_source"]) == len(ids)


# --------------------------------------------------------------------------- verl
def _load_like_verl(path: str):
    """verl.utils.import_utils.load_module: pkg://a.b.c imports it; a file path execs it alone."""
    if path.startswith("pkg://"):
        return importlib.import_module(path[len("pkg://"):].replace("/", "."))
    spec = importlib.util.spec_from_file_location(f"custom_module_{hash(path)}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("path", ["pkg://rl.integrations.verl", str(ROOT / "rl/integrations/verl.py")])
def test_verl_compute_score_as_the_reward_loop_calls_it(path, batch, monkeypatch):
    ids, texts, _ = batch
    monkeypatch.delenv(integ.ENV_URL, raising=False)
    fn = getattr(_load_like_verl(path), "compute_score")
    core = fresh_core()
    integ.set_default_core(core)
    try:
        got = [fn(data_source="cudaperf", solution_str=x, ground_truth=t,
                  extra_info={"index": i, "num_turns": None, "rollout_reward_scores": {}})
               for i, (t, x) in enumerate(zip(ids, texts))]
        positional = fn("cudaperf", texts[0], ids[0], None)
    finally:
        integ.set_default_core(None)
    ref = fresh_core()
    want = [ref.score_texts([t], [x])[0] for t, x in zip(ids, texts)]
    assert [g["score"] for g in got] == [w.reward for w in want]
    # the reward loop logs every extra key for every response: the keys never change
    assert all(set(g) == {"score", "valid", "measured", "speedup", "error"} for g in got)
    assert all(g["valid"] == 1.0 and g["error"] == "" for g in got)
    assert positional["score"] == got[0]["score"]


def test_verl_bad_replies_score_the_fail_reward():
    core = fresh_core("none")
    bad = rverl.compute_score("cudaperf", "no code", TASKS[0], {}, core=core)
    unknown = rverl.compute_score("cudaperf", reply(TASKS[0], 0), "nosuch/task", None, core=core)
    via_extra = rverl.compute_score("cudaperf", reply(TASKS[0], 0), "", {"task_id": TASKS[0]}, core=core)
    assert bad["score"] == unknown["score"] == FAIL
    assert bad["valid"] == 0.0 and bad["error"]
    assert "nosuch/task" in unknown["error"]
    assert via_extra["valid"] == 1.0


def test_verl_other_data_sources_go_to_verls_default(monkeypatch):
    calls = []
    for name in ("verl", "verl.utils", "verl.utils.reward_score"):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    sys.modules["verl.utils.reward_score"].default_compute_score = lambda *a, **k: calls.append((a, k)) or 0.5
    assert rverl.compute_score("openai/gsm8k", "#### 4", "4", {"index": 0}) == 0.5
    assert calls == [(("openai/gsm8k", "#### 4", "4", {"index": 0}), {})]


def test_verl_threads_share_one_core_safely(batch):
    """verl runs compute_score in a thread pool; on a core without real answers (deterministic)
    concurrent calls give what sequential ones give."""
    ids, texts, _ = batch
    core = fresh_core("none")
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda a: rverl.compute_score("cudaperf", a[1], a[0], {}, core=core)["score"],
                            list(zip(ids, texts)) * 4))
    want = [s.reward for s in fresh_core("none").score_texts(ids, texts)] * 4
    assert got == want


def test_verl_rows():
    rows = rverl.verl_rows(TASKS, split="test")
    assert rows[1]["reward_model"] == {"style": "rule", "ground_truth": TASKS[1]}
    assert rows[1]["data_source"] == "cudaperf" and rows[1]["extra_info"]["index"] == 1
    assert rows[0]["prompt"][-1]["role"] == "user"


# --------------------------------------------------------------------------- OpenRLHF
def test_openrlhf_reply_from_query():
    prompt = "<|im_start|>user\nWrite it<|im_end|>\n<|im_start|>assistant\n"
    assert orl.reply_from_query(prompt + "the reply<|im_end|>", prompt) == "the reply"
    # the end-of-turn token right after the closing fence would leave the code block open
    fenced = "```cuda\n__global__ void k() {}\n```"
    assert orl.reply_from_query(prompt + fenced + "<|im_end|>", prompt) == fenced
    assert orl.reply_from_query(prompt + fenced + "\n<|eot_id|></s>\n", prompt) == fenced
    assert orl.reply_from_query(prompt + "a <|im_end|> b", prompt) == "a <|im_end|> b"
    assert orl.reply_from_query("no prompt here", "elsewhere") == "no prompt here"


def test_openrlhf_parse_request_errors():
    with pytest.raises(orl.PayloadError, match="JSON object"):
        orl.parse_request([1, 2])
    with pytest.raises(orl.PayloadError, match="missing 'query'"):
        orl.parse_request({"labels": ["a"]})
    with pytest.raises(orl.PayloadError, match="label_key"):
        orl.parse_request({"query": ["q"]})
    with pytest.raises(orl.PayloadError, match="1 entries for 2 queries"):
        orl.parse_request({"query": ["q", "r"], "labels": ["a"]})
    with pytest.raises(orl.PayloadError, match="list of strings"):
        orl.parse_request({"query": [1], "labels": ["a"]})


def test_openrlhf_reward_func_as_openrlhf_loads_and_calls_it(batch, monkeypatch):
    """`--reward.remote_url path.py`: the file is exec'd alone as module "reward_func", and
    `reward_func([query], [prompt], [label])` runs through asyncio.to_thread, one rollout a call."""
    ids, texts, _ = batch
    monkeypatch.delenv(integ.ENV_URL, raising=False)
    spec = importlib.util.spec_from_file_location("reward_func", str(ROOT / "rl/integrations/openrlhf.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    prompts = ["<|im_start|>user\n" + integ.prompt_messages(t)[0]["content"] + "<|im_end|>\n<|im_start|>assistant\n"
               for t in ids]
    queries = [p + x + "<|im_end|>" for p, x in zip(prompts, texts)]

    async def fetch():
        return await asyncio.gather(*[asyncio.to_thread(module.reward_func, [q], [p], [t])
                                      for q, p, t in zip(queries, prompts, ids)])

    integ.set_default_core(fresh_core("none"))
    try:
        infos = asyncio.run(fetch())
    finally:
        integ.set_default_core(None)
    want = [s.reward for s in fresh_core("none").score_texts(ids, texts)]
    assert [info["rewards"] for info in infos] == [[w] for w in want]
    for info in infos:                          # what SingleTurnAgentExecutor reads back
        assert info["scores"] == info["rewards"]
        assert all(isinstance(v, list) and all(isinstance(x, float) for x in v) for v in info["extra_logs"].values())


def test_openrlhf_rows():
    rows = orl.openrlhf_rows(TASKS)
    assert rows[0]["label"] == TASKS[0] and rows[0]["prompt"][-1]["role"] == "user"
