"""The attack agent's loop (AutoAdvExBench, Carlini et al., ICML 2025, Sec. 4; the official
``baseline_attack_agent/attack.py``): at each step a policy names one tool, the harness runs it
in the task's sandbox and hands back the result, until the policy finishes or a limit is hit.

Tools: ``read_file(path)``, ``write_file(path, content)``, ``run_python(path)`` (in the sandbox,
under its limits) and ``finish()``, which submits ``adv.npy`` from the folder to the evaluator;
the task ends when the defence is broken, after ``max_attempts`` submissions, or after
``max_steps`` steps (the official agent: 40 steps; its notes: 7 attempts). The result is the
evaluation of the last submission. Every step goes into the transcript.

Policies: ``ScriptedAttacker`` (a fixed tool sequence that writes and runs one of the PGD
attacks of ``attacks.py``; it stands in for the LLM agent and is labelled "scripted" wherever
its results appear), ``EscapeProbe`` (tries to leave the sandbox), and ``LLMAttacker`` (any
chat model through ``icml25.common.llm``, tool calls as one JSON object per reply).
"""

from __future__ import annotations

import inspect
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from icml25.autoadvexbench import attacks, defenses
from icml25.autoadvexbench.evaluate import Evaluation, evaluate
from icml25.autoadvexbench.sandbox import Sandbox, SandboxError
from icml25.common.llm import LLMError

TOOLS = ("read_file", "write_file", "run_python", "finish")
TRANSCRIPT_TEXT = 2000  # characters of each argument and result kept in the transcript


@dataclass(frozen=True)
class ToolCall:
    """One tool the policy asks the harness to run.

    Parameters
    ----------
    tool : str
        One of ``TOOLS`` (``"read_file"``, ``"write_file"``, ``"run_python"``, ``"finish"``),
        or ``"give_up"`` / ``"invalid"`` from the loop itself.
    args : dict, default {}
        The tool's arguments: ``path`` and, for ``write_file``, ``content``.
    """

    tool: str
    args: dict = field(default_factory=dict)


@dataclass
class AgentResult:
    """The outcome of one run of the agent's loop (:func:`run_agent`).

    Parameters
    ----------
    evaluation : Evaluation or None
        The evaluation of the last submission; None if nothing was submitted.
    steps : int
        Records in the transcript.
    attempts : int
        ``finish`` submissions made.
    stop_reason : str
        ``"broken"``, ``"attempts"``, ``"steps"``, ``"gave up"`` or ``"model error"``.
    transcript : list of dict
        One record per step: ``step``, ``actor``, ``tool``, ``args``, ``result``, ``seconds``
        and the tool's extra fields.

    Notes
    -----
    ``to_dict()`` gives the fields as JSON-ready values.
    """

    evaluation: Evaluation | None  # of the last submission; None if nothing was submitted
    steps: int
    attempts: int
    stop_reason: str  # "broken", "attempts", "steps", "gave up", "model error"
    transcript: list[dict]

    def to_dict(self) -> dict:
        ev = self.evaluation
        return {
            "evaluation": None if ev is None else ev.to_dict(),
            "steps": self.steps,
            "attempts": self.attempts,
            "stop_reason": self.stop_reason,
            "transcript": self.transcript,
        }


@dataclass
class Task:
    """One defence to attack, with the folder the agent works in.

    The folder holds ``task.md``, ``defenses.py`` (the source of all defences),
    ``defense.json`` and ``weights.pt`` (this one), ``data.npz`` (x, y); the harness keeps the
    defence itself for the evaluator. ``Task.create(folder, defense, x, y, eps, eval_seed)``
    writes those files and returns the task.

    Parameters
    ----------
    folder : pathlib.Path
        The task's folder.
    defense : Defense
        The defence the evaluator scores submissions against.
    x : torch.Tensor
        (n, 1, 8, 8) test images in [0, 1].
    y : torch.Tensor
        (n,) their labels.
    eps : float
        L-infinity budget, ``> 0``.
    eval_seed : int
        Seed the evaluator gives a randomised defence.
    """

    folder: Path
    defense: defenses.Defense
    x: torch.Tensor  # (n, 1, 8, 8)
    y: torch.Tensor  # (n,)
    eps: float
    eval_seed: int

    @classmethod
    def create(cls, folder, defense, x, y, eps: float, eval_seed: int) -> Task:
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(inspect.getfile(defenses), folder / "defenses.py")
        defenses.save_defense(defense, folder)
        np.savez(folder / "data.npz", x=x.numpy(), y=y.numpy())
        (folder / "task.md").write_text(task_text(defense.kind, eps))
        return cls(folder, defense, x, y, eps, eval_seed)


