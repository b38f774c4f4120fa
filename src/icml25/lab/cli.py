"""The command line: ``icml25 list | show | run | report | serve`` (also ``python -m icml25``).

Exit codes: 0 success; 1 a cell or a summary failed (or, with ``--strict``, a claim was not
reproduced or inconclusive; with ``--compare``, a measurement disagreed with the committed
one); 2 bad input or a file the command cannot write or read (one line on stderr, never a
traceback); 130 Ctrl-C and 143 SIGTERM, with every finished cell kept on disk and the workers
stopped.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import signal
import sys
import textwrap
import threading
from dataclasses import replace
from pathlib import Path

import click

from icml25.common.llm import Endpoint, LLMConfigError, endpoint_from_env, preflight
from icml25.common.local_llm import LocalServer, is_local
from icml25.lab import catalog, store
from icml25.lab.claims import CHECK, DIAGNOSTIC
from icml25.lab.progress import duration
from icml25.lab.reproduction import SCALE_NAMES, load_claims, tolerances
from icml25.lab.run_summary import RunSummary

DEFAULT_RUNS = "runs"
DEFAULT_TOLERANCE = 1e-6  # relative, for --compare, unless the paper's claims.py says otherwise
GOOD = {"reproduced", "holds"}
SHOWN_FAILURES = 5  # failed cells printed per paper; summary.json has them all


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


def _problem(err: store.Unreadable) -> None:
    click.echo(f"icml25: skipped {err.path}: {err.reason}", err=True)


def _compact(summary: dict | None) -> str:
    """``4/6 claims, 1 inconclusive, 2/2 checks`` for a table cell."""
    return "" if summary is None else RunSummary.from_dict(summary).compact()


def _where(summary: dict) -> str:
    origin = "committed" if summary.get("origin") == "committed" else "runs"
    return f"{summary['scale']} seed {summary['seed']} {origin}{_model_note(summary)}"


def _model_note(summary: dict) -> str:
    """`` with model NAME`` for a run made against a language model, else nothing."""
    llm = summary.get("config", {}).get("llm")
    if not llm:
        return ""
    budget = summary.get("provenance", {}).get("llm_budget")
    within = f" (the {budget} model budget)" if budget else ""
    return f" with model {llm['model']} at {llm['base_url']}{within}"


UNUSABLE_WORDS = ("unusable", "malformed", "invalid")  # a model measurement of failed replies


def _model_lines(summary: dict, offline: dict | None = None) -> list[str]:
    """What the model itself scored, first, each beside the ``offline`` run's value where it
    has one, and a warning where every reply was unusable."""
    names = summary.get("model_measurements") or []
    values = summary.get("measurements", {})
    if not names:
        return []
    before = None if offline is None else offline.get("measurements", {})
    shown = ", ".join(
        f"{n} {_number(values.get(n))}"
        + ("" if before is None or n not in before else f" (offline {_number(before[n])})")
        for n in names[:12]
    )
    more = f" (and {len(names) - 12} more in summary.json)" if len(names) > 12 else ""
    lines = [f"  the model's own measurements: {shown}{more}"]
    for name in names:
        value = values.get(name)
        if any(w in name for w in UNUSABLE_WORDS) and "rate" in name and value == 1.0:
            lines.append(
                f"  warning: {name} = 100%: none of the model's replies could be read, so the "
                "measurements that rest on them say nothing about the model"
            )
    return lines


def _number(value) -> str:
    return "n/a" if value is None else f"{value:.4g}"


def _echo_verdicts(summary: dict, err: bool = False, usage: bool = True) -> None:
    for v in summary["claims"]:
        click.echo(f"  {_verdict_line(v)}", err=err)
    line = _usage_line(summary) if usage else None
    if line:
        click.echo(line, err=err)
    failures = summary.get("failures", [])
    for failure in failures[:SHOWN_FAILURES]:
        click.echo(f"  failed cell {json.dumps(failure['cell'])}: {failure['reason']}", err=err)
    if len(failures) > SHOWN_FAILURES:
        click.echo(f"  ... and {len(failures) - SHOWN_FAILURES} more failed cells", err=err)
    if summary.get("summary_error"):
        last = summary["summary_error"].strip().splitlines()[-1]
        click.echo(f"  the summary failed: {last}", err=err)


def _verdict_line(v: dict) -> str:
    """``(a) gain = 0.031 [-0.004, 0.066] >= 0: inconclusive`` for a claim with replicates,
    ``(b) [single run] ...`` for one on one number, ``(c) [diagnostic] question: value``."""
    measured = "-" if v["measured"] is None else f"{v['measured']:.4g}"
    if v.get("kind") == DIAGNOSTIC:
        return f"({v['id']}) [diagnostic] {v['statement']} {v['metric']} = {measured}"
    kind = " [check]" if v.get("kind") == CHECK else ""
    interval = v.get("interval")
    if interval:
        n = interval["n"]
        count = f"n={n[0]}" if len(n) == 1 else f"{len(n)} groups of n={min(n)}-{max(n)}"
        spread = (
            f" [{interval['low']:.4g}, {interval['high']:.4g}] "
            f"({interval['confidence']:.0%} {interval['method']}, {count})"
        )
    else:
        spread = " [single run]" if v.get("kind", "claim") == "claim" else ""
    paper = f" (paper: {v['paper_value']})" if v.get("paper_value") else ""
    return (
        f"({v['id']}){kind} {v['metric']} = {measured}{spread} {v['comparison']} "
        f"{v['threshold']:g}: {v['verdict']}{paper}"
    )


def _usage_line(summary: dict) -> str | None:
    """What a model run used: calls, tokens and, with prices, cost; None offline."""
    u = summary.get("llm_usage")
    if not u:
        return None
    cost = "" if u.get("cost_usd") is None else f", ${u['cost_usd']:.4f}"
    return (
        f"  model {u.get('model')}: {u['calls']} calls ({u['cached_calls']} from the cache), "
        f"{u['prompt_tokens']} prompt + {u['completion_tokens']} completion tokens{cost}"
    )


def _paper_line(summary: dict) -> str:
    cells, timing = summary["cells"], summary["timing"]
    return (
        f"{summary['slug']} [{summary['scale']}, seed {summary['seed']}{_model_note(summary)}] "
        f"{cells['ok']}/{cells['total']} cells ({cells['cached']} cached, {cells['failed']} "
        f"failed), {timing['wall_seconds']:.1f} s: {RunSummary.from_dict(summary).headline}"
    )


runs_option = click.option(
    "--runs", default=None, metavar="DIR", help=f"Runs folder to read (default: ./{DEFAULT_RUNS})."
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON instead.")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="icml25")
def cli() -> None:
    """ICML 2025 papers as working software: methods, reproductions, evidence."""


@cli.command("list")
@runs_option
@json_option
def list_(runs: str | None, as_json: bool) -> None:
    """Every paper: status and the verdicts of its latest evidence (committed or run here)."""
    runs_dir = _runs_dir(runs)
    rows = []
    for c in catalog.cards():
        shown = store.latest(store.evidence(runs_dir, c.slug, _problem))
        rows.append((c, shown))
    if as_json:
        data = [
            {
                "slug": c.slug,
                "title": c.title,
                "status": c.status,
                "evidence": None
                if s is None
                else {
                    "scale": s["scale"],
                    "seed": s["seed"],
                    "origin": s["origin"],
                    "complete": s["complete"],
                    "counts": RunSummary.from_dict(s).counts,
                    "finished": s["provenance"]["finished"],
                    "commit": s["provenance"]["commit"],
                },
                "default_run": _default_run(c.slug),
            }
            for c, s in rows
        ]
        click.echo(json.dumps(data, indent=2))
        return
    table = [("slug", "default run", "shown", "claims reproduced, inconclusive, checks")]
    table += [
        (c.slug, _default_time(c.slug) or c.status, _where(s) if s else "", _compact(s))
        for c, s in rows
    ]
    widths = [max(len(r[i]) for r in table) for i in range(3)]
    for row in table:
        cells = [cell.ljust(w) for cell, w in zip(row[:3], widths, strict=True)] + [row[3]]
        click.echo("  ".join(cells).rstrip())
    implemented = sum(c.status == catalog.IMPLEMENTED for c in catalog.cards())
    times = [found[1] for c in catalog.cards() if (found := store.committed_cell_time(c.slug))]
    click.echo(
        f"\n{len(rows)} papers, {implemented} implemented. 'committed': the results shipped with "
        "icml25;\n'runs': this machine's runs folder. Smoke-scale verdicts are not evidence.\n"
        f"'default run': the cell time of the committed default run (one thread a cell), or "
        f"the status\nof a paper without one. All of them: {duration(sum(times))}, which "
        "'icml25 run --all' divides among\nits workers."
    )


def _default_run(slug: str) -> dict | None:
    """The committed default run's cells and cell time, for ``list --json``."""
    found = store.committed_cell_time(slug)
    return None if found is None else {"cells": found[0], "cell_seconds": round(found[1], 1)}


