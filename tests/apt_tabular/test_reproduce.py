import icml25.apt_tabular.reproduce as apt
from icml25.apt_tabular.claims import CLAIMS
from icml25.lab.claims import NOT_MEASURED


def test_cells_cover_every_variant_and_seed():
    config = apt.SCALES["paper"]
    parts = [(c["part"], c.get("variant")) for c in apt.cells(config)]
    assert parts.count(("pretrain", "adversarial")) == parts.count(("pretrain", "plain")) == 3
    assert parts.count(("pretrain", "head")) == config.head_seeds >= 1
    assert ("baselines", None) in parts


def test_default_keeps_every_adversarial_seed_and_drops_only_the_controls():
    # issue 44: the default leaves out the plain and head pre-trainings (claims b, d), never a
    # seed, a step or a data set of what it keeps
    default, paper = apt.SCALES["default"], apt.SCALES["paper"]
    parts = [(c["part"], c.get("variant")) for c in apt.cells(default)]
    assert not default.controls and paper.controls
    assert parts.count(("pretrain", "adversarial")) == default.seeds == 3
    assert ("pretrain", "plain") not in parts and ("pretrain", "head") not in parts
    assert ("baselines", None) in parts
    synthetic = [c["baseline"] for c in apt.cells(default) if c["part"] == "synthetic_baseline"]
    assert synthetic == ["logistic", "random_forest"]
    assert [c for c in apt.cells(paper) if c["part"] == "synthetic_baseline"][-1]["baseline"] == (
        "hist_gb"
    )
    assert default.pretrain.steps == 3000 and default.n_splits == 5 and default.tasks == 10


def test_without_the_controls_b_and_d_are_not_measured():
    from dataclasses import replace

    from icml25.apt_tabular.summary import summarize
    from icml25.lab.claims import evaluate

    config = replace(apt.SCALES["smoke"], controls=False)
    results = [(c, apt.run_cell(config, c, 0)) for c in apt.cells(config)]
    m = summarize(config, results).measurements
    verdicts = {v.claim.id: v for v in evaluate(CLAIMS, m)}
    assert verdicts["b"].verdict == verdicts["d"].verdict == NOT_MEASURED
    assert verdicts["a"].verdict != NOT_MEASURED and verdicts["c"].verdict != NOT_MEASURED
    assert verdicts["why_c_width"].measured is not None
    assert not any("plain" in k or "head" in k for k in m)


def test_plain_control_differs_only_in_the_adversaries():
    config = apt.SCALES["default"]
    adv = apt.variant_config(config, "adversarial", 1)
    plain = apt.variant_config(config, "plain", 1)
    head = apt.variant_config(config, "head", 1)
    assert adv.n_adversarial > 0 and plain.n_adversarial == 0
    assert adv.__class__(**{**adv.__dict__, "n_adversarial": 0}) == plain
    assert head.model.readout == "head" and head.n_adversarial == adv.n_adversarial
    assert max(config.many_classes) > 10 and min(config.over_ten) > 10


def test_smoke_measures_every_claim(smoke):
    summary = smoke("apt_tabular")[0]
    assert summary["cells"]["failed"] == 0, summary["failures"]
    assert all(c["verdict"] != NOT_MEASURED for c in summary["claims"])
    m = summary["measurements"]
    assert 0.5 < m["auc_hist_gb_iris"] <= 1.0


def test_which_declarations_are_checks():
    # every declaration can fail: (d) lets the head score on its first 10 classes
    assert [c.id for c in CLAIMS if c.kind == "check"] == []
