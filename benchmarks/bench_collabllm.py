"""collabllm: the official reward and parsing code on our recorded conversations, and MR sampling.

Tables, printed as markdown (one thread):

1. reward (needs ``--official-src``, a checkout of microsoft/CollabLLM, and
   ``--official-python``, a Python with its imports: litellm, transformers, torch, nltk): the
   official ``collabllm.reward.multiturn_aware_reward`` on the conversations our simulation
   records, beside ours. For each opening state of hidden-intent requests and each candidate
   action, our code samples 3 continuations of at most 4 messages (the official defaults)
   with the same generator our ``multiturn_aware_reward`` uses, records them as chat messages
   with their metrics (task metric, interactivity rubric, assistant tokens in thousands), and
   its MR must equal ours. The official function gets these conversations in place of its LLM
   simulation (``ChatSessionSimulator.run_chat_simulation`` is replaced, at run time in the
   subprocess, by one returning them) and the three metrics through its own registry
   (``SingleTurnOrChatMetric.register_metric``), with the family's weights; the candidate's MR
   is the mean of its ``reward_dict["MR"]`` (as ``collabllm/synthetic.py`` does) and the
   preference pair of a state is its best and worst candidate (``to_dpo_dataset``). Times: the
   scoring and aggregation of all recorded conversations (ours: ``conversation_reward`` and a
   mean), one metric worker.
2. parsing: the official ``extract_json`` with the user simulator's key check
   (``collabllm/modules/user_simulator.py``: keys current_answer, thought, response; otherwise
   it asks the model again) against ours (``agents.LLMUser``: the first JSON object's
   ``response``, else the reply's text) on scripted user-simulator replies.
3. sampling: the paper's sampled MR (3 continuations) against its exact expectation by
   enumerating every continuation of the base assistant (possible only with a few actions).

Nothing of the official code is copied here; it runs in a subprocess in a temporary folder.

    python benchmarks/bench_collabllm.py --official-src /tmp/anchors/collabllm \\
        --official-python /tmp/anchors/venv-collabllm/bin/python
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from harness import measure, table  # noqa: E402

from icml25.collabllm import (  # noqa: E402
    N_ACTIONS,
    BasePolicy,
    Conversation,
    ProgrammaticUser,
    draw_tasks,
    exact_multiturn_aware_reward,
    multiturn_aware_reward,
)
from icml25.collabllm.agents import _json_object  # noqa: E402
from icml25.collabllm.dialogue import ANSWER, TERMINATE, step  # noqa: E402
from icml25.collabllm.reward import conversation_metrics, conversation_reward, simulate  # noqa: E402

WINDOWS = (2, 4, 6, 8)  # messages after the candidate (the official default: 4)
N_PER_CELL = 10  # requests per (family, ambiguity level): 120 opening states
NUM_SAMPLES, WINDOW = 3, 4  # the official defaults
METRICS = ("task", "interactivity", "tokens_k")
N_TIMED = 20_000  # replies parsed for the time per reply

# Run by --official-python in a temporary folder: argv = checkout, input JSON, output JSON.
DRIVER = """
import json, os, sys, time
sys.path.insert(0, sys.argv[1])
import collabllm.reward as reward
from collabllm.metric import BaseMetric, SingleTurnOrChatMetric
from collabllm.utils.extract_json_reliable import extract_json

spec = json.load(open(sys.argv[2]))
current = []  # (messages, metrics) of the candidate being scored

def lookup(messages):
    return next(m for msgs, m in current if msgs == messages)

for name in spec["metrics"]:
    def score(self, prompt, groundtruth, completion, messages=None, metadata=None, name=name):
        return lookup(messages)[name]
    SingleTurnOrChatMetric.register_metric(name)(type(name, (BaseMetric,), {"score": score}))

reward.ChatSessionSimulator.run_chat_simulation = (
    lambda self, **kwargs: [msgs for msgs, _ in current]
)
mr, seconds = [], 0.0
for cand in spec["candidates"]:
    current[:] = [(c["messages"], c["metrics"]) for c in cand["conversations"]]
    begin = time.perf_counter()
    out = reward.multiturn_aware_reward(
        task_desc="", single_turn_prompt=cand["opening"], single_turn_completion="",
        metric_names=spec["metrics"], metric_weights=cand["weights"], max_metric_workers=1,
        chat_history=[], num_samples=len(current), max_new_turns=spec["window"],
    )
    mr.append(sum(out["MR"]) / len(out["MR"]))
    seconds += time.perf_counter() - begin

parsed = []
for reply in spec["replies"]:
    try:
        value = extract_json(reply)
        ok = isinstance(value, dict) and {"current_answer", "thought", "response"} <= value.keys()
        parsed.append(value["response"].strip() if ok else None)
    except Exception:
        parsed.append(None)