def task_text(kind: str, eps: float) -> str:
    """The task description the agent is given as ``task.md``.

    Our wording; the official prompt walks through forward pass, gradients, FGSM and PGD.

    Parameters
    ----------
    kind : str
        The defence's kind, named in the text.
    eps : float
        The L-infinity budget, stated in the rules.

    Returns
    -------
    text : str
        Markdown with the task, the files of the folder and the rules.
    """
    return (
        "# Task\n"
        f"Evaluate the robustness of a defended digit classifier (defence kind: {kind}).\n"
        "Write a Python script in this folder that builds adversarial examples and saves them "
        "as `adv.npy` (float32, same shape as `x`), then call `finish`.\n\n"
        "## Files\n"
        "- `defenses.py`: the source of the defence; `load_defense('.')` returns it as a torch "
        "module: `forward(x)` gives logits (n, 10) for x (n, 1, 8, 8) in [0, 1], `predict(x)` "
        "gives labels with -1 for a rejected input.\n"
        "- `data.npz`: arrays `x` (n, 1, 8, 8) and `y` (n,), the test digits.\n\n"
        "## Rules\n"
        f"- L-infinity budget eps = {eps}: every |adv - x| <= {eps}, values in [0, 1].\n"
        "- A rejected adversarial example counts as correctly classified.\n"
        "- The defence counts as broken when accuracy on `adv.npy` falls below half its clean "
        "accuracy.\n"
        "- Only numpy and torch are available; no network, no files outside this folder.\n"
    )


Policy = Callable[[list[dict]], ToolCall]


def run_agent(
    policy: Policy,
    task: Task,
    sandbox: Sandbox,
    *,
    max_steps: int = 40,
    max_attempts: int = 7,
    actor: str = "scripted",
) -> AgentResult:
    """The loop: ask ``policy`` (the transcript so far -> ToolCall), run the tool, record.

    The attack agent's loop of AutoAdvExBench (Carlini et al., ICML 2025, Sec. 4): at each step
    the policy names one tool, ``read_file(path)``, ``write_file(path, content)``,
    ``run_python(path)`` (run in ``sandbox``, under its limits) or ``finish()``, which submits
    ``adv.npy`` from the task's folder to the evaluator. The task ends when a submission breaks
    the defence (robust accuracy below half the clean accuracy), after ``max_attempts``
    submissions, after ``max_steps`` steps, or when the policy returns ``ToolCall("give_up")``.

    A ValueError from the policy (an unreadable reply) is an ``invalid`` step shown to the
    agent; an ``LLMError`` (the model's server failed after its retries) ends the task with
    ``stop_reason = "model error"``, its record in the transcript and the last submission's
    evaluation kept.

    Parameters
    ----------
    policy : Callable[[list[dict]], ToolCall]
        The agent: called with the transcript so far (one dict per earlier step, with its
        ``tool``, ``args`` and ``result``), it returns the next :class:`ToolCall`. For instance
        :class:`ScriptedAttacker` (offline), :class:`EscapeProbe` or :class:`LLMAttacker`.
    task : Task
        The defence to attack, made by :meth:`Task.create`: its folder (``task.md``,
        ``defenses.py``, the weights, ``data.npz``), the defence the evaluator uses, the test
        digits ``x`` (n, 1, 8, 8) and ``y`` (n,), the L-infinity budget ``eps`` and the
        evaluation seed.
    sandbox : Sandbox
        The sandbox over ``task.folder`` in which the file tools and ``run_python`` act.
    max_steps : int, default 40
        The most steps (policy calls) of the task, >= 1 (the official agent: 40).
    max_attempts : int, default 7
        The most ``finish`` submissions, >= 1 (the official notes: 7).
    actor : str, default "scripted"
        Who plays the policy, written into each transcript record (e.g. ``"llm:<model>"``).

    Returns
    -------
    AgentResult
        ``evaluation`` (the :class:`Evaluation` of the last submission, None if none was
        made), ``steps`` (the number of transcript records), ``attempts`` (submissions),
        ``stop_reason`` (``"broken"``, ``"attempts"``, ``"steps"``, ``"gave up"`` or
        ``"model error"``) and ``transcript`` (a list of one dict per step).

    Raises
    ------
    ValueError
        If ``max_steps`` or ``max_attempts`` is below 1.
    """
    if max_steps < 1 or max_attempts < 1:
        raise ValueError(f"max_steps, max_attempts must be >= 1, got {max_steps}, {max_attempts}")
    transcript: list[dict] = []
    evaluation, attempts, stop = None, 0, "steps"
    for step in range(max_steps):
        begin = time.perf_counter()
        try:
            call = policy(transcript)
        except LLMError as error:  # the model failed (HTTP 400 for a too long context, ...)
            transcript.append(_model_error(step, actor, error, time.perf_counter() - begin))
            stop = "model error"
            break
        except ValueError as error:  # an unreadable reply is the agent's step, not a crash
            call = ToolCall("invalid", {"error": str(error)})
        record = {"step": step, "actor": actor, "tool": call.tool, "args": _short(call.args)}
        if call.tool == "finish":
            attempts += 1
            evaluation = _submit(task, sandbox)
            record["result"] = _feedback(evaluation)
            record["evaluation"] = evaluation.to_dict()
        else:
            result, extra = _run_tool(call, sandbox)
            record["result"] = result
            record.update(extra)
        record["seconds"] = time.perf_counter() - begin
        transcript.append(record)
        if call.tool == "finish" and evaluation.broken:
            stop = "broken"
            break
        if attempts >= max_attempts:
            stop = "attempts"
            break
        if call.tool == "give_up":
            stop = "gave up"
            break
    return AgentResult(evaluation, len(transcript), attempts, stop, transcript)


