"""The summary of one paper's run: what the runner writes, the CLI prints and the report
renders. Its counts are tallied here, from its verdicts, and nowhere else."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

from icml25.lab.claims import headline, tally

SCHEMA = 3  # of summary.json


@dataclass
class RunSummary:
    """One paper at one scale and master seed.

    ``claims`` are verdict dicts (:meth:`icml25.lab.claims.Verdict.to_dict`) of claims, checks
    and diagnostics in their declared order; ``figure_errors`` names each figure that failed
    to draw and why (the verdicts do not depend on figures); ``summary_error`` is the
    traceback of a ``summarize`` that raised (then nothing was measured);
    ``model_measurements`` names the measurements that the model's cells made (those that a
    summary of the other cells alone lacks or gives otherwise), what the model itself scored;
    ``model``: the tag of the model the paper ran against (:func:`icml25.lab.store.model_tag`,
    which names its run folder ``seed-<N>-<model>``), None for an offline run."""

    slug: str
    title: str
    scale: str
    seed: int
    complete: bool
    config: dict
    cells: dict
    failures: list[dict]
    measurements: dict[str, float | None]
    claims: list[dict]
    figures: list[dict]
    timing: dict
    provenance: dict
    warnings: dict[str, int] = field(default_factory=dict)
    figure_errors: list[dict] = field(default_factory=list)
    llm_usage: dict | None = None
    summary_error: str | None = None
    model_measurements: list[str] = field(default_factory=list)
    model: str | None = None
    schema: int = SCHEMA

    @property
    def counts(self) -> dict[str, int]:
        """Claims, checks and diagnostics counted apart (:func:`icml25.lab.claims.tally`)."""
        return tally(self.claims)

    @property
    def headline(self) -> str:
        return headline(self.counts)

    def compact(self) -> str:
        """``4/6 claims, 1 inconclusive, 2/2 checks`` for a table cell."""
        n = self.counts
        text = f"{n['reproduced']}/{n['claims']} claims"
        if n["incomplete"]:
            text = f"incomplete ({self.cells['failed']} failed cells)"
        elif n["inconclusive"]:
            text += f", {n['inconclusive']} inconclusive"
        if n["checks"]:
            text += f", {n['checks_hold']}/{n['checks']} checks"
        return text

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of summary.json, counts included."""
        return {**asdict(self), "counts": self.counts}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunSummary:
        """From a summary.json object; its stored counts are tallied again, never trusted."""
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})