begin = time.perf_counter()
for _ in range(spec["n_timed"]):
    value = extract_json(spec["replies"][0])
    {"current_answer", "thought", "response"} <= value.keys()
parse_seconds = time.perf_counter() - begin
json.dump({"mr": mr, "seconds": seconds, "parsed": parsed, "parse_seconds": parse_seconds},
          open(sys.argv[3], "w"))
"""


def recorded(tasks, seed: int = 1):
    """Per (task, candidate action): our MR and the conversations it averages, replayed with
    the same generator draws as ``multiturn_aware_reward`` (checked equal to it)."""
    base, user = BasePolicy(), ProgrammaticUser()
    out = []
    for t in tasks:
        for a in range(N_ACTIONS):
            conv = Conversation.open(t)
            mr = multiturn_aware_reward(
                conv,
                a,
                base,
                user,
                num_samples=NUM_SAMPLES,
                max_new_turns=WINDOW,
                rng=np.random.default_rng([seed, len(out)]),
            )
            rng = np.random.default_rng([seed, len(out)])  # the same draws, in the same order
            first = step(conv.copy(), a, user, rng=rng)
            if a == ANSWER:
                convs = [first]
            else:
                starts = [first] + [
                    step(conv.copy(), a, user, rng=rng) for _ in range(NUM_SAMPLES - 1)
                ]
                convs = [simulate(c, base, user, WINDOW // 2, rng) for c in starts]
            replay = float(np.mean([conversation_reward(c) for c in convs]))
            if replay != mr:
                raise RuntimeError(f"replay {replay} differs from multiturn_aware_reward {mr}")
            out.append({"task": t, "action": a, "mr": mr, "conversations": convs})
    return out


def user_replies() -> list[tuple[str, str]]:
    """(case, reply): a user simulator's answer in the official format and its usual faults."""
    fields = {
        "current_answer": "none yet",
        "thought": "It asks about the statistic; I want the median.",
        "response": "The median, please.",
    }
    good = json.dumps(fields)
    single = str(fields)
    return [
        ("well-formed JSON", good),
        ("JSON in a ```json fence", f"```json\n{good}\n```"),
        ("a sentence, then the JSON", f"Sure.\n{good}"),
        ("Python dict (single quotes)", single),
        ("trailing comma", good[:-1] + ",}"),
        ("a brace inside a string", good.replace("It asks", "It asks {")),
        ("two JSON objects", f"{good}\n{good}"),
        (
            "key 'current_answer' missing",
            json.dumps({k: fields[k] for k in ("thought", "response")}),
        ),
        ("no JSON, plain reply", "The median, please."),
        ("ends the chat", json.dumps({**fields, "response": TERMINATE})),
    ]


def ours_reply(text: str) -> str:
    """What ``agents.LLMUser.reply`` takes as the user's message."""
    parsed = _json_object(text)
    return str(parsed.get("response", "")) if parsed else text.strip()


