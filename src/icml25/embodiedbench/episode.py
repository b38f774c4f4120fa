"""The planner loop of EmbodiedBench (Sec. 3.2, and the official ``EB_NavigationEvaluator``).

Each planning step sends the current image and the action history with its feedback to the
planner; the returned actions are executed in order, stopping early when one cannot be carried
out (the planner then re-plans from the new view) or when the episode ends (success, or the
step limit). Metrics per episode: success, environment steps, planning steps, and unusable
planner outputs (counted, never a crash).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from icml25.embodiedbench.env import EmbodiedEnv
from icml25.embodiedbench.tasks import Task


@dataclass
class Episode:
    success: bool
    steps: int
    planner_calls: int
    invalid_outputs: int
    final_distance: float
    transcript: list[dict] = field(default_factory=list)


def run_episode(env: EmbodiedEnv, planner, task: Task, *, keep_transcript: bool = False) -> Episode:
    """Run ``planner`` on ``task`` in ``env`` until success or the environment's step limit."""
    image = env.reset(task)
    planner.reset(task.instruction, env.actions)
    history: list[tuple[int, str]] = []
    calls = invalid = 0
    transcript: list[dict] = []
    while True:
        plan = planner.plan(image, history)
        if not plan.actions:
            raise ValueError(f"{type(planner).__name__}.plan returned no action")
        calls += 1
        invalid += not plan.valid
        if keep_transcript:
            transcript.append({"plan": list(plan.actions), "valid": plan.valid, "text": plan.text})
        for action in plan.actions:
            step = env.step(action)
            history.append((action, step.feedback))
            image = step.image
            if keep_transcript:
                transcript.append({"action": action, "feedback": step.feedback})
            if step.done:
                return Episode(
                    step.success, len(history), calls, invalid, step.distance, transcript
                )
            if not step.action_ok:
                break