def _default_time(slug: str) -> str:
    found = store.committed_cell_time(slug)
    return "" if found is None else duration(found[1])


@cli.command()
@click.argument("slug")
@json_option
@runs_option
def show(slug: str, as_json: bool, runs: str | None) -> None:
    """The card of one paper, its claims and every summary of it (committed and run here)."""
    card = _card(slug)
    runs_dir = _runs_dir(runs)
    claims = [c.__dict__ for c in load_claims(slug)] if card.status == catalog.IMPLEMENTED else []
    found = store.evidence(runs_dir, slug, _problem)
    if as_json:
        fields = (
            "slug",
            "title",
            "paper_title",
            "authors",
            "venue",
            "link",
            "citation_note",
            "area",
            "summary",
        )
        data = {
            **{k: getattr(card, k) for k in fields},
            "status": card.status,
            "code": card.code,
            "claims": claims,
            "runs": [
                {k: s[k] for k in ("origin", "scale", "seed", "complete", "counts", "claims")}
                | {"measurements": s["measurements"], "cells": s["cells"], "timing": s["timing"]}
                | {"provenance": s["provenance"], "model": s.get("model")}
                | {"model_measurements": s.get("model_measurements", [])}
                | {"llm_usage": s.get("llm_usage")}
                for s in found
            ],
        }
        click.echo(json.dumps(data, indent=2))
        return
    click.echo(f"{card.slug}: {card.title}")
    if card.paper_title:
        click.echo(f"paper: {card.paper_title}\n       {card.authors}. {card.venue}.")
    if card.link:
        click.echo(f"       {card.link}")
    if card.citation_note:
        click.echo(textwrap.fill(f"citation: {card.citation_note}", 99))
    if card.code:
        click.echo(f"official code: {card.code_url}")
    click.echo(f"area: {card.area}    status: {card.status}\n\n{textwrap.fill(card.summary, 99)}\n")
    for claim in claims:
        paper = f" [paper: {claim['paper_value']}" if claim["paper_value"] else ""
        paper += f", {claim['source']}]" if claim["source"] and paper else ("]" if paper else "")
        if claim["kind"] == DIAGNOSTIC:
            line = f"diagnostic ({claim['id']}) {claim['metric']}: {claim['statement']}"
        else:
            over = f" (mean of {claim['replicates']})" if claim["replicates"] else ""
            line = (
                f"{claim['kind']} ({claim['id']}) {claim['metric']}{over} "
                f"{claim['comparison']} {claim['threshold']:g}: {claim['statement']}{paper}"
            )
        click.echo(textwrap.fill(line, 99, subsequent_indent="    "))
    for summary in found:
        prov = summary["provenance"]
        commit = (prov["commit"] or "no git")[:10] + (" (dirty)" if prov["dirty"] else "")
        click.echo(
            f"\n{summary['origin']}: scale {summary['scale']}, seed {summary['seed']}"
            f"{_model_note(summary)}, {prov['finished']}, commit {commit}: "
            f"{RunSummary.from_dict(summary).headline}"
        )
        if summary["scale"] == "smoke":
            click.echo("  (smoke: not evidence)")
        for line in _model_lines(summary, store.offline_beside(found, summary)):
            click.echo(line)
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
@click.option(
    "--cell-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    metavar="SECONDS",
    help="Stop a cell that runs longer and record it as failed (a paper may set a shorter "
    "limit of its own).",
)
@click.option(
    "--strict", is_flag=True, help="Exit 1 when a claim is not reproduced or inconclusive."
)
@click.option(
    "--compare",
    is_flag=True,
    help="Compare every measurement with the committed result; exit 1 on disagreement.",
)
@click.option(
    "--llm-base-url",
    default=None,
    metavar="URL",
    help="OpenAI-compatible server for the papers that use a language model "
    "(default: $OPENAI_BASE_URL, else OpenAI's API; the key is read from $OPENAI_API_KEY).",
)
@click.option(
    "--llm-model",
    default=None,
    metavar="NAME",
    help="Model name; naming one (here or in $ICML25_LLM_MODEL) runs those papers on it. "
    "'local' (or 'local:PATH.gguf') serves the shipped model (or that file) with llama.cpp in "
    "this process for the run, unless --llm-base-url names a server.",
)
@click.option(
    "--llm-price",
    nargs=2,
    type=click.FloatRange(min=0),
    default=None,
    metavar="IN OUT",
    help="US dollars per million prompt and completion tokens, to report a cost.",
)
@click.option(
    "--llm-concurrency",
    type=click.IntRange(min=1, max=256),
    default=None,
    metavar="N",
    help="Requests each cell keeps in flight (default: the server's slots shared by the "
    "workers, where a llama.cpp server reports them; else 4).",
)
@click.option(
    "--llm-budget",
    type=click.Choice(SCALE_NAMES),
    default=None,
    help="The model cells' budget (requests, steps, tokens: the llm_* settings) of this scale "
    "instead of the run's own: a slow local model in a default-scale run.",
)
@json_option
def run(
    slugs,
    run_all,
    scale,
    seed,
    jobs,
    backend,
    address,
    out,
    force,
    cell_timeout,
    strict,
    compare,
    llm_base_url,
    llm_model,
    llm_price,
    llm_concurrency,
    llm_budget,
    as_json,
) -> None:
    """Run the reproductions of SLUGS (or --all), printing each paper's verdicts as it ends."""
    from icml25.lab import runner  # joblib and tqdm only when running

    if run_all and slugs:
        raise InputError("give SLUGS or --all, not both")
    if run_all:
        slugs = catalog.implemented()
    if not slugs:
        raise InputError("name at least one paper SLUG, or --all")
    endpoint = _endpoint(llm_base_url, llm_model, llm_price)
    named_here = any(x is not None for x in (llm_model, llm_base_url, llm_price))
    if llm_concurrency is not None:
        if endpoint is None:
            raise InputError("--llm-concurrency needs a model: name one with --llm-model")
        endpoint = replace(endpoint, concurrency=llm_concurrency)
    if llm_budget is not None and endpoint is None:
        raise InputError("--llm-budget needs a model: name one with --llm-model")
    try:
        repros = runner.check_arguments(
            list(slugs),
            scale=scale,
            seed=seed,
            jobs=jobs,
            backend=backend,
            llm=endpoint,
            required=named_here,
        )
    except ValueError as err:
        raise InputError(str(err)) from None
    needs_model = endpoint is not None and any(
        runner.uses_llm(r.config(scale)) for r in repros.values()
    )
    terminal = sys.stdout.isatty() and not as_json

    def finished(summary: dict) -> None:
        click.echo(_paper_line(summary), err=as_json)
        line = _usage_line(summary)
        if line:
            click.echo(line, err=as_json)
        for line in _model_lines(summary):
            click.echo(line, err=as_json)
        if terminal or not summary["complete"]:
            _echo_verdicts(summary, err=as_json, usage=False)

    stack = contextlib.ExitStack()
    server = None
    workers = jobs if jobs is not None and jobs > 0 else (os.cpu_count() or 1)
    if needs_model and is_local(endpoint.model) and llm_base_url is None:
        if address is not None:
            raise InputError(
                "--llm-model local serves on 127.0.0.1, out of reach of a cluster's workers: "
                "start a server they reach and give it with --llm-base-url"
            )
        slots = min(8, max(2, workers))
        server = _start_local(stack, endpoint.model, slots=slots)
        endpoint = replace(
            server.endpoint,
            price_in_per_mtok=endpoint.price_in_per_mtok,
            price_out_per_mtok=endpoint.price_out_per_mtok,
            concurrency=endpoint.concurrency,
        )
    if needs_model:
        try:
            endpoint = preflight(endpoint, workers=workers)
        except LLMConfigError as err:
            stack.close()
            raise InputError(str(err)) from None
    with stack:
        committed = _committed(repros, scale, seed, endpoint) if compare else {}
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
                on_paper=finished,
                on_message=lambda line: click.echo(f"icml25: {line}", err=True),
                llm=endpoint,
                llm_required=named_here,
                cell_timeout_s=cell_timeout,
                llm_server=None if server is None else server.provenance(),
                llm_budget=llm_budget,
            )
        except ValueError as err:
            raise InputError(str(err)) from None
    _conclude(summaries, committed, as_json, scale, seed, out, strict)


