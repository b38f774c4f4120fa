import numpy as np

import icml25.icl_denoising.reproduce as rep
from icml25.icl_denoising.claims import CLAIMS


def test_cells_cover_every_model_and_the_ablation():
    config = rep.SCALES["default"]
    cells = rep.cells(config)
    models = len(rep.MAIN) - (0 if config.extra_models else len(rep.EXTRA))
    assert sum(c["multiplier"] == 1 for c in cells) == models * config.seeds
    ablation = [c for c in cells if c["multiplier"] > 1]
    assert len(ablation) == len(rep.TASKS) * config.ablation_seeds
    assert all(c["model"] == rep.PAPER_MODEL[c["task"]] for c in ablation)


def test_claims_keep_the_issue_thresholds():
    by_id = {c.id: c for c in CLAIMS}
    for task in rep.TASKS:
        assert (by_id[f"a_{task}"].comparison, by_id[f"a_{task}"].threshold) == ("<=", 1.1)
    assert (by_id["b"].comparison, by_id["b"].threshold) == ("<", 0.15)
    assert (by_id["c"].comparison, by_id["c"].threshold) == ("<", 0.1)
    assert (by_id["d1"].comparison, by_id["d1"].threshold) == ("<", 1e-6)
    assert (by_id["d2"].comparison, by_id["d2"].threshold) == (">", 1.0)
    for task in rep.TASKS:
        assert (by_id[f"se_{task}"].comparison, by_id[f"se_{task}"].threshold) == ("<", 0.01)
    for task in ("sphere", "gmm"):
        assert (by_id[f"d3_{task}"].comparison, by_id[f"d3_{task}"].threshold) == ("<", 0.1)


def test_paper_scale_has_the_paper_sizes():
    c = rep.SCALES["paper"]
    assert (c.n, c.context_len, c.prompts_train, c.prompts_test, c.batch_size) == (
        16,
        499,
        800,
        200,
        80,
    )
    assert (c.epochs_linear, c.epochs_nonlinear, c.seeds, c.lr) == (100, 200, 6, 1e-2)


def test_oracle_denoiser_of_each_task_beats_returning_the_query():
    config = rep.SCALES["smoke"]
    for i, task in enumerate(rep.TASKS):
        p = rep.make_prompts(config, task, 200, np.random.SeedSequence(i))
        bayes = np.mean((rep.bayes(config, task, p) - p.target) ** 2)
        assert bayes < 0.8 * np.mean((p.query - p.target) ** 2)


def test_smoke_run_measures_every_claim(smoke):
    summary = smoke("icl_denoising")[0]
    assert summary["cells"]["failed"] == 0, summary["failures"]
    verdicts = {c["id"]: c["verdict"] for c in summary["claims"]}
    assert "not measured" not in verdicts.values()
    # the energy identity is exact whatever the training: it must hold even at smoke scale
    assert verdicts["d1"] == "holds"
    m = summary["measurements"]
    for task in rep.TASKS:  # even briefly trained, every layer denoises better than x~
        assert m[f"test_mse_{task}"] < m[f"query_mse_{task}"]


def test_which_declarations_are_checks():
    # (d1): one energy step equals softmax attention with scaled identities (algebra);
    # se_*: the size of our experiment, not a statement of the paper
    checks = ["d1", "se_linear", "se_sphere", "se_gmm"]
    assert [c.id for c in CLAIMS if c.kind == "check"] == checks
