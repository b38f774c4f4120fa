"""embodiedbench: our planner's parsing and success test against the official code; the oracle.

Tables, printed as markdown (one thread):

1. official (needs ``--official-src``, a checkout of EmbodiedBench/EmbodiedBench): what of the
   official EB-Navigation code runs without a model and without AI2-THOR, on the same inputs as
   ours:
   - parsing: ``EBNavigationPlanner.json_to_action`` (``planner/nav_planner.py``) against our
     ``vlm.parse_plan`` on scripted replies of a planner model, one per way a reply can be
     right or wrong; per reply the actions each would execute ("random" where the reply is
     unusable and one random action is drawn), and the time per reply;
   - success: ``EBNavigationEnv.measure_success`` (``envs/eb_navigation/EBNavEnv.py``) against
     our environment's test (``world.distance`` <= ``SUCCESS_DISTANCE``) on agent and target
     positions drawn in our rooms, the agent put within 0.5 m of the 1 m threshold.
   The two modules import model clients and the simulator at the top (lmdeploy, which needs a
   GPU and CUDA, openai, anthropic, google-generativeai, opencv, hydra, omegaconf, ai2thor,
   gym); none of them is used by the two methods called, so a small driver, run in a subprocess
   in a temporary folder (``embodiedbench/main.py`` makes a symbolic link in its working
   folder when imported), puts empty stand-in modules under those names before importing the
   official files. The methods are called on a plain object carrying the attributes they read.
   Nothing of the official code is copied here.
2. search: the oracle's lattice distances, ours (boolean-array dilation) against networkx
   (``multi_source_dijkstra_path_length`` on the grid graph of the free lattice points).
3. frames: the renderer's time per frame.

    python benchmarks/bench_embodiedbench.py --official-src /tmp/anchors/embodiedbench
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

os.environ.setdefault("OMP_NUM_THREADS", "1")

import networkx as nx  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from harness import measure, table  # noqa: E402

from icml25.embodiedbench.env import ACTIONS  # noqa: E402
from icml25.embodiedbench.render import render  # noqa: E402
from icml25.embodiedbench.route import moves_to_goal  # noqa: E402
from icml25.embodiedbench.vlm import parse_plan  # noqa: E402
from icml25.embodiedbench.world import (  # noqa: E402
    STEP,
    SUCCESS_DISTANCE,
    Pose,
    distance,
    generate_room,
)

N_TIMED = 20_000  # replies parsed for the time per reply

# Run by --official-python in a temporary folder: argv = checkout, input JSON, output JSON.
DRIVER = """
import importlib, json, sys, time, types

class Stub:
    def __init__(self, *args, **kwargs):
        pass
    def __call__(self, *args, **kwargs):
        return args[0] if len(args) == 1 and callable(args[0]) else Stub()
    def __getattr__(self, name):
        return Stub()

def stub_module(name):
    module = types.ModuleType(name)
    module.__getattr__ = lambda attr: type(attr, (Stub,), {})
    module.__path__ = []
    sys.modules[name] = module
    parent, _, child = name.rpartition(".")
    if parent:
        setattr(sys.modules[parent], child, module)

for name in ("lmdeploy", "openai", "anthropic", "google", "google.generativeai", "cv2", "hydra",
             "omegaconf", "ai2thor", "ai2thor.controller", "ai2thor.platform", "gym"):
    try:
        importlib.import_module(name)
    except ImportError:
        stub_module(name)

sys.path.insert(0, sys.argv[1])
from embodiedbench.planner.nav_planner import EBNavigationPlanner
from embodiedbench.envs.eb_navigation.EBNavEnv import EBNavigationEnv
import numpy as np

spec = json.load(open(sys.argv[2]))
planner = types.SimpleNamespace(action_key="action_id", actions=spec["actions"],
                                output_json_error=0)
np.random.seed(0)
parsed = []
for reply in spec["replies"]:
    action, valid = EBNavigationPlanner.json_to_action(planner, reply)
    parsed.append({"action": action if isinstance(action, list) else int(action),
                   "valid": bool(valid)})
timed = [spec["replies"][0]] * spec["n_timed"]
begin = time.perf_counter()
for reply in timed:
    EBNavigationPlanner.json_to_action(planner, reply)
parse_seconds = time.perf_counter() - begin

success = []
begin = time.perf_counter()
for (ax, az), (tx, tz) in zip(spec["agents"], spec["targets"]):
    env = types.SimpleNamespace(
        env=types.SimpleNamespace(last_event=types.SimpleNamespace(
            metadata={"agent": {"position": {"x": ax, "y": 0.9, "z": az}}})),
        episode_data={"targetObjectIds": "target", "target_position": {"x": tx, "y": 0.0, "z": tz}},
    )
    success.append(list(EBNavigationEnv.measure_success(env)))
