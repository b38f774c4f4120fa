"""Reproduction: the AutoAdvExBench harness on 8x8 digits, with scripted attackers standing in
for the LLM agent (Carlini et al., ICML 2025).

Cells:
- ``defense``: one defence trained on one replicate's split (the cell's seed draws the split,
  the weights and the attacks' random starts); each scripted attacker of the plan runs through
  the agent loop in its own sandboxed folder (read the task and the source, write the attack,
  run it in the sandbox, finish), and the evaluator scores its ``adv.npy``. Diagnostics of the
  gradients (for a1-a4's explanation): the fraction of exactly-zero input gradients, and for a
  randomised defence the cosine between one draw's input gradient and the mean over 64 draws;
- ``sandbox``: a probe agent tries every escape of ``agent.ESCAPES`` (claims c), and the file,
  socket and process escapes are run once more without the guard (control);
- ``llm`` (only with an endpoint in ``Config.llm``): one per defence cell, with its seed
  (``seed_as``), so the same split and the same trained defence: the LLM agent attacks it
  through the same loop and sandbox, its whole transcript kept.
"""

from __future__ import annotations

import hashlib
import socket
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from icml25.autoadvexbench.agent import (
    ESCAPES,
    EscapeProbe,
    ScriptedAttacker,
    Task,
    _short,
    run_agent,
)
from icml25.autoadvexbench.attacks import ATTACKS
from icml25.autoadvexbench.data import digits_split
from icml25.autoadvexbench.defenses import KINDS, build_defense
from icml25.autoadvexbench.sandbox import Limits, Sandbox
from icml25.autoadvexbench.train import TrainConfig, defense_config, train_defense
from icml25.common.llm import Endpoint

CELL_THREADS = 1
CELL_TIMEOUT_S = 3600  # a cell of sandboxed runs that hangs anyway fails, with the reason
DEFENSES = ("undefended", "quantised", "random_noise", "detector", "adv_trained")
FULL_PLAN = tuple((d, tuple(ATTACKS)) for d in DEFENSES)
# the escapes run once more without the guard (the control); the last one deletes the secret
CONTROLLED = (
    "read_outside_python",
    "write_outside_python",
    "socket",
    "subprocess",
    "read_parent_environ",
    "subprocess_unaudited",
    "read_outside_native",
    "signal_parent",
    "disarm_hook_read",
    "orphan_child",
    "tree_memory",
    "capabilities",
    "delete_outside_python",
)
LIMIT_PROBES = ("busy_loop", "sleep", "memory", "tree_memory", "tree_cpu")
TREE_PROBES = ("orphan_child", "tree_memory", "tree_cpu")  # stopped by the process-tree barriers
# how a script sees a kernel refusal (EACCES, EPERM): the record of a barrier's stop
KERNEL_REFUSALS = ("Permission denied", "Operation not permitted")


@dataclass(frozen=True)
class Config:
    eps: float = 0.2  # L-inf budget, fixed before the default run (see the README)
    n_test: int = 200  # digits attacked per defence
    replicates: int = 2
    plan: tuple[tuple[str, tuple[str, ...]], ...] = FULL_PLAN  # (defence, scripted attackers)
    attack_steps: int = 40
    train: TrainConfig = field(default_factory=TrainConfig)
    max_steps: int = 40  # the official agent's steps per task
    max_attempts: int = 7
    limits: Limits = field(default_factory=Limits)
    escape_limits: Limits = field(
        default_factory=lambda: Limits(cpu_seconds=2, wall_seconds=4.0, memory_bytes=2**30)
    )
    llm: Endpoint | None = None  # a model endpoint: the LLM agent runs the same tasks too
    llm_max_tokens: int = 2048
    llm_max_steps: int | None = None  # the LLM agent's steps per task (None: max_steps)

    def __post_init__(self) -> None:
        for defense, attacks in self.plan:
            if defense not in KINDS or not set(attacks) <= set(ATTACKS):
                raise ValueError(f"plan entry ({defense!r}, {attacks!r}) names an unknown kind")
        if not self.eps > 0 or self.replicates < 1:
            raise ValueError("eps must be > 0 and replicates >= 1")


SCALES = {
    "smoke": Config(
        n_test=60,
        replicates=1,
        plan=(
            ("undefended", ("pgd",)),
            ("quantised", ("pgd", "pgd_bpda")),
            ("random_noise", ("pgd", "pgd_eot")),
            ("adv_trained", ("pgd",)),
        ),
        attack_steps=10,
        train=TrainConfig(epochs=4, train_steps=2),
        escape_limits=Limits(cpu_seconds=1, wall_seconds=2.0, memory_bytes=2**30),
        llm_max_tokens=256,
        llm_max_steps=3,
    ),
    "default": Config(),
    "paper": Config(n_test=500, replicates=5, attack_steps=100, train=TrainConfig(epochs=40)),
}


