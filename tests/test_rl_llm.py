"""rl.policy.llm against a real HTTP server of our own on loopback (tests/fake_openai.py):
prompts, n samples, retries, and the one-line errors."""
from __future__ import annotations

import itertools
import socket

import pytest

pytest.importorskip("httpx")

from fake_openai import FakeOpenAI  # noqa: E402
from rl.policy.llm import LLMError, LLMPolicy, build_messages, feedback  # noqa: E402
from rl.submission import launch_line, parse_submission  # noqa: E402
from rl.tasks import get  # noqa: E402

TASK = "transpose/r4K_c4K"


def kernel_reply(c) -> str:
    """A reply as a model writes one: prose, then a corpus candidate with its launch line."""
    return f"Tiling through shared memory should help.\n\n```cuda\n{launch_line(c)}\n{c.source}```\n"


def cycling_script(task):
    """Answers with the task's candidates in turn, so n choices differ."""
    it = itertools.cycle(task.candidates)
    return lambda messages: kernel_reply(next(it))


@pytest.fixture
def task():
    return get(TASK)


@pytest.fixture
def server(task):
    with FakeOpenAI(cycling_script(task)) as srv:
        yield srv


def policy(srv: FakeOpenAI, **kw) -> LLMPolicy:
    kw.setdefault("backoff_s", 0.01)
    return LLMPolicy(srv.url, srv.model, **kw)


def observation(turn: int, **kw) -> dict:
    """An observation with the keys rl.env documents (test_end_to_end_with_the_env uses real ones)."""
    obs = {"turn": turn, "task_id": TASK, "source": "extern \"C\" __global__ void k() {}\n",
           "compile_log": "not compiled (surrogate answer)", "findings": [], "time_ms": None,
           "time_source": "none", "speedup": None, "reward": -1.0, "breakdown": {}, "error": ""}
    obs.update(kw)
    return obs


# ------------------------------------------------------------------ the first turn

def test_first_turn_sends_the_task_prompt_and_the_reply_parses_to_a_corpus_candidate(server, task):
    with policy(server, temperature=0.3, max_tokens=777) as p:
        (text,) = p.propose(task)
    (req,) = server.chat_requests
    body = req.body
    assert (body["model"], body["temperature"], body["max_tokens"], body["n"]) == (server.model, 0.3, 777, 1)
    system, user = body["messages"]
    assert system["role"] == "system" and "// launch:" in system["content"]
    assert user["role"] == "user"
    for want in ("const float* in", "float* out", "int rows", "int cols", "rows = 4096", launch_line(task.baseline)):
        assert want in user["content"], want
    assert parse_submission(task, text).sample_id == task.candidates[0].sample_id


def test_n_samples_come_from_one_request(server, task):
    with policy(server) as p:
        texts = p.propose(task, n=4)
    assert len(server.chat_requests) == 1 and server.chat_requests[0].body["n"] == 4
    ids = [parse_submission(task, t).sample_id for t in texts]
    assert ids == [c.sample_id for c in task.candidates[:4]]


def test_a_server_that_ignores_n_is_asked_again(task):
    with FakeOpenAI(cycling_script(task), honor_n=False) as srv, policy(srv) as p:
        assert len(p.propose(task, n=3)) == 3
        assert [r.body["n"] for r in srv.chat_requests] == [3, 1, 1]
        p.propose(task, n=2)                    # it remembers: one choice per request from now on
        assert [r.body["n"] for r in srv.chat_requests][3:] == [1, 1]


def test_a_server_that_refuses_n_is_asked_one_at_a_time(server, task):
    server.fail(400)
    with policy(server) as p:
        assert len(p.propose(task, n=2)) == 2
    assert [r.body["n"] for r in server.chat_requests] == [2, 1, 1]


# ------------------------------------------------------------------ later turns

def test_later_turns_show_the_last_kernel_and_its_feedback(server, task):
    c = task.candidates[3]
    first = "<think>long reasoning</think>" + kernel_reply(c)
    finding = "7:31: GM102 uncoalesced global store `out[(size_t)c * rows + r]`: 32 sectors/request, ideal 4"
    obs1 = observation(1, error="correct: wrong_result: 12 of 16777216 outputs differ",
                       breakdown={"gates": {"correct": {"passed": False, "detail": "wrong_result: 12 outputs differ"}}})
    obs2 = observation(2, findings=[finding], time_ms=0.1234, time_source="surrogate", interval_ms=[0.1, 0.15],
                       speedup=2.03, reward=0.9, compile_log="not compiled (surrogate answer)",
                       breakdown={"terms": {"speed": {"value": 0.708, "weight": 1.0, "why": "2.03x the baseline"},
                                            "spills": {"value": None, "weight": 0.1, "why": "unknown"}}})
    with policy(server) as p:
        p.propose(task, [(first, obs1), (kernel_reply(c), obs2)])
    msgs = server.chat_requests[-1].body["messages"]
    assert [m["role"] for m in msgs] == ["system", "user", "assistant", "user"]
    assistant, fb = msgs[2]["content"], msgs[3]["content"]
    assert assistant.startswith("```cuda\n" + launch_line(c)) and "Tiling" not in assistant
    for want in (finding, "0.1234 ms (predicted by the cost model, not run, likely 0.1-0.15 ms)",
                 "Speedup: 2.03x", "Reward: 0.900 = speed +0.708 (2.03x the baseline)",
                 "not compiled (surrogate answer)", "Earlier turns: turn 1: failed (correct: wrong_result",
                 "Write an improved kernel"):
        assert want in fb, want
    assert "spills" not in fb            # a term without a value says nothing
    assert "long reasoning" not in str(msgs)