def _start_local(stack: contextlib.ExitStack, spec: str, slots: int) -> LocalServer:
    """The embedded llama.cpp server, started, and stopped when ``stack`` closes (on every exit
    path: the server runs in this process)."""
    try:
        server = LocalServer(spec, slots=slots, threads=LocalServer.default_threads())
        stack.enter_context(server)
    except LLMConfigError as err:
        raise InputError(str(err)) from None
    click.echo(
        f"icml25: serving {server.model.path.name} (sha256 {server.model.sha256[:12]}) with "
        f"llama.cpp at {server.url}/v1",
        err=True,
    )
    return server


def _conclude(
    summaries: dict, committed: dict, as_json: bool, scale: str, seed: int, out, strict: bool
) -> None:
    """Print the comparisons and the JSON, and exit with the run's code."""
    disagreements = {slug: _compare(committed[slug], summaries[slug]) for slug in committed}
    if as_json:
        data = [
            {
                **{k: s[k] for k in ("slug", "scale", "seed", "complete", "counts", "claims")},
                "path": str(store.summary_path(Path(out), s["slug"], scale, seed, s["model"])),
                "failures": [{k: f[k] for k in ("cell", "reason")} for f in s["failures"]],
            }
            for s in summaries.values()
        ]
        click.echo(json.dumps(data, indent=2))
    failed = not all(s["complete"] for s in summaries.values())
    unproven = any(
        c["verdict"] not in GOOD
        for s in summaries.values()
        for c in s["claims"]
        if c.get("kind") != DIAGNOSTIC
    )
    if failed or (strict and unproven) or any(disagreements.values()):
        raise click.exceptions.Exit(1)