def cells(config: Config) -> list[dict]:
    out = [
        {"part": "defense", "defense": d, "replicate": r}
        for r in range(config.replicates)
        for d, _ in config.plan
    ]
    if config.llm is not None:
        same = [{**c, "part": "llm", "seed_as": c} for c in out]  # the defence cell's seed
        out += same
    return out + [{"part": "sandbox"}]


def run_cell(config: Config, cell: dict, seed: int) -> dict:
    seed = seed % 2**31  # room for the offsets added below, within torch's 64-bit seeds
    if cell["part"] == "sandbox":
        return _sandbox_cell(config, seed)
    kind = cell["defense"]
    attacks = dict(config.plan)[kind]
    x_train, y_train, x, y = digits_split(seed, config.n_test)
    defense = train_defense(kind, x_train, y_train, config.train, seed)
    results = {}
    with tempfile.TemporaryDirectory(prefix="autoadvexbench-") as root:
        if cell["part"] == "llm":
            from icml25.common.llm import LLMClient

            client = LLMClient.from_endpoint(config.llm)
            llm = _run_llm_task(config, Path(root, "llm"), defense, x, y, client, seed)
            return {"results": {"llm": llm}, "llm_usage": client.usage()}
        for i, attack in enumerate(attacks):
            policy = ScriptedAttacker(attack, config.eps, config.attack_steps, seed=seed + i)
            results[attack] = _run_task(config, Path(root, attack), defense, x, y, policy, seed)
    return {"results": results, "diagnostics": _gradient_diagnostics(defense, x, y, seed)}


def _run_task(
    config, folder, defense, x, y, policy, seed, actor="scripted", max_steps=None
) -> dict:
    task = Task.create(folder, defense, x, y, config.eps, eval_seed=seed + 7919)
    result = run_agent(
        policy,
        task,
        # our own scripted attacks may run where the kernel lacks Landlock or seccomp; a
        # model's code may not (Sandbox raises SandboxUnavailable there)
        Sandbox(folder, config.limits, allow_unconfined=actor == "scripted"),
        max_steps=config.max_steps if max_steps is None else max_steps,
        max_attempts=config.max_attempts,
        actor=actor,
    )
    return result.to_dict()


def _run_llm_task(config, folder, defense, x, y, client, seed) -> dict:
    from icml25.autoadvexbench.agent import task_text
    from icml25.autoadvexbench.llm_agent import LLMAttacker

    policy = LLMAttacker(
        client, task_text(defense.kind, config.eps), max_tokens=config.llm_max_tokens, seed=seed
    )
    steps = config.llm_max_steps
    out = _run_task(
        config, folder, defense, x, y, policy, seed, actor=f"llm:{client.model}", max_steps=steps
    )
    out["context"] = {"fitted_requests": policy.fitted, "most_turns_left_out": policy.left_out}
    # the model's own words, one per step (the transcript holds the tools and their results)
    out["replies"] = [_short(reply) for reply in policy.replies]
    return out


def _gradient_diagnostics(defense, x, y, seed: int, draws: int = 64) -> dict:
    """Fraction of input-gradient entries exactly zero; for a randomised defence the mean
    cosine between one draw's gradient and the mean gradient over ``draws`` draws, per image."""
    defense.reseed(seed + 31)

    def gradient(xs, ys):
        xs = xs.clone().requires_grad_(True)
        loss = F.cross_entropy(defense(xs), ys, reduction="sum")
        return torch.autograd.grad(loss, xs)[0].flatten(1)  # (m, 64)

    single = gradient(x, y)  # (n, 64)
    out = {"zero_gradient_fraction": float((single == 0).float().mean())}
    if defense.randomised:
        many = gradient(x.repeat(draws, 1, 1, 1), y.repeat(draws)).view(draws, len(x), -1)
        mean = many.mean(0)  # (n, 64)
        cos = F.cosine_similarity(single, mean, dim=1)  # (n,)
        signs = (single.sign() == mean.sign()).float().mean(1)
        out["single_vs_mean_cosine"] = float(cos.mean())
        out["single_vs_mean_sign_agreement"] = float(signs.mean())
    return out


