import dataclasses
import inspect
import json

import pytest

import icml25.autoadvexbench.reproduce as repro
import icml25.autoadvexbench.summary as reduce
from icml25.autoadvexbench import (
    ScriptedAttacker,
    Task,
    ToolCall,
    TrainConfig,
    attacks,
    digits_split,
    parse_tool_call,
    run_agent,
    train_defense,
)
from icml25.autoadvexbench.llm_agent import LLMAttacker
from icml25.autoadvexbench.sandbox import Limits, Sandbox
from icml25.common.llm import Endpoint, LLMClient
from icml25.common.openai_stub import StubResponse, StubServer


@pytest.fixture(scope="module")
def setup():
    x_train, y_train, x, y = digits_split(seed=0, n_test=40)
    defense = train_defense("undefended", x_train, y_train, TrainConfig(epochs=3), seed=0)
    return defense, x, y


def make_task(tmp_path, setup):
    defense, x, y = setup
    task = Task.create(tmp_path / "task", defense, x, y, 0.2, eval_seed=0)
    return task, Sandbox(task.folder, Limits(cpu_seconds=60, wall_seconds=120))


def test_scripted_attacker_breaks_the_undefended_model_through_the_loop(tmp_path, setup):
    task, box = make_task(tmp_path, setup)
    result = run_agent(ScriptedAttacker("pgd", 0.2, 10, seed=0), task, box)
    assert result.stop_reason == "broken" and result.evaluation.broken
    assert [r["tool"] for r in result.transcript] == [
        "read_file",
        "read_file",
        "write_file",
        "write_file",
        "run_python",
        "finish",
    ]
    assert all(r["actor"] == "scripted" for r in result.transcript)
    assert (task.folder / "adv.npy").exists() and (task.folder / "defenses.py").exists()


def test_step_and_attempt_limits(tmp_path, setup):
    task, box = make_task(tmp_path, setup)
    reader = run_agent(lambda t: ToolCall("read_file", {"path": "task.md"}), task, box, max_steps=3)
    assert reader.stop_reason == "steps" and reader.steps == 3 and reader.evaluation is None
    finisher = run_agent(lambda t: ToolCall("finish"), task, box, max_attempts=2)
    assert finisher.stop_reason == "attempts" and finisher.attempts == 2
    assert not finisher.evaluation.valid and "adv.npy" in finisher.evaluation.reason


def test_parse_tool_call():
    call = parse_tool_call('I will look. {"tool": "read_file", "args": {"path": "a.py"}} done')
    assert call == ToolCall("read_file", {"path": "a.py"})
    nested = json.dumps({"tool": "write_file", "args": {"path": "b", "content": '{"tool": "x"}'}})
    assert parse_tool_call(nested).tool == "write_file"
    for bad in ("no json", '{"tool": "rm"}', '{"tool": "finish", "args": [1]}'):
        with pytest.raises(ValueError):
            parse_tool_call(bad)


def test_llm_agent_runs_a_cell_end_to_end_against_the_stub(tmp_path, monkeypatch):
    """One cell of the reproduction with an endpoint: the stub plays a scripted tool-use
    conversation (including one unreadable reply), the LLM agent's steps run in the sandbox."""
    monkeypatch.setenv("ICML25_CACHE", str(tmp_path / "cache"))
    driver = (
        "import numpy as np, torch\nfrom attacks import run_attack\n"
        "from defenses import load_defense\nd = np.load('data.npz')\n"
        "x, y = torch.from_numpy(d['x']), torch.from_numpy(d['y'])\n"
        "adv = run_attack('pgd_bpda', load_defense('.'), x, y, 0.2, steps=10)\n"
        "np.save('adv.npy', adv.numpy())\n"
    )
    source = inspect.getsource(attacks)
    replies = [
        'Reading the task first. {"tool": "read_file", "args": {"path": "task.md"}}',
        "Hmm, let me think.",
        json.dumps({"tool": "write_file", "args": {"path": "attacks.py", "content": source}}),
        json.dumps({"tool": "write_file", "args": {"path": "attack.py", "content": driver}}),
        '{"tool": "run_python", "args": {"path": "attack.py"}}',
        '{"tool": "finish", "args": {}}',
    ]

    def respond(body):
        turn = sum(m["role"] == "assistant" for m in body["messages"])
        return replies[min(turn, len(replies) - 1)]

    with StubServer(respond) as server:
        config = dataclasses.replace(
            repro.SCALES["smoke"],
            llm=Endpoint(server.url, "stub-model"),
            llm_max_steps=None,  # the scripted conversation takes 6 steps, past smoke's budget
            plan=(("quantised", ("pgd",)),),
        )
        offline = {"part": "defense", "defense": "quantised", "replicate": 0}
        cell = {**offline, "part": "llm", "seed_as": offline}
        assert cell in repro.cells(config) and offline in repro.cells(config)
        out = repro.run_cell(config, cell, 1)
        assert set(out["results"]) == {"llm"}  # the scripted attackers run in the defence cell
        llm = out["results"]["llm"]
        assert [r["tool"] for r in llm["transcript"]] == [
            "read_file",
            "invalid",
            "write_file",
            "write_file",
            "run_python",
            "finish",
        ]
        assert llm["transcript"][0]["actor"] == "llm:stub-model"
        assert llm["stop_reason"] == "broken"  # BPDA, written by the "model", breaks quantisation
        assert out["llm_usage"]["calls"] == len(server.requests) == 6
        assert "Evaluate the robustness" in server.requests[0]["messages"][1]["content"]
        assert llm["context"] == {"fitted_requests": 0, "most_turns_left_out": 0}  # none known
        assert llm["replies"][1] == "Hmm, let me think." and len(llm["replies"]) == 6
        summary = reduce.summarize(config, [(cell, out)])
        assert "ratio_quantised_llm_mean" in summary.measurements


