"""The reduce side of the reproduction: ``summarize`` turns the outputs of the cells of
``reproduce.py`` into the measurements the claims are judged on, and draws the figures."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from icml25.lab.reproduction import Summary
from icml25.stop_st.reproduce import (
    MODELS,
    Config,
    _data,
)

LABELS = {
    "stop": "STOP",
    "stop_plain": "STOP w/o perturbation & robust loss",
    "gcn": "GCN",
    "backbone": "backbone (no context units)",
    "stop_plain_mixed_heads": "STOP w/o both, official head reshape",
}


def _mean(results, model: str, key: str) -> np.ndarray:
    """Mean over replicates of the MAE array ``key`` of ``model``: (H,)."""
    return np.mean([o[key] for c, o in results if c["model"] == model], axis=0)


def _per_replicate(results, model: str, key: str) -> np.ndarray:
    """Horizon-averaged MAE of ``model`` per replicate: (R,)."""
    rows = sorted((c["replicate"], o[key].mean()) for c, o in results if c["model"] == model)
    return np.array([v for _, v in rows])


def _models(results) -> list[str]:
    """The models of ``MODELS`` that have cells in ``results``, in ``MODELS``' order (the
    default scale runs the claims' three, ``reproduce.CLAIM_MODELS``)."""
    present = {c["model"] for c, _ in results}
    return [model for model in MODELS if model in present]


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    m: dict[str, float] = {}
    keys = [
        f"{p}_{n}_by_horizon" for p in ("id", "shift") for n in ("train", "test", "new", "kept")
    ]
    models = _models(results)
    for model in models:
        for key in keys:
            m[f"mae_{key.removesuffix('_by_horizon')}_{model}"] = float(
                _mean(results, model, key).mean()
            )
        vals = [o["val"] for c, o in results if c["model"] == model]
        # convergence: relative val-MAE change over the last quarter of the epochs
        m[f"val_rel_change_last_quarter_{model}"] = float(
            np.mean([abs(v[-max(2, len(v) // 4)] - v[-1]) / v[-1] for v in vals])
        )
        m[f"best_epoch_fraction_{model}"] = float(
            np.mean([(np.argmin(v) + 1) / len(v) for v in vals])
        )
        if config.timing:
            m[f"train_seconds_{model}"] = float(
                np.mean([o["train_seconds"] for c, o in results if c["model"] == model])
            )
    m["mae_id_test_last_value"] = float(
        np.mean([_last_value_mae(config, r) for r in range(config.replicates)])
    )
    probs = np.concatenate([o["drop_prob"] for c, o in results if c["model"] == "stop"])
    m["stop_drop_prob_mean"] = float(probs.mean())
    m["stop_drop_prob_max"] = float(probs.max())
    new_stop = _per_replicate(results, "stop", "id_new_by_horizon")
    new_gcn = _per_replicate(results, "gcn", "id_new_by_horizon")
    m["a_new_node_mae_gain_vs_gcn"] = float(np.mean(1 - new_stop / new_gcn))
    m["a_new_node_mae_gain_vs_gcn_min"] = float(np.min(1 - new_stop / new_gcn))
    if "backbone" in models:
        m["a_new_node_mae_gain_vs_backbone"] = float(
            np.mean(1 - new_stop / _per_replicate(results, "backbone", "id_new_by_horizon"))
        )
    degradation = {}
    for model in models:
        shift = _per_replicate(results, model, "shift_train_by_horizon")
        ident = _per_replicate(results, model, "id_train_by_horizon")
        degradation[model] = shift / ident - 1
        m[f"degradation_{model}"] = float(degradation[model].mean())
    m["b_degradation_gcn_minus_stop"] = float(np.mean(degradation["gcn"] - degradation["stop"]))
    m["check_gcn_shift_ratio"] = float(np.mean(1 + degradation["gcn"]))
    robust = _per_replicate(results, "stop", "shift_test_by_horizon")
    plain = _per_replicate(results, "stop_plain", "shift_test_by_horizon")
    m["c_robust_gain_on_shift"] = float(np.mean(1 - robust / plain))
    m["c_robust_gain_on_shift_min"] = float(np.min(1 - robust / plain))
    m["c_robust_gain_on_id"] = float(
        np.mean(
            1
            - _per_replicate(results, "stop", "id_test_by_horizon")
            / _per_replicate(results, "stop_plain", "id_test_by_horizon")
        )
    )
    # The three claims per replicate (the order of ``_per_replicate``): their means above.
    ids = sorted(c["replicate"] for c, _ in results if c["model"] == "stop")
    per_replicate = {
        "a_new_node_mae_gain_vs_gcn": 1 - new_stop / new_gcn,
        "b_degradation_gcn_minus_stop": degradation["gcn"] - degradation["stop"],
        "c_robust_gain_on_shift": 1 - robust / plain,
    }
    for name, values in per_replicate.items():
        for r, v in zip(ids, values, strict=True):
            m[f"{name}[replicate={r}]"] = float(v)
    m.update(_diagnostics(results, new_stop))
    if "stop_plain_mixed_heads" in models:
        m["mixed_heads_id_test_mae_change"] = (
            m["mae_id_test_stop_plain_mixed_heads"] / m["mae_id_test_stop_plain"] - 1
        )
        m["mixed_heads_shift_test_mae_change"] = (
            m["mae_shift_test_stop_plain_mixed_heads"] / m["mae_shift_test_stop_plain"] - 1
        )
    figures = {
        "error_by_horizon": _fig_horizon(results),
        "error_on_new_nodes": _fig_new_nodes(results),
    }
    traces = {c["model"]: o for c, o in results if c["replicate"] == 0 and "trace_h1" in o}
    if traces:
        figures["forecasts_vs_truth"] = _fig_traces(config, traces)
    captions = {
        "error_by_horizon": "MAE by forecast step, in-distribution period (left) and later "
        "period (right), test node set, mean over replicates.",
        "error_on_new_nodes": "MAE on the kept training nodes and on the new (never seen) "
        "nodes, in-distribution period; dots are replicates.",
        "forecasts_vs_truth": "One new sensor (replicate 0): 1-step and last-step-ahead "
        "forecasts against the truth, in-distribution period.",
    }
    return Summary(m, figures, captions)


VARIANTS = ("none", "phase", "level_amplitude", "diffusion_pulses", "all")


def _diagnostics(results, new_stop: np.ndarray) -> dict[str, float]:
    """The diagnostics of (a), (b), (c) from the ``explain_*`` cells, per replicate and as
    means over replicates; ``new_stop`` (R,) is STOP's new-node MAE of the main cells."""
    m: dict[str, float] = {}
    for name in ("stop", "gcn"):  # new-node penalty of the main cells' models
        new = _per_replicate(results, name, "id_new_by_horizon")
        kept = _per_replicate(results, name, "id_kept_by_horizon")
        m[f"a_new_node_penalty_{name}"] = float(np.mean(new / kept - 1))
    shift = {c["replicate"]: o["shift_factors"] for c, o in results if "shift_factors" in o}
    trans = {c["replicate"]: o["transductive_gcn"] for c, o in results if "transductive_gcn" in o}
    stop_ids = sorted(c["replicate"] for c, _ in results if c["model"] == "stop")
    if sorted(trans) == stop_ids:
        gain = [1 - s / trans[r]["new10"] for r, s in zip(stop_ids, new_stop, strict=True)]
        penalty = [trans[r]["new10"] / trans[r]["kept10"] - 1 for r in stop_ids]
        for r, g, p in zip(stop_ids, gain, penalty, strict=True):
            m[f"a_gain_vs_transductive_gcn[replicate={r}]"] = float(g)
            m[f"a_new_node_penalty_transductive_gcn[replicate={r}]"] = float(p)
        m["a_gain_vs_transductive_gcn"] = float(np.mean(gain))
        m["a_new_node_penalty_transductive_gcn"] = float(np.mean(penalty))
    if not shift:
        return m
    gaps: dict[str, list[float]] = {v: [] for v in VARIANTS}
    gain30, seed_change = [], []
    for r, out in sorted(shift.items()):
        degradation = {
            name: {v: out[name][f"later_{v}"] / out[name]["id"] - 1 for v in VARIANTS}
            for name in out
        }
        for v in VARIANTS:
            gap = degradation["gcn"][v] - degradation["stop"][v]
            m[f"b_gap_single_factor[{v},replicate={r}]"] = gap
            gaps[v].append(gap)
        gain30.append(1 - out["stop"]["new30"] / out["gcn"]["new30"])
        seed_change.append(
            out["stop_plain_seed2"]["later_all"] / out["stop_plain"]["later_all"] - 1
        )
        m[f"a_gain_vs_gcn_30_new[replicate={r}]"] = gain30[-1]
        m[f"c_plain_seed_to_seed_change[replicate={r}]"] = seed_change[-1]
    for v in VARIANTS:
        m[f"b_gap_single_factor_{v}"] = float(np.mean(gaps[v]))
    m["b_gap_dynamics_shift"] = float(np.mean(gaps["phase"] + gaps["diffusion_pulses"]))
    m["a_gain_vs_gcn_30_new"] = float(np.mean(gain30))
    m["c_plain_seed_to_seed_abs_change"] = float(np.mean(np.abs(seed_change)))
    return m


def _last_value_mae(config: Config, replicate: int) -> float:
    """The naive forecast (repeat the last observed value), ID period, test nodes."""
    periods, split = _data(config, replicate)
    series = periods.base[config.train_days * config.steps_per_day :, split.test]
    L, H = config.input_len, config.horizon
    idx = np.arange(len(series) - L - H + 1)[:, None]  # (W, 1)
    truth = series[idx + L + np.arange(H)]  # (W, H, N)
    return float(np.abs(truth - series[idx + L - 1]).mean())


def _fig_horizon(results) -> Figure:
    fig = Figure(figsize=(9, 3.6))
    axes = fig.subplots(1, 2, sharey=True)
    for ax, period, title in zip(
        axes, ("id", "shift"), ("in-distribution period", "later period (shifted)"), strict=True
    ):
        for model in _models(results):
            i = list(MODELS).index(model)  # one colour per model at every scale
            err = _mean(results, model, f"{period}_test_by_horizon")
            ax.plot(np.arange(1, len(err) + 1), err, "o-", color=f"C{i}", label=LABELS[model])
        ax.set_title(f"{title}, test nodes", fontsize=9)
        ax.set_xlabel("forecast step (hours ahead)")
    axes[0].set_ylabel("MAE")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    return fig


def _fig_new_nodes(results) -> Figure:
    fig = Figure(figsize=(6.4, 4.0))
    ax = fig.subplots()
    width = 0.38
    models = _models(results)
    for i, model in enumerate(models):
        for j, (key, name) in enumerate((("id_kept", "kept"), ("id_new", "new"))):
            vals = _per_replicate(results, model, f"{key}_by_horizon")
            x = i + (j - 0.5) * width
            ax.bar(x, vals.mean(), width, color=f"C{j}", label=name if i == 0 else None)
            ax.plot(np.full(len(vals), x), vals, "k.", markersize=4)
    names = [LABELS[m].split(" (")[0] for m in models]
    ax.set_xticks(range(len(models)), names, fontsize=7, rotation=20, ha="right")
    ax.set_ylabel("MAE (in-distribution period)")
    ax.legend(title="nodes", fontsize=7)
    fig.tight_layout()
    return fig


def _fig_traces(config: Config, traces: dict) -> Figure:
    fig = Figure(figsize=(9, 4.2))
    axes = fig.subplots(1, 2, sharey=True)
    L, H = config.input_len, config.horizon
    any_out = next(iter(traces.values()))
    truth = any_out["trace_truth"]
    for ax, key, step in zip(axes, ("trace_h1", "trace_hlast"), (1, H), strict=True):
        t_truth = np.arange(len(truth))
        ax.plot(t_truth, truth, "k-", linewidth=1.2, label="truth")
        for i, model in enumerate(MODELS):
            if model in traces:
                pred = traces[model][key]
                t = L - 1 + step + np.arange(len(pred))  # the step each forecast is for
                ax.plot(t, pred, color=f"C{i}", linewidth=0.9, label=LABELS[model])
        ax.set_title(f"{step}-step-ahead forecasts, a new sensor", fontsize=9)
        ax.set_xlabel("hour of the in-distribution test period")
    axes[0].set_ylabel("value")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    return fig