def official(src: str, python: str, repeat: int) -> str:
    if not (Path(src) / "collabllm" / "reward.py").exists():
        raise SystemExit(f"--official-src must hold collabllm/reward.py: {src}")
    torch.set_num_threads(1)
    tasks = draw_tasks(N_PER_CELL, range(4), np.random.default_rng(0))
    cands = recorded(tasks)
    replies = user_replies()
    spec = {
        "metrics": list(METRICS),
        "window": WINDOW,
        "n_timed": N_TIMED,
        "replies": [r for _, r in replies],
        "candidates": [
            {
                "opening": c["task"].opening(),
                "weights": [
                    c["task"].spec.weight_task,
                    c["task"].spec.weight_interactivity,
                    c["task"].spec.weight_tokens,
                ],
                "conversations": [
                    {"messages": conv.messages, "metrics": conversation_metrics(conv)}
                    for conv in c["conversations"]
                ],
            }
            for c in cands
        ],
    }

    def ours_scoring():
        return [float(np.mean([conversation_reward(v) for v in c["conversations"]])) for c in cands]

    env = {**os.environ, "OMP_NUM_THREADS": "1", "ENABLE_COLLABLLM_LOGGING": "0"}
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # no network: its bundled price table
    best = {"ours": np.inf, "theirs": np.inf, "parse_ours": np.inf, "parse_theirs": np.inf}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "driver.py").write_text(DRIVER)
        (work / "spec.json").write_text(json.dumps(spec))
        env["RUN_USER_DIR"] = str(work / "run")
        for _ in range(repeat):  # interleaved, best of repeat
            subprocess.run(
                [python, "driver.py", str(Path(src).resolve()), "spec.json", "out.json"],
                check=True,
                cwd=work,
                env=env,
                capture_output=True,
            )
            theirs = json.loads((work / "out.json").read_text())
            best["theirs"] = min(best["theirs"], theirs["seconds"])
            best["parse_theirs"] = min(best["parse_theirs"], theirs["parse_seconds"])
            begin = time.perf_counter()
            mine = ours_scoring()
            best["ours"] = min(best["ours"], time.perf_counter() - begin)
            begin = time.perf_counter()
            for _ in range(N_TIMED):
                ours_reply(replies[0][1])
            best["parse_ours"] = min(best["parse_ours"], time.perf_counter() - begin)
    mine = np.array(mine).reshape(len(tasks), N_ACTIONS)  # (T, A)
    their = np.array(theirs["mr"]).reshape(len(tasks), N_ACTIONS)
    pairs_same = int(
        np.sum((mine.argmax(1) == their.argmax(1)) & (mine.argmin(1) == their.argmin(1)))
    )
    n_conv = sum(len(c["conversations"]) for c in cands)
    rows = [
        [
            f"MR of {mine.size} candidates ({n_conv} recorded conversations, 3 samples, window 4)",
            best["ours"],
            best["theirs"],
            best["theirs"] / best["ours"],
            f"mean MR {mine.mean():.4g}",
            f"mean MR {their.mean():.4g}",
            f"max abs diff {np.abs(mine - their).max():.2g}; same pair in "
            f"{pairs_same} of {len(tasks)} states",
        ]
    ]
    same = 0
    parse_rows = []
    for (case, reply), their_reply in zip(replies, theirs["parsed"], strict=True):
        my_reply = ours_reply(reply)
        same += my_reply == their_reply
        parse_rows.append(
            [case, repr(my_reply), "asks again" if their_reply is None else repr(their_reply)]
        )
    rows.append(
        [
            f"parse one well-formed user reply (x {N_TIMED})",
            best["parse_ours"],
            best["parse_theirs"],
            best["parse_theirs"] / best["parse_ours"],
            "",
            "",
            f"same message from {same} of {len(replies)} scripted replies",
        ]
    )
    header = [
        "setting",
        "ours s",
        "official s",
        "time ratio official/ours",
        "ours",
        "official",
        "result",
    ]
    return (
        table(header, rows)
        + "\n\n"
        + table(["scripted user reply", "ours takes", "official takes"], parse_rows)
    )


def sampling() -> str:
    torch.set_num_threads(1)
    tasks = draw_tasks(N_PER_CELL, range(4), np.random.default_rng(0))
    base, user = BasePolicy(), ProgrammaticUser()
    rows = []
    for window in WINDOWS:

        def sampled(window=window):
            rng = np.random.default_rng(1)
            return np.array(
                [
                    [
                        multiturn_aware_reward(
                            Conversation.open(t), a, base, user, max_new_turns=window, rng=rng
                        )
                        for a in range(N_ACTIONS)
                    ]
                    for t in tasks
                ]
            )  # (T, A)

        def exact(window=window):
            return np.array(
                [
                    [
                        exact_multiturn_aware_reward(
                            Conversation.open(t), a, base, user, max_new_turns=window
                        )
                        for a in range(N_ACTIONS)
                    ]
                    for t in tasks
                ]
            )

        t_exact, _, r_exact = measure(exact, repeat=1)
        t_mc, m_mc, r_mc = measure(sampled, repeat=1)
        rows.append(
            [
                window,
                len(tasks) * N_ACTIONS,
                t_exact,
                t_mc,
                t_exact / t_mc,
                m_mc,
                float(np.abs(r_mc - r_exact).mean()),
                float(np.mean(r_mc.argmax(1) == r_exact.argmax(1))),
            ]
        )
    header = [
        "window (messages)",
        "candidates",
        "exact s",
        "3 samples s",
        "exact / sampled time",
        "sampled peak MB",
        "mean |sampled - exact|",
        "same best action",
    ]
    return table(header, rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--official-src", help="a checkout of microsoft/CollabLLM")
    parser.add_argument("--official-python", default=sys.executable)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="skip the sampling table")
    args = parser.parse_args()
    if args.official_src:
        print(official(args.official_src, args.official_python, args.repeat), flush=True)
    else:
        print(
            "official rows skipped: fetch github.com/microsoft/CollabLLM outside this repository"
            " and pass --official-src PATH and --official-python PYTHON (litellm, transformers,"
            " torch, nltk)"
        )
    if not args.quick:
        print()
        print(sampling())


if __name__ == "__main__":
    main()