def _endpoint(base_url: str | None, model: str | None, price) -> Endpoint | None:
    """The model endpoint from the options and the environment, or None (offline)."""
    try:
        endpoint = endpoint_from_env(base_url, model)
        if price is not None:
            if endpoint is None:
                raise InputError("--llm-price needs a model: name one with --llm-model")
            endpoint = replace(endpoint, price_in_per_mtok=price[0], price_out_per_mtok=price[1])
    except LLMConfigError as err:
        raise InputError(f"--llm-price: {err}" if price is not None else str(err)) from None
    return endpoint


def _committed(repros: dict, scale: str, seed: int, endpoint: Endpoint | None) -> dict[str, dict]:
    """The committed summaries that ``--compare`` checks a new run against: for a paper run
    against a model, the committed run against that model."""
    from icml25.lab import runner

    found = {}
    for slug, repro in repros.items():
        model = runner.model_tag_of(repro, scale, endpoint)
        path = store.summary_path(store.results_dir(), slug, scale, seed, model)
        with_model = "" if model is None else f" with model {model}"
        if not path.is_file():
            raise InputError(
                f"--compare: no committed result for {slug} at scale {scale}, seed {seed}"
                f"{with_model}"
            )
        try:
            found[slug] = store.read_summary(path)
        except store.Unreadable as err:
            raise InputError(f"--compare: cannot read {err.path}: {err.reason}") from None
    return found


