"""Every registered reproduction runs at smoke scale and obeys the protocol."""

import json

import numpy as np
import pytest

from icml25.lab import catalog, runner, store
from icml25.lab.claims import DIAGNOSTIC, NOT_MEASURED, replicate_values
from icml25.lab.reproduction import (
    SCALE_NAMES,
    cell_key,
    load,
    load_claims,
    smoke_unmeasured,
    tolerances,
)


@pytest.fixture(params=catalog.implemented())
def smoked(request, smoke):
    slug = request.param
    summary, out = smoke(slug)
    return slug, out, summary


def test_claims_and_scales_are_well_formed(smoked):
    slug, *_ = smoked
    repro = load(slug)
    assert repro.claims == load_claims(slug)  # claims.py, read without the paper's package
    assert set(repro.scales) == set(SCALE_NAMES)
    for scale in SCALE_NAMES:
        cells = repro.cells(repro.config(scale))
        assert cells, scale
        assert len({cell_key(c) for c in cells}) == len(cells), f"duplicate cells at {scale}"
        json.dumps(cells)  # cells are plain JSON-able parameters


def test_every_claimed_metric_is_measured(smoked):
    slug, _, summary = smoked
    assert summary["cells"]["failed"] == 0, summary["failures"]
    assert summary["summary_error"] is None, summary["summary_error"]
    assert summary["complete"]
    unmeasured = smoke_unmeasured(slug)
    for claim in summary["claims"]:
        if claim["id"] in unmeasured:  # declared, and the declaration must stay true
            assert claim["measured"] is None, (claim["id"], unmeasured[claim["id"]])
        elif claim["kind"] == DIAGNOSTIC:  # shown with its value, never judged
            assert claim["measured"] is not None, claim["metric"]
        else:
            assert claim["verdict"] != NOT_MEASURED, claim["metric"]


def test_same_seed_same_numbers_whatever_the_worker_count(smoke, tmp_path):
    # one cheap paper: two loky workers against the in-process run (the other backends are
    # checked against loky in test_backends.py)
    first, _ = smoke("ipd_pavlov")
    second = runner.run(["ipd_pavlov"], scale="smoke", seed=0, out=tmp_path, jobs=2)["ipd_pavlov"]
    assert first["measurements"] == second["measurements"]
    assert first["claims"] == second["claims"]


def test_summary_json_round_trips(smoked):
    slug, out, summary = smoked
    on_disk = store.read_summary(store.summary_path(out, slug, "smoke", 0))
    assert on_disk == json.loads(json.dumps(summary))
    for figure in summary["figures"]:
        assert (store.run_dir(out, slug, "smoke", 0) / figure["path"]).is_file()
        assert figure["caption"]


def test_compare_tolerances_name_committed_measurements(smoked):
    slug, *_ = smoked
    committed = store.read_summary(store.summary_path(store.results_dir(), slug, "default", 0))
    for metric, rtol in tolerances(slug).items():
        assert metric in committed["measurements"], metric
        assert rtol is None or rtol > 0, (metric, rtol)


def _replicates_average_to_the_metric(claims, measurements, where, skip=()):
    for claim in claims:
        if not claim.replicates or claim.id in skip:
            continue
        groups = replicate_values(claim, measurements)
        assert groups, f"{where}: ({claim.id}) no measurement matches {claim.replicates!r}"
        means = [float(np.mean(v)) for v in groups.values()]
        value = {"min": min, "max": max}.get(claim.across, lambda m: m[0])(means)
        # rel 1e-6: a metric may be a float32 mean of the same values
        assert value == pytest.approx(measurements[claim.metric], rel=1e-6, abs=1e-12), (
            f"{where}: ({claim.id}) {claim.metric} is not the {claim.across or 'mean'} of "
            f"{claim.replicates!r}"
        )


def test_declared_replicates_are_what_the_metric_is_made_of(smoked):
    slug, _, summary = smoked
    _replicates_average_to_the_metric(
        load_claims(slug), summary["measurements"], "smoke", skip=smoke_unmeasured(slug)
    )


def test_committed_verdicts_are_those_of_the_claims_as_declared():
    # claims.py is no part of a fingerprint: a committed summary must be judged by it as it is
    for slug in catalog.implemented():
        claims = load_claims(slug)
        for committed in store.find_summaries(store.results_dir(), slug):  # with each model too
            where = f"{slug} committed" + (
                f" with {committed['model']}" if committed.get("model") else ""
            )
            unmeasured = {c["id"] for c in committed["claims"] if c["verdict"] == "not measured"}
            _replicates_average_to_the_metric(
                claims, committed["measurements"], where, skip=unmeasured
            )
            again = runner.rejudge(committed, claims)
            assert again["claims"] == committed["claims"], f"{where}: judge it again"