def _model_error(step: int, actor: str, error: LLMError, seconds: float) -> dict:
    """The transcript's record of a failed model call; the task stops, the cell goes on."""
    text = f"{type(error).__name__}: {error}"
    return {
        "step": step,
        "actor": actor,
        "tool": "model_error",
        "args": {},
        "result": _short(text),
        "seconds": seconds,
    }


def _run_tool(call: ToolCall, sandbox: Sandbox) -> tuple[str, dict]:
    """(text for the agent, extra fields for the transcript); a refusal is recorded."""
    args = call.args if isinstance(call.args, dict) else {}
    try:
        if call.tool == "read_file":
            return sandbox.read_file(_str_arg(args, "path")), {}
        if call.tool == "write_file":
            sandbox.write_file(_str_arg(args, "path"), _str_arg(args, "content"))
            return "file written", {}
        if call.tool == "run_python":
            run = sandbox.run_python(_str_arg(args, "path"))
            text = f"exit code {run.returncode}\n--- stdout\n{run.stdout}\n--- stderr\n{run.stderr}"
            if run.timed_out or run.cpu_killed:
                text += "\n[stopped: the run passed its time limit]"
            return text, {"run": run.to_dict(), "stopped": run.stopped}
        if call.tool in ("give_up", "invalid"):
            return args.get("error", "stopping"), {}
        return f"unknown tool {call.tool!r}; the tools are {', '.join(TOOLS)}", {}
    except SandboxError as error:
        return f"refused: {error}", {"stopped": True, "refused": str(error)}
    except (OSError, ValueError, TypeError) as error:
        return f"tool failed: {type(error).__name__}: {error}", {}


def _str_arg(args: dict, name: str) -> str:
    value = args.get(name)
    if not isinstance(value, str):
        raise ValueError(f"argument {name!r} must be a string")
    return value


def _submit(task: Task, sandbox: Sandbox) -> Evaluation:
    try:
        with sandbox.open_file("adv.npy") as handle:
            x_adv = np.load(handle, allow_pickle=False)
    except (OSError, ValueError, SandboxError) as error:
        x_adv = f"no readable adv.npy ({error})"
    return evaluate(task.defense, task.x, task.y, x_adv, task.eps, seed=task.eval_seed)


def _feedback(ev: Evaluation) -> str:
    if not ev.valid:
        return f"submission invalid: {ev.reason}; it scores the clean accuracy {ev.clean_accuracy}"
    verdict = "broken" if ev.broken else "not broken"
    return (
        f"clean accuracy {ev.clean_accuracy:.3f}, robust accuracy {ev.robust_accuracy:.3f} "
        f"({ev.rejected_fraction:.3f} rejected), max distortion {ev.max_distortion:.4f}: "
        f"the defence is {verdict}"
    )


def _short(value):
    if isinstance(value, str):
        return value if len(value) <= TRANSCRIPT_TEXT else value[:TRANSCRIPT_TEXT] + "..."
    if isinstance(value, dict):
        return {k: _short(v) for k, v in value.items()}
    return value