success_seconds = time.perf_counter() - begin
json.dump({"parsed": parsed, "parse_seconds": parse_seconds, "success": success,
           "success_seconds": success_seconds, "json_errors": planner.output_json_error},
          open(sys.argv[3], "w"))
"""


def scripted_replies() -> list[tuple[str, str]]:
    """(case, reply text): a well-formed answer in our prompt's format and its usual faults."""
    answer = {
        "visual_state_description": "A red ball is ahead on the left, past a table.",
        "reasoning_and_reflection": "The ball is in view; moving forward brings it closer.",
        "language_plan": "1. Move forward. 2. Move forward. 3. Move left.",
        "executable_plan": [
            {"action_id": 0, "action_name": ACTIONS[0]},
            {"action_id": 0, "action_name": ACTIONS[0]},
            {"action_id": 3, "action_name": ACTIONS[3]},
        ],
    }
    good = json.dumps(answer)

    def with_plan(plan):
        return json.dumps({**answer, "executable_plan": plan})

    no_plan = {k: v for k, v in answer.items() if k != "executable_plan"}
    return [
        ("well-formed JSON", good),
        ("JSON in a ```json fence", f"```json\n{good}\n```"),
        ("a sentence, then the JSON", f"Here is my plan.\n{good}"),
        ("Python dict (single quotes)", str(answer)),
        ("truncated JSON", good[: len(good) * 3 // 4]),
        ("no JSON at all", "I will move forward twice and then left."),
        ("executable_plan missing", json.dumps(no_plan)),
        ("executable_plan empty", with_plan([])),
        ("action id 9 (8 actions)", with_plan([{"action_id": 9, "action_name": "jump"}])),
        ("action id -1", with_plan([{"action_id": -1, "action_name": "back"}])),
        ('action id as a string "2"', with_plan([{"action_id": "2", "action_name": ACTIONS[2]}])),
        ("action id 2.0", with_plan([{"action_id": 2.0, "action_name": ACTIONS[2]}])),
    ]


def success_inputs(n: int, rng: np.random.Generator):
    """(agents (n, 2), targets (n, 2), rooms, poses, target indices): our rooms, the agent
    at 0.5-1.5 m from the target, in any direction."""
    agents, targets, cases = [], [], []
    for _ in range(n):
        room = generate_room(rng)
        k = int(rng.integers(len(room.positions)))
        r, a = (
            rng.uniform(SUCCESS_DISTANCE - 0.5, SUCCESS_DISTANCE + 0.5),
            rng.uniform(0, 2 * np.pi),
        )
        agent = room.positions[k] + r * np.array([np.cos(a), np.sin(a)])
        agents.append(agent.tolist())
        targets.append(room.positions[k].tolist())
        cases.append((room, Pose(float(agent[0]), float(agent[1]), 0.0), k))
    return agents, targets, cases


def describe(actions) -> str:
    return "random" if actions is None else str(actions)


def official(src: str, python: str, repeat: int) -> str:
    if not (Path(src) / "embodiedbench" / "planner" / "nav_planner.py").exists():
        raise SystemExit(f"--official-src must hold embodiedbench/planner/nav_planner.py: {src}")
    replies = scripted_replies()
    agents, targets, cases = success_inputs(2000, np.random.default_rng(0))
    spec = {
        "actions": list(ACTIONS),
        "replies": [r for _, r in replies],
        "n_timed": N_TIMED,
        "agents": agents,
        "targets": targets,
    }
    best = {"parse_ours": np.inf, "parse_theirs": np.inf, "ok_ours": np.inf, "ok_theirs": np.inf}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "driver.py").write_text(DRIVER)
        (work / "spec.json").write_text(json.dumps(spec))
        for _ in range(repeat):  # interleaved, best of repeat
            subprocess.run(
                [python, "driver.py", str(Path(src).resolve()), "spec.json", "out.json"],
                check=True,
                cwd=work,
                capture_output=True,
                env={**os.environ, "OMP_NUM_THREADS": "1"},
            )
            theirs = json.loads((work / "out.json").read_text())
            best["parse_theirs"] = min(best["parse_theirs"], theirs["parse_seconds"])
            best["ok_theirs"] = min(best["ok_theirs"], theirs["success_seconds"])
            begin = time.perf_counter()
            for _ in range(N_TIMED):
                parse_plan(replies[0][1], len(ACTIONS))
            best["parse_ours"] = min(best["parse_ours"], time.perf_counter() - begin)
            begin = time.perf_counter()
            ours_ok = [distance(room, pose, k) <= SUCCESS_DISTANCE for room, pose, k in cases]
            best["ok_ours"] = min(best["ok_ours"], time.perf_counter() - begin)
    rows, same = [], 0
    for (case, reply), out in zip(replies, theirs["parsed"], strict=True):
        parsed = parse_plan(reply, len(ACTIONS))
        mine = None if parsed is None else parsed[0]
        their = out["action"] if isinstance(out["action"], list) else None
        same += mine == their
        rows.append([case, describe(mine), describe(their), out["valid"], mine == their])
    header = ["scripted reply", "ours executes", "official returns", "official valid", "same"]
    ours_ok = np.array(ours_ok)
    theirs_ok = np.array([s[0] for s in theirs["success"]]) > 0
    dist_ours = np.array([distance(room, pose, k) for room, pose, k in cases])
    dist_theirs = np.array([s[1] for s in theirs["success"]])
    summary = [
        [
            f"parse one well-formed reply (x {N_TIMED})",
            best["parse_ours"] / N_TIMED * 1e6,
            best["parse_theirs"] / N_TIMED * 1e6,
            best["parse_theirs"] / best["parse_ours"],
            "",
            "",
            f"same actions on {same} of {len(replies)} scripted replies (below)",
        ],
        [
            f"success test, {len(cases)} positions at 0.5-1.5 m",
            best["ok_ours"] / len(cases) * 1e6,
            best["ok_theirs"] / len(cases) * 1e6,
            best["ok_theirs"] / best["ok_ours"],
            f"{int(ours_ok.sum())} successes",
            f"{int(theirs_ok.sum())} successes",
            f"agree {np.mean(ours_ok == theirs_ok):.4g}, "
            f"max abs distance diff {np.abs(dist_ours - dist_theirs).max():.2g} m",
        ],
    ]
    header_summary = [
        "setting",
        "ours us",
        "official us",
        "time ratio official/ours",
        "ours",
        "official",
        "result",
    ]
    return table(header_summary, summary) + "\n\n" + table(header, rows)


def networkx_distances(room, pose, target):
    """networkx: graph of free lattice points, multi-source BFS from the goal. -> (2N+1, 2N+1)"""
    n = int(np.ceil(max(room.size) / STEP)) + 1
    offsets = STEP * np.arange(-n, n + 1)
    points = np.stack(np.meshgrid(pose.x + offsets, pose.y + offsets, indexing="ij"), axis=-1)
    free = room.free(points)
    graph = nx.grid_2d_graph(2 * n + 1, 2 * n + 1)
    graph.remove_nodes_from([tuple(p) for p in np.argwhere(~free)])
    near = np.hypot(*(points - target).transpose(2, 0, 1)) <= SUCCESS_DISTANCE
    goal = [tuple(p) for p in np.argwhere(free & near)]
    lengths = nx.multi_source_dijkstra_path_length(graph, goal)
    dist = np.full(free.shape, -1)
    for (i, j), k in lengths.items():
        dist[i, j] = k
    return dist


def search() -> str:
    rows = []
    for seed in range(3):
        room = generate_room(np.random.default_rng(seed))
        pose = Pose(room.size[0] / 2, 0.5, 0.0)
        target = room.positions[0]
        t_nx, _, d_nx = measure(lambda: networkx_distances(room, pose, target))  # noqa: B023
        t_ours, _, (d_ours, _) = measure(lambda: moves_to_goal(room, pose, target))  # noqa: B023
        rows.append(
            [
                f"room {seed} ({room.size[0]:.1f} x {room.size[1]:.1f} m), {d_ours.size} points",
                1e3 * t_ours,
                1e3 * t_nx,
                t_nx / t_ours,
                "equal" if np.array_equal(d_nx, d_ours) else "DIFFERENT",
            ]
        )
    header = ["lattice distances", "ours ms", "networkx ms", "time ratio nx/ours", "maps"]
    return table(header, rows)


def frames() -> str:
    room = generate_room(np.random.default_rng(0))
    pose = Pose(room.size[0] / 2, 0.5, 0.0)
    rows = []
    for w, h in ((128, 96), (500, 500)):
        t, mem, _ = measure(lambda: render(room, pose, w, h))  # noqa: B023
        rows.append([f"{w} x {h}", 1e3 * t, 1 / t, mem])
    return table(["frame", "ms per frame", "frames per s", "peak MB"], rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--official-src", help="a checkout of EmbodiedBench/EmbodiedBench")
    parser.add_argument("--official-python", default=sys.executable, help="with numpy, pydantic")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if args.official_src:
        print(official(args.official_src, args.official_python, args.repeat), flush=True)
    else:
        print(
            "official rows skipped: fetch github.com/EmbodiedBench/EmbodiedBench outside this "
            "repository and pass --official-src PATH"
        )
    print()
    print(search())
    print()
    print(frames())


if __name__ == "__main__":
    main()