def _what_ran(old: dict, new: dict) -> str:
    """Whether the cells or the summary code changed since the committed run, and so what this
    run computed and what it reduced again."""
    was, now = old["provenance"], new["provenance"]
    cells = new["cells"]
    if was.get("code_fingerprint") != now.get("code_fingerprint"):
        return (
            f"the cells' code changed since the committed run: {cells['computed']} cells computed"
        )
    if was.get("summary_fingerprint") != now.get("summary_fingerprint"):
        return (
            f"only the summary code changed since the committed run: {cells['cached']} cached "
            f"cells reduced again, {cells['computed']} computed"
        )
    return f"the same code as the committed run: {cells['computed']} cells computed"


def _compare(old: dict, new: dict) -> int:
    """Print every measurement, committed beside new; return how many disagree."""
    limits = tolerances(old["slug"])
    names = list(dict.fromkeys([*old["measurements"], *new["measurements"]]))
    click.echo(f"{old['slug']}: committed ({old['provenance']['finished']}) vs this run")
    click.echo(f"  {_what_ran(old, new)}")
    bad = 0
    for name in names:
        a, b = old["measurements"].get(name), new["measurements"].get(name)
        rtol = limits.get(name, DEFAULT_TOLERANCE)
        if rtol is None:  # a wall-clock number: shown, never compared
            click.echo(f"  shown  {name}: {a!r} vs {b!r} (machine-dependent)")
            continue
        same = (a is None and b is None) or (
            a is not None and b is not None and math.isclose(a, b, rel_tol=rtol, abs_tol=1e-12)
        )
        bad += not same
        click.echo(f"  {'agree' if same else 'DIFFER'}  {name}: {a!r} vs {b!r} (rtol {rtol:g})")
    compared = sum(limits.get(name, DEFAULT_TOLERANCE) is not None for name in names)
    click.echo(f"  {compared - bad} of {compared} compared measurements agree")
    return bad