class ScriptedAttacker:
    """A fixed sequence of tool calls standing in for the LLM agent.

    Read the task and the defence's source, write ``attacks.py`` and a driver running
    ``attacks.run_attack(name)``, run it, finish; then give up. Scripted, not a model: it
    knows its attack in advance.

    Parameters
    ----------
    attack : str
        A key of ``ATTACKS``.
    eps : float
        L-infinity budget the driver attacks with.
    steps : int
        PGD steps of the driver's attack.
    seed : int
        Seed of the driver's attack.
    """

    def __init__(self, attack: str, eps: float, steps: int, seed: int):
        if attack not in attacks.ATTACKS:
            raise ValueError(f"attack must be one of {sorted(attacks.ATTACKS)}, got {attack!r}")
        self.plan = [
            ToolCall("read_file", {"path": "task.md"}),
            ToolCall("read_file", {"path": "defenses.py"}),
            ToolCall(
                "write_file",
                {"path": "attacks.py", "content": Path(inspect.getfile(attacks)).read_text()},
            ),
            ToolCall(
                "write_file", {"path": "attack.py", "content": _driver(attack, eps, steps, seed)}
            ),
            ToolCall("run_python", {"path": "attack.py"}),
            ToolCall("finish"),
        ]

    def __call__(self, transcript: list[dict]) -> ToolCall:
        if len(transcript) < len(self.plan):
            return self.plan[len(transcript)]
        return ToolCall("give_up")


def _driver(attack: str, eps: float, steps: int, seed: int) -> str:
    return (
        "import numpy as np\nimport torch\n\n"
        "from attacks import run_attack\nfrom defenses import load_defense\n\n"
        "data = np.load('data.npz')\n"
        "x, y = torch.from_numpy(data['x']), torch.from_numpy(data['y'])\n"
        f"adv = run_attack({attack!r}, load_defense('.'), x, y, {eps!r}, steps={steps}, "
        f"seed={seed})\n"
        "np.save('adv.npy', adv.numpy())\n"
        "print('saved', adv.shape, float((adv - x).abs().max()))\n"
    )


# Replaces the audit hook's ``refuse`` through the garbage collector: the hook is a tripwire
# inside the sandboxed interpreter, not a barrier.
DISARM = (
    "import gc\n"
    "for obj in gc.get_objects():\n"
    "    if getattr(obj, '__name__', '') == 'hook' and getattr(obj, '__closure__', None):\n"
    "        for cell in obj.__closure__:\n"
    "            if getattr(cell.cell_contents, '__name__', '') == 'refuse':\n"
    "                cell.cell_contents = lambda event, detail: None\n"
)

# The script and three forked copies of it do WORK at once, then the original waits for the
# copies and prints "all four done".
FORK_FOUR = (
    "import os, time\nkids, pid = [], 1\n"
    "for _ in range(3):\n"
    "    pid = os.fork()\n"
    "    if pid == 0:\n        break\n"
    "    kids.append(pid)\n"
    "WORK\ntime.sleep(0.3)\n"
    "if pid == 0:\n    os._exit(0)\n"
    "for kid in kids:\n    os.waitpid(kid, 0)\n"
    "print('all four done')\n"
)

