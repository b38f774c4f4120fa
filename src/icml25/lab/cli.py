"""The command line: ``icml25 list | show | run | report``.

Any bad input (an unknown slug or scale, a bad seed, a missing runs folder) ends in one line on
stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from icml25.lab import catalog, store
from icml25.lab.reproduction import SCALE_NAMES, load

DEFAULT_RUNS = "runs"


class InputError(click.ClickException):
    """Bad input from the user: one line, exit code 2."""

    exit_code = 2


def _runs_dir(runs: str | None) -> Path:
    """The runs folder: an explicit one must exist; the default may not exist yet."""
    if runs is None:
        return Path(DEFAULT_RUNS)
    path = Path(runs)
    if not path.is_dir():
        raise InputError(f"--runs: no runs folder at {path}")
    return path


def _card(slug: str) -> catalog.Card:
    try:
        return catalog.card(slug)
    except ValueError as err:
        raise InputError(str(err)) from None


def _verdict_line(summary: dict | None) -> str:
    if summary is None:
        return ""
    counts = [c["verdict"] for c in summary["claims"]]
    return f"{counts.count('reproduced')}/{len(counts)} reproduced ({summary['scale']})"


def _echo_verdicts(summary: dict) -> None:
    for v in summary["claims"]:
        measured = "-" if v["measured"] is None else f"{v['measured']:.4g}"
        click.echo(
            f"  ({v['id']}) {v['metric']} = {measured} {v['comparison']} "
            f"{v['threshold']:g}: {v['verdict']}"
        )


runs_option = click.option(
    "--runs", default=None, metavar="DIR", help=f"Runs folder to read (default: ./{DEFAULT_RUNS})."
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="icml25")
def cli() -> None:
    """ICML 2025 papers as working software: methods, reproductions, evidence."""


@cli.command("list")
@runs_option
def list_(runs: str | None) -> None:
    """A table of every paper: slug, title, area, status, last verdicts."""
    runs_dir = _runs_dir(runs)
    rows = [
        (c.slug, c.title, c.area, c.status, _verdict_line(store.latest(runs_dir, c.slug)))
        for c in catalog.cards()
    ]
    header = ("slug", "title", "area", "status", "last verdicts")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        click.echo("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    implemented = sum(c.status == catalog.IMPLEMENTED for c in catalog.cards())
    click.echo(f"\n{len(rows)} papers, {implemented} implemented")


@cli.command()
@click.argument("slug")
@click.option("--json", "as_json", is_flag=True, help="Print the same as JSON.")
@runs_option
def show(slug: str, as_json: bool, runs: str | None) -> None:
    """The card of one paper, its claims and the last measured numbers."""
    card = _card(slug)
    runs_dir = _runs_dir(runs)
    claims = [c.__dict__ for c in load(slug).claims] if card.status == catalog.IMPLEMENTED else []
    found = store.summaries(runs_dir, slug)
    if as_json:
        data = {
            "slug": card.slug,
            "title": card.title,
            "area": card.area,
            "status": card.status,
            "summary": card.summary,
            "code": card.code,
            "claims": claims,
            "runs": {
                scale: {
                    k: s[k]
                    for k in (
                        "claims",
                        "measurements",
                        "wall_seconds",
                        "cell_seconds",
                        "cells",
                        "seed",
                    )
                }
                for scale, s in found.items()
            },
        }
        click.echo(json.dumps(data, indent=2))
        return
    click.echo(f"{card.slug}: {card.title}\narea: {card.area}    status: {card.status}")
    if card.code:
        click.echo(f"official code: {card.code_url}")
    click.echo(f"\n{card.summary}\n")
    for claim in claims:
        click.echo(
            f"claim ({claim['id']}) {claim['metric']} {claim['comparison']} "
            f"{claim['threshold']:g}: {claim['statement']}"
        )
    for scale, summary in found.items():
        click.echo(
            f"\nlast run at scale {scale} (seed {summary['seed']}, "
            f"{summary['cell_seconds']:.1f} s of cells):"
        )
        _echo_verdicts(summary)


@cli.command()
@click.argument("slugs", nargs=-1)
@click.option("--all", "run_all", is_flag=True, help="Every implemented paper.")
@click.option("--scale", type=click.Choice(SCALE_NAMES), default="default", show_default=True)
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Master seed; each cell's seed is derived from it.",
)
@click.option("--jobs", type=int, default=None, help="Workers (default: all cores).")
@click.option(
    "--backend", type=click.Choice(["loky", "dask", "ray"]), default="loky", show_default=True
)
@click.option("--address", default=None, help="Scheduler address for dask or ray.")
@click.option(
    "--out", default=DEFAULT_RUNS, show_default=True, metavar="DIR", help="Runs folder to write."
)
@click.option("--force", is_flag=True, help="Recompute cells already on disk.")
def run(slugs, run_all, scale, seed, jobs, backend, address, out, force) -> None:
    """Run the reproductions of SLUGS (or --all) and print their verdicts."""
    from icml25.lab import runner  # joblib and tqdm only when running

    if run_all and slugs:
        raise InputError("give SLUGS or --all, not both")
    if run_all:
        slugs = catalog.implemented()
    if not slugs:
        raise InputError("name at least one paper SLUG, or --all")
    for slug in slugs:
        card = _card(slug)
        if card.status != catalog.IMPLEMENTED:
            raise InputError(f"paper {slug!r} has no reproduction yet (status: {card.status})")
    try:
        summaries = runner.run(
            list(slugs),
            scale=scale,
            seed=seed,
            jobs=jobs,
            backend=backend,
            address=address,
            out=out,
            force=force,
        )
    except ValueError as err:
        raise InputError(str(err)) from None
    for slug, summary in summaries.items():
        cells = summary["cells"]
        click.echo(
            f"{slug} [{scale}] {cells['ok']}/{cells['total']} cells "
            f"({cells['cached']} cached, {cells['failed']} failed), "
            f"{summary['wall_seconds']:.1f} s"
        )
        _echo_verdicts(summary)
        click.echo(f"  -> {store.scale_dir(Path(out), slug, scale) / 'summary.json'}")


@cli.command()
@click.option(
    "--runs", default=DEFAULT_RUNS, show_default=True, metavar="DIR", help="Runs folder to read."
)
@click.option(
    "--out", default="report", show_default=True, metavar="DIR", help="Folder for the HTML site."
)
def report(runs: str, out: str) -> None:
    """Write the static HTML report of every paper and its runs."""
    from icml25.lab import report as report_module  # jinja2, markdown only when reporting

    if not Path(runs).is_dir():
        raise InputError(f"--runs: no runs folder at {runs} (run `icml25 run` first)")
    index = report_module.build(Path(runs), Path(out))
    click.echo(f"report: {index}")


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script; returns the exit code."""
    try:
        cli.main(args=argv, prog_name="icml25", standalone_mode=False)
    except click.exceptions.Exit as done:
        return done.exit_code
    except click.Abort:
        click.echo("icml25: aborted", err=True)
        return 1
    except InputError as err:
        click.echo(f"icml25: error: {err.format_message()}", err=True)
        return err.exit_code
    except click.ClickException as err:  # usage errors: unknown option, bad --seed, ...
        click.echo(f"icml25: error: {err.format_message()}", err=True)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
