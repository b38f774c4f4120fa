"""Every registered reproduction runs at smoke scale and obeys the protocol."""

import json

import pytest

from icml25.lab import catalog, runner, store
from icml25.lab.claims import NOT_MEASURED
from icml25.lab.reproduction import SCALE_NAMES, cell_key, load, load_claims, tolerances


@pytest.fixture(scope="module", params=catalog.implemented())
def smoke_twice(request, tmp_path_factory):
    slug = request.param
    out = tmp_path_factory.mktemp(slug)
    first = runner.run([slug], scale="smoke", seed=0, out=out / "a", jobs=2)[slug]
    second = runner.run([slug], scale="smoke", seed=0, out=out / "b", jobs=1)[slug]
    return slug, out / "a", first, second


def test_claims_and_scales_are_well_formed(smoke_twice):
    slug, *_ = smoke_twice
    repro = load(slug)
    assert repro.claims == load_claims(slug)  # claims.py, read without the paper's package
    assert set(repro.scales) == set(SCALE_NAMES)
    for scale in SCALE_NAMES:
        cells = repro.cells(repro.config(scale))
        assert cells, scale
        assert len({cell_key(c) for c in cells}) == len(cells), f"duplicate cells at {scale}"
        json.dumps(cells)  # cells are plain JSON-able parameters


def test_every_claimed_metric_is_measured(smoke_twice):
    _, _, summary, _ = smoke_twice
    assert summary["cells"]["failed"] == 0, summary["failures"]
    assert summary["summary_error"] is None, summary["summary_error"]
    assert summary["complete"]
    for claim in summary["claims"]:
        assert claim["verdict"] != NOT_MEASURED, claim["metric"]


def test_same_seed_same_numbers_whatever_the_worker_count(smoke_twice):
    _, _, first, second = smoke_twice
    assert first["measurements"] == second["measurements"]
    assert first["claims"] == second["claims"]


def test_summary_json_round_trips(smoke_twice):
    slug, out, summary, _ = smoke_twice
    on_disk = store.read_summary(store.summary_path(out, slug, "smoke", 0))
    assert on_disk == json.loads(json.dumps(summary))
    for figure in summary["figures"]:
        assert (store.run_dir(out, slug, "smoke", 0) / figure["path"]).is_file()
        assert figure["caption"]


def test_compare_tolerances_name_committed_measurements(smoke_twice):
    slug, *_ = smoke_twice
    committed = store.read_summary(store.summary_path(store.results_dir(), slug, "default", 0))
    for metric, rtol in tolerances(slug).items():
        assert metric in committed["measurements"], metric
        assert rtol is None or rtol > 0, (metric, rtol)
