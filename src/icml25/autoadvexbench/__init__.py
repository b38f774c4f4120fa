"""AutoAdvExBench's harness on small defences (Carlini, Debenedetti, Rando et al.,
*AutoAdvExBench: Benchmarking Autonomous Exploitation of Adversarial Example Defenses*,
ICML 2025): defences with one interface, the evaluator, and the attack agent's loop with its
sandboxed tools; scripted PGD / BPDA / EOT attackers, and an LLM agent through
``icml25.common.llm``.

>>> from icml25.autoadvexbench import digits_split, train_defense, TrainConfig, pgd, evaluate
>>> x_train, y_train, x, y = digits_split(seed=0)
>>> defense = train_defense("quantised", x_train, y_train, TrainConfig(epochs=5), seed=0)
>>> adv = pgd(defense, x, y, eps=0.2, bpda=True)  # doctest: +SKIP
>>> evaluate(defense, x, y, adv, eps=0.2).broken  # doctest: +SKIP
"""

from icml25.autoadvexbench.agent import (
    ESCAPES,
    AgentResult,
    EscapeProbe,
    ScriptedAttacker,
    Task,
    ToolCall,
    run_agent,
    task_text,
)
from icml25.autoadvexbench.attacks import ATTACKS, pgd, run_attack
from icml25.autoadvexbench.data import digits_split
from icml25.autoadvexbench.defenses import (
    KINDS,
    AdvTrained,
    Defense,
    Detector,
    Quantised,
    RandomNoise,
    RandomResize,
    SmallCNN,
    build_defense,
    load_defense,
    save_defense,
)
from icml25.autoadvexbench.evaluate import BROKEN_RATIO, TOLERANCE, Evaluation, evaluate
from icml25.autoadvexbench.llm_agent import SYSTEM_PROMPT, LLMAttacker, parse_tool_call
from icml25.autoadvexbench.sandbox import (
    Limits,
    RunResult,
    Sandbox,
    SandboxError,
    SandboxUnavailable,
)
from icml25.autoadvexbench.train import TrainConfig, train_defense

__all__ = [
    "ATTACKS",
    "BROKEN_RATIO",
    "ESCAPES",
    "KINDS",
    "SYSTEM_PROMPT",
    "TOLERANCE",
    "AdvTrained",
    "AgentResult",
    "Defense",
    "Detector",
    "EscapeProbe",
    "Evaluation",
    "LLMAttacker",
    "Limits",
    "Quantised",
    "RandomNoise",
    "RandomResize",
    "RunResult",
    "Sandbox",
    "SandboxError",
    "SandboxUnavailable",
    "ScriptedAttacker",
    "SmallCNN",
    "Task",
    "ToolCall",
    "TrainConfig",
    "build_defense",
    "digits_split",
    "evaluate",
    "load_defense",
    "parse_tool_call",
    "pgd",
    "run_agent",
    "run_attack",
    "save_defense",
    "task_text",
    "train_defense",
]