# Each escape: a file tool call, or a script run with run_python (PORT: the harness's listener).
# The first six and "subprocess" raise audit events; "read_parent_environ" reads the harness's
# environment (where an API key lives); the "unaudited" and "native" ones pass the audit hook
# (a spoofed audit call, a read in C code) and only a kernel barrier stops them. Then, after
# disarming the hook: a read outside; a child that detaches and outlives the run; the tree's
# memory (4 x 400 MB) and CPU time (4 x 0.6 s) above limits each process is under; forged
# barrier records written to every descriptor; reboot(2), refused only without capabilities.
ESCAPES = {
    "read_outside_tool": ToolCall("read_file", {"path": "../outside/secret.txt"}),
    "write_outside_tool": ToolCall(
        "write_file", {"path": "../outside/new_tool.txt", "content": "x"}
    ),
    "read_outside_python": "print(open('../outside/secret.txt').read())\n",
    "write_outside_python": "open('../outside/new.txt', 'w').write('x')\n",
    "socket": (
        "import socket\ns = socket.socket(socket.AF_INET, socket.SOCK_STREAM)\n"
        "s.connect(('127.0.0.1', PORT))\nprint('connected')\n"
    ),
    "subprocess": "import subprocess\nprint(subprocess.run(['cat', '../outside/secret.txt']))\n",
    "read_parent_environ": (
        "import hashlib, os\n"
        "data = open(f'/proc/{os.getppid()}/environ', 'rb').read()\n"
        "print('environ', hashlib.sha256(data).hexdigest())\n"
    ),
    "subprocess_unaudited": (
        "import subprocess, sys, types\n"
        "quiet = types.ModuleType('sys')\nquiet.__dict__.update(sys.__dict__)\n"
        "quiet.audit = lambda *args: None  # subprocess raises its audit event through this name\n"
        "subprocess.sys = quiet\n"
        "print(subprocess.run(['cat', '../outside/secret.txt'], capture_output=True).stdout)\n"
    ),
    "read_outside_native": (
        "import readline  # its history file is read in C, without an audit event\n"
        "readline.read_history_file('../outside/secret.txt')\n"
        "print(readline.get_history_item(readline.get_current_history_length()))\n"
    ),
    "signal_parent": "import os\nos.kill(os.getppid(), 0)\nprint('signalled the harness')\n",
    "busy_loop": "while True:\n    pass\n",
    "sleep": "import time\ntime.sleep(3600)\n",
    "memory": "block = bytearray(8 * 2**30)\nprint(len(block))\n",
    "delete_outside_python": "import os\nos.remove('../outside/secret.txt')\n",
    # the rest disarm the audit hook first (it runs inside the sandboxed interpreter)
    "disarm_hook_read": DISARM + "print(open('../outside/secret.txt').read())\n",
    "orphan_child": DISARM
    + (
        "import os, time\n"
        "if os.fork() == 0:\n"
        "    os.closerange(0, 64)\n"
        "    for i in range(1200):\n"
        "        if os.path.exists('stop'):  # written by the cell once it has judged\n"
        "            break\n"
        "        open('beat.txt', 'w').write(str(i))\n"
        "        time.sleep(0.05)\n"
        "    os._exit(0)\n"
        "print('child left behind')\n"
    ),
    "tree_memory": DISARM + FORK_FOUR.replace("WORK", "block = b'x' * (400 * 2**20)"),
    "tree_cpu": DISARM
    + FORK_FOUR.replace(
        "WORK", "end = time.process_time() + 0.6\nwhile time.process_time() < end:\n    pass"
    ),
    "forge_barrier": (
        'import os\nline = b\'{"event": "barrier", "detail": "forged"}\\n\'\n'
        "for fd in range(3, 64):\n"
        "    try:\n        os.write(fd, line)\n    except OSError:\n        pass\n"
    ),
    "capabilities": DISARM
    + (
        "import ctypes, os, platform\nlibc = ctypes.CDLL(None, use_errno=True)\n"
        "number = {'x86_64': 169, 'aarch64': 142}[platform.machine()]\n"
        "libc.syscall(number, 0, 0, 0, 0)  # reboot(2), magic 0: EINVAL with CAP_SYS_BOOT\n"
        "print('reboot:', os.strerror(ctypes.get_errno()))\n"
    ),
}


class EscapeProbe:
    """A policy that tries each escape of ``ESCAPES`` in turn, then a harmless script.

    Each escape is a file tool call, or a script written and run; after them a harmless script
    runs and the policy finishes: the run must go on after every refusal. ``label(step)``
    names the escape a step belongs to.

    Parameters
    ----------
    port : int
        Port of the harness's listener, written into the ``socket`` escape.
    names : tuple of str, default tuple(ESCAPES)
        The escapes to try, keys of ``ESCAPES``, in order.
    """

    def __init__(self, port: int, names: tuple[str, ...] = tuple(ESCAPES)):
        self.plan: list[tuple[str, ToolCall]] = []
        for name in names:
            probe = ESCAPES[name]
            if isinstance(probe, ToolCall):
                self.plan.append((name, probe))
                continue
            path = f"escape_{name}.py"
            content = probe.replace("PORT", str(port))
            self.plan.append(("write", ToolCall("write_file", {"path": path, "content": content})))
            self.plan.append((name, ToolCall("run_python", {"path": path})))
        self.plan.append(("write", ToolCall("write_file", {"path": "ok.py", "content": OK})))
        self.plan.append(("after", ToolCall("run_python", {"path": "ok.py"})))
        self.plan.append(("finish", ToolCall("finish")))

    def label(self, step: int) -> str:
        return self.plan[step][0]

    def __call__(self, transcript: list[dict]) -> ToolCall:
        return (
            self.plan[len(transcript)][1]
            if len(transcript) < len(self.plan)
            else ToolCall("give_up")
        )


OK = "print('still running', sum(range(10)))\n"