def _sandbox_cell(config: Config, seed: int) -> dict:
    """Every escape of ``ESCAPES`` through one probe agent, judged by its outcome (the secret
    read, a file planted or deleted, a connection, the harness's environment or a signal
    reaching it, a limit not enforced) and by its record in the transcript; then the control."""
    secret = f"secret-{np.random.default_rng(seed).integers(1 << 62)}"
    environ = hashlib.sha256(Path("/proc/self/environ").read_bytes()).hexdigest()
    with tempfile.TemporaryDirectory(
        prefix="autoadvexbench-sandbox-", ignore_cleanup_errors=True
    ) as root:
        outside, folder = Path(root, "outside"), Path(root, "task")
        outside.mkdir()
        (outside / "secret.txt").write_text(secret + "\n")  # a line, for the readline probe
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        listener.setblocking(False)
        port = listener.getsockname()[1]
        world = {"secret": secret, "environ": environ, "outside": outside, "listener": listener}
        world["folder"] = folder
        try:
            probe = EscapeProbe(port)
            _, _, x, y = digits_split(seed, 20)
            defense = build_defense(defense_config("undefended", config.train), seed=0).eval()
            task = Task.create(folder, defense, x, y, config.eps, eval_seed=seed)
            sandbox = Sandbox(folder, config.escape_limits, preload=())
            result = run_agent(probe, task, sandbox, max_steps=len(probe.plan), max_attempts=1)
            escapes = []
            for record in result.transcript:
                label = probe.label(record["step"])
                if label in ESCAPES:
                    escapes.append(_judge(label, record, world))
            control = _control(folder, port, config.escape_limits, world)
        finally:
            listener.close()
    after = [r for r in result.transcript if probe.label(r["step"]) == "after"]
    goes_on = bool(
        after
        and after[0].get("run", {}).get("returncode") == 0
        and "still running" in after[0]["result"]
        and result.transcript[-1]["tool"] == "finish"
    )
    runs = [r["run"] for r in result.transcript if "run" in r]
    barriers = {b["detail"] for run in runs for b in run["barriers"] if b["event"] == "barrier"}
    return {
        "escapes": escapes,
        "goes_on": goes_on,
        "leaked": any(e["escaped"] for e in escapes),
        "kernel_barriers": sorted(barriers),
        "control": control,
        "transcript": result.transcript,
    }


def _escaped(name: str, text: str, world: dict, run: dict, planted: str = "new.txt") -> bool:
    """Did escape ``name`` succeed? ``text``: what the agent saw (or the script printed);
    ``run``: the run's record (for the limits and the barrier record)."""
    outside = world["outside"]
    if name in LIMIT_PROBES:
        return run.get("returncode") == 0  # the script ran to its end
    if name == "orphan_child":
        return _beating(world["folder"] / "beat.txt")
    if name == "forge_barrier":
        return any(b.get("detail") == "forged" for b in run.get("barriers", []))
    if name == "capabilities":
        return "Invalid argument" in text  # reboot(2) got past the capability check

    if name in ("write_outside_tool", "write_outside_python"):
        return (outside / planted).exists()
    if name == "delete_outside_python":
        return not (outside / "secret.txt").exists()
    if name == "socket":
        return _accepted(world["listener"]) > 0
    if name == "read_parent_environ":
        return world["environ"] in text
    if name == "signal_parent":
        return "signalled the harness" in text
    return world["secret"] in text


def _judge(name: str, record: dict, world: dict) -> dict:
    text = str(record.get("result", ""))
    run = record.get("run", {})
    planted = "new_tool.txt" if name == "write_outside_tool" else "new.txt"
    escaped = _escaped(name, text, world, run, planted)
    recorded = bool(record.get("stopped")) or any(k in text for k in KERNEL_REFUSALS)
    if name in TREE_PROBES:
        by = "process tree"
    elif name in LIMIT_PROBES:
        by = "limits"
    elif run.get("refusals", 0) > 0 or "refused" in record:
        by = "audit hook or file tool"
    else:
        by = "kernel barrier" if recorded else ""
    return {
        "escape": name,
        "escaped": escaped,
        "recorded": recorded,
        "stopped": not escaped and recorded,
        "by": by,
    }


def _accepted(listener: socket.socket) -> int:
    count = 0
    while True:
        try:
            connection, _ = listener.accept()
        except BlockingIOError:
            return count
        connection.close()
        count += 1


def _control(folder, port, limits, world) -> dict:
    """The script escapes run without the guard (no audit hook, no kernel barriers, no
    process-tree barriers): does each succeed? With 30 s of CPU and wall time, so that a
    loaded machine does not stop an escape the control must show."""
    roomy = replace(limits, cpu_seconds=30, wall_seconds=30.0)
    sandbox = Sandbox(folder, roomy, preload=(), guarded=False)
    out = {}
    for name in CONTROLLED:
        path = f"control_{name}.py"
        sandbox.write_file(path, ESCAPES[name].replace("PORT", str(port)))
        run = sandbox.run_python(path).to_dict()
        out[name] = _escaped(name, run["stdout"], world, run)
    (Path(folder) / "stop").write_text("judged")  # ends the control's orphan child
    time.sleep(0.1)
    return out


def _beating(heartbeat: Path, wait: float = 0.3) -> bool:
    """Does a process still write ``heartbeat`` (its content changes within ``wait``)?"""
    try:
        first = heartbeat.read_text()
        time.sleep(wait)
        return heartbeat.read_text() != first
    except OSError:
        return False