def test_feedback_of_a_failed_turn_asks_for_a_fix():
    obs = observation(1, source="", error="no `// launch:` line in the code: add one")
    msgs = build_messages(get(TASK), [("```cuda\nint x;\n```", obs)], keep_turns=3)
    fb = msgs[-1]["content"]
    assert "Error: no `// launch:` line" in fb and "Fix the problem" in fb
    assert "Compiler" not in fb          # nothing was compiled
    assert "Time: none" in feedback(obs)
    measured = feedback(observation(2, time_ms=0.05, time_source="measured", speedup=5.0, reward=1.6))
    assert "0.05 ms (measured on the GPU)" in measured


def test_end_to_end_with_the_env(task):
    """Real observations from rl.env: the second request carries the first turn's real feedback."""
    pytest.importorskip("xgboost")
    pytest.importorskip("pandas")
    from rl.core import RewardCore
    from rl.env import KernelEnv

    core = RewardCore.from_defaults(oracle_name="none")
    env = KernelEnv(task, core)
    env.reset()
    history = []
    with FakeOpenAI(cycling_script(task)) as srv, policy(srv) as p:
        for _ in range(2):
            (text,) = p.propose(task, history)
            obs, _, _ = env.step(text)
            history.append((text, obs))
        fb = srv.chat_requests[-1].body["messages"][-1]["content"]
    first = history[0][1]
    assert first["error"] == "" and first["time_source"] == "surrogate"
    assert f"Speedup: {first['speedup']:.2f}x" in fb and "predicted by the cost model" in fb
    assert all(f in fb for f in first["findings"])


# ------------------------------------------------------------------ failures

def test_retries_on_500_and_429(server, task):
    server.fail(500, 429)
    with policy(server, retries=2) as p:
        (text,) = p.propose(task)
    assert len(server.chat_requests) == 3 and "```cuda" in text


def test_gives_up_after_the_retries_with_the_status(server, task):
    server.fail(500, 500, 500)
    with policy(server, retries=2) as p, pytest.raises(LLMError) as err:
        p.propose(task)
    msg = str(err.value)
    assert msg.startswith(server.url) and "HTTP 500" in msg and "after 3 attempts" in msg
    assert "\n" not in msg and len(server.chat_requests) == 3


def test_timeout_is_retried_then_reported(server, task):
    server.fail(("slow", 1.0))
    with policy(server, timeout_s=0.25, retries=1) as p:
        assert len(p.propose(task)) == 1              # the second attempt is answered at once
    server.fail(("slow", 1.0), ("slow", 1.0))
    with policy(server, timeout_s=0.25, retries=1) as p, pytest.raises(LLMError, match=r"no answer within 0.25 s "
                                                                                        r"\(after 2 attempts\)"):
        p.propose(task)


def test_client_errors_are_not_retried(server, task):
    with LLMPolicy(server.url, "no-such-model", backoff_s=0.01) as p, pytest.raises(
            LLMError, match=r"HTTP 404: The model `no-such-model` does not exist"):
        p.propose(task)
    assert len(server.chat_requests) == 1


def test_connection_refused_names_the_url(task):
    with socket.socket() as s:                    # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with LLMPolicy(f"http://127.0.0.1:{port}", "m") as p, pytest.raises(LLMError) as err:
        p.propose(task)
    assert str(err.value) == (f"cannot connect to http://127.0.0.1:{port}/v1/chat/completions "
                              "(connection refused): is the server running?")


def test_api_key_is_sent_as_a_bearer_token(task):
    with FakeOpenAI(cycling_script(task), api_key="sk-test") as srv:
        with policy(srv) as p, pytest.raises(LLMError, match="HTTP 401: Incorrect API key"):
            p.propose(task)
        with policy(srv, api_key="sk-test") as p:
            assert len(p.propose(task)) == 1
        assert srv.chat_requests[-1].headers["authorization"] == "Bearer sk-test"


# ------------------------------------------------------------------ configuration

def test_from_env_and_the_servers_only_model(server, task):
    env = {"CUDAPERF_LLM_URL": f"http://127.0.0.1:{server.port}/", "OPENAI_API_KEY": "sk-x"}
    with LLMPolicy.from_env(env, temperature=0.1) as p:
        assert (p.model, p.api_key, p.temperature) == ("", "sk-x", 0.1)
        assert p.models() == [server.model]
        p.propose(task)
        assert p.model == server.model           # the one model the server lists
    assert server.chat_requests[-1].body["model"] == server.model
    assert LLMPolicy.from_env({**env, "CUDAPERF_LLM_MODEL": "big"}).model == "big"
    with pytest.raises(LLMError, match="CUDAPERF_LLM_URL is not set"):
        LLMPolicy.from_env({})


def test_url_joining():
    assert LLMPolicy("http://h:1/v1/").url("/models") == "http://h:1/v1/models"
    assert LLMPolicy("http://h:1").url("/chat/completions") == "http://h:1/v1/chat/completions"