def test_a_model_error_ends_the_task_and_keeps_the_transcript(tmp_path, setup, monkeypatch):
    """The server answers HTTP 400 on the third turn (as vLLM does when the context grows past
    the model's length): the task stops with "model error", the steps before it and the last
    submission's evaluation are kept, nothing is raised."""
    monkeypatch.setenv("ICML25_CACHE", str(tmp_path / "cache"))
    task, box = make_task(tmp_path, setup)
    replies = [
        '{"tool": "read_file", "args": {"path": "task.md"}}',
        '{"tool": "finish", "args": {}}',
    ]

    def respond(body):
        turn = sum(m["role"] == "assistant" for m in body["messages"])
        if turn < len(replies):
            return replies[turn]
        return StubResponse(status=400, body='{"error": "maximum context length exceeded"}')

    with StubServer(respond) as server:
        client = LLMClient.from_endpoint(Endpoint(server.url, "stub-model"))
        result = run_agent(LLMAttacker(client, "the task"), task, box, actor="llm:stub-model")
    assert result.stop_reason == "model error" and result.attempts == 1
    assert [r["tool"] for r in result.transcript] == ["read_file", "finish", "model_error"]
    assert "400" in result.transcript[-1]["result"]
    assert result.evaluation is not None and not result.evaluation.valid  # no adv.npy yet
    assert result.to_dict()["stop_reason"] == "model error"


class _Client:
    """What LLMAttacker reads of a client to fit its requests."""

    def __init__(self, context_tokens):
        self.context_tokens = context_tokens


def test_the_llm_agent_fits_its_history_to_the_servers_context():
    """A long tool result keeps its beginning and end; the oldest turns are left out, and the
    task says how many, until the request leaves ``max_tokens`` for the reply."""
    from icml25.autoadvexbench import llm_agent

    transcript = [{"tool": "read_file", "result": f"line {i}\n" * 2000} for i in range(6)]
    replies = [f'reply {i} {{"tool": "read_file", "args": {{"path": "x"}}}}' for i in range(6)]
    unbounded = LLMAttacker(_Client(None), "the task", max_tokens=512)
    unbounded.replies = list(replies)
    assert len(unbounded.messages(transcript)) == 2 + 2 * 6  # nothing is cut without a context
    agent = LLMAttacker(_Client(4096), "the task", max_tokens=512)
    agent.replies = list(replies)
    messages = agent.messages(transcript)
    size = sum(llm_agent._tokens(m["content"]) + llm_agent.MESSAGE_TOKENS for m in messages)
    assert size <= 4096 - 512
    kept = (len(messages) - 2) // 2
    assert 1 <= kept < 6 and messages[-1]["content"].startswith("Result of read_file:\nline 5")
    assert f"The first {6 - kept} turns are left out" in messages[1]["content"]
    assert "characters left out" in messages[-1]["content"]
    assert messages[-1]["content"].endswith("line 5\n")
    assert agent.fitted == 1 and agent.left_out == 6 - kept
