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
    """The outcome and metrics of one episode of :func:`run_episode`.

    Parameters
    ----------
    success : bool
        Whether the agent ended within 1 m of the target.
    steps : int
        Environment steps (actions executed).
    planner_calls : int
        Planning steps (calls of ``planner.plan``).
    invalid_outputs : int
        Plans marked invalid (an unusable planner output replaced by a fallback).
    final_distance : float
        Floor-plane distance to the target at the end, in metres.
    transcript : list of dict, default []
        With ``keep_transcript``, one entry per plan (``plan``, ``valid``, ``text``) and per
        action (``action``, ``feedback``); empty otherwise.
    """

    success: bool
    steps: int
    planner_calls: int
    invalid_outputs: int
    final_distance: float
    transcript: list[dict] = field(default_factory=list)


def run_episode(env: EmbodiedEnv, planner, task: Task, *, keep_transcript: bool = False) -> Episode:
    """Run a planner on a task until success or the environment's step limit.

    Each planning step gives the planner the current image and the history of
    ``(action id, feedback)`` pairs; the actions of its :class:`~icml25.embodiedbench.planners.Plan`
    are executed in order, stopping early when one cannot be carried out (the planner then plans
    again from the new view) or when the episode ends.

    Parameters
    ----------
    env : EmbodiedEnv
        The environment, such as :class:`~icml25.embodiedbench.env.NavigationEnv`.
    planner : object
        Has ``reset(instruction, actions)`` and ``plan(image, history) -> Plan``, such as
        :class:`~icml25.embodiedbench.planners.HeuristicPlanner` or
        :class:`~icml25.embodiedbench.vlm.VLMPlanner`.
    task : Task
        The task to run.
    keep_transcript : bool, default False
        Record every plan and action with its feedback in ``Episode.transcript``.

    Returns
    -------
    Episode
        Success, environment steps, planner calls, invalid outputs and the final distance.

    Raises
    ------
    ValueError
        When the planner returns a plan with no action.
    """
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