@cli.command()
@click.option("--runs", default=None, metavar="DIR", help="Runs folder to read (default: ./runs).")
@click.option(
    "--out", default="report", show_default=True, metavar="DIR", help="Folder for the HTML site."
)
def report(runs: str | None, out: str) -> None:
    """Write the static HTML report: the committed results and every run in the runs folder."""
    from icml25.lab import report as report_module  # jinja2, markdown only when reporting

    index = report_module.build(_runs_dir(runs), Path(out), on_error=_problem)
    click.echo(f"report: {index}")


@cli.command()
@click.option(
    "--model",
    "spec",
    default="local",
    show_default=True,
    metavar="local|local:PATH.gguf",
    help="The shipped model, or a GGUF file of your own.",
)
@click.option(
    "--slots",
    type=click.IntRange(1, 64),
    default=4,
    show_default=True,
    help="Requests decoded side by side.",
)
@click.option(
    "--context",
    type=click.IntRange(256, 131072),
    default=4096,
    show_default=True,
    help="Tokens of context per slot.",
)
def serve(spec: str, slots: int, context: int) -> None:
    """Serve a local model with llama.cpp on 127.0.0.1 until Ctrl-C or SIGTERM, for a session
    of runs: prints its URL (stdout) and the options that reach it (stderr)."""
    import time

    try:
        server = LocalServer(
            spec, slots=slots, context_per_slot=context, threads=LocalServer.default_threads()
        )
    except LLMConfigError as err:
        raise InputError(str(err)) from None
    try:
        with server:
            url = server.endpoint.base_url
            click.echo(url)
            click.echo(
                f"icml25: serving {server.model.path.name} (sha256 {server.model.sha256[:12]}); "
                f"run with --llm-base-url {url} --llm-model {server.endpoint.model}",
                err=True,
            )
            while True:
                time.sleep(3600)
    except LLMConfigError as err:
        raise InputError(str(err)) from None
    except (KeyboardInterrupt, Terminated):
        click.echo("icml25: server stopped", err=True)


class Terminated(BaseException):
    """SIGTERM (a scheduler stopping the job): unwind like Ctrl-C, so workers are stopped. A
    BaseException, like KeyboardInterrupt, so that a cell running in-process (``--jobs 1``) does
    not catch it as its own failure and let the run go on."""


def _terminate(signum, frame) -> None:
    raise Terminated


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script; returns the exit code."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _terminate)
    try:
        code = cli.main(args=argv, prog_name="icml25", standalone_mode=False)
        if isinstance(code, int):  # click returns an Exit's code when not standalone
            return code
    except click.exceptions.Exit as done:
        return done.exit_code
    except (click.Abort, KeyboardInterrupt):
        click.echo("icml25: interrupted; finished cells are kept on disk", err=True)
        return 130
    except Terminated:
        click.echo("icml25: terminated; finished cells are kept on disk", err=True)
        return 143
    except InputError as err:
        click.echo(f"icml25: error: {err.format_message()}", err=True)
        return err.exit_code
    except click.ClickException as err:  # usage errors: unknown option, bad --seed, ...
        click.echo(f"icml25: error: {err.format_message()}", err=True)
        return 2
    except OSError as err:  # disk full, no permission, --out under a file
        where = f" {err.filename}:" if err.filename else ""
        click.echo(f"icml25: error:{where} {err.strerror or err}", err=True)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
