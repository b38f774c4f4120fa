import io
import json
import math
import os
import pickle
from pathlib import Path

import numpy as np
import pytest

from icml25.lab import store
from icml25.lab.reproduction import SCALE_NAMES


def record(output):
    return {"status": "ok", "output": output, "cell": {"a": 1}, "seed": 3, "seconds": 0.5}


def test_cell_records_round_trip_numbers_arrays_tuples_and_odd_keys(tmp_path):
    output = {
        "w": np.arange(6, dtype=np.float32).reshape(2, 3),
        "pair": (1, 2.5),
        "by_n": {256: 0.5, 512: 0.25},
        "nan": math.nan,
        "flag": np.bool_(True),
        "n": np.int64(7),
        "rows": [{"x": np.ones(2)}, None, "text"],
    }
    path = tmp_path / "cells" / "c.json"
    written = store.write_cell(path, record(output))["output"]
    back = store.read_cell(path)["output"]
    assert back["w"].dtype == np.float32 and np.array_equal(back["w"], output["w"])
    assert back["pair"] == (1, 2.5) and back["by_n"] == {256: 0.5, 512: 0.25}
    assert math.isnan(back["nan"]) and back["flag"] is True and back["n"] == 7
    assert np.array_equal(back["rows"][0]["x"], np.ones(2)) and back["rows"][1:] == [None, "text"]
    assert written["by_n"] == back["by_n"] and written["pair"] == back["pair"]
    assert np.array_equal(written["w"], back["w"])


def test_a_cell_record_is_json_and_npz_never_a_pickle(tmp_path):
    path = tmp_path / "c.json"
    store.write_cell(path, record({"w": np.zeros(3)}))
    body = json.loads(path.read_text())  # plain JSON
    assert body["format"] == store.CELL_FORMAT
    with np.load(path.with_suffix(".npz"), allow_pickle=False) as npz:
        assert npz.files == ["a0"]
    with pytest.raises(pickle.UnpicklingError):
        pickle.loads(path.read_bytes())


def test_a_pickle_planted_in_the_arrays_is_refused_not_run(tmp_path):
    path = tmp_path / "c.json"
    store.write_cell(path, record({"w": np.zeros(3)}))
    buffer = io.BytesIO()
    np.savez(buffer, a0=np.array([object()], dtype=object))  # needs pickle to load
    path.with_suffix(".npz").write_bytes(buffer.getvalue())
    with pytest.raises(store.Unreadable, match="pickle"):
        store.read_cell(path)


@pytest.mark.parametrize(
    "damage",
    [
        lambda p: p.write_text(p.read_text()[:20]),  # truncated
        lambda p: p.write_text("[1, 2]"),  # wrong shape
        lambda p: p.write_text(json.dumps({"format": 1, "arrays": None, "record": {"x": 1}})),
        lambda p: p.with_suffix(".npz").write_bytes(b"garbage"),
        lambda p: p.with_suffix(".npz").unlink(),
    ],
)
def test_a_damaged_record_is_unreadable_with_its_path(tmp_path, damage):
    path = tmp_path / "c.json"
    store.write_cell(path, record({"w": np.zeros(3)}))
    damage(path)
    with pytest.raises(store.Unreadable) as err:
        store.read_cell(path)
    assert err.value.path.name in {"c.json"} and str(tmp_path) in str(err.value)


def test_an_output_the_store_cannot_hold_names_where(tmp_path):
    with pytest.raises(TypeError, match=r"record\['output'\]\['model'\]: cannot store a object"):
        store.write_cell(tmp_path / "c.json", record({"model": object()}))


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_files_follow_the_umask(tmp_path, umask):
    old = os.umask(umask)
    try:
        store.write_atomic(tmp_path / "f.txt", b"x")
        store.write_cell(tmp_path / "c.json", record({"w": np.zeros(2)}))
    finally:
        os.umask(old)
    for name in ("f.txt", "c.json", "c.npz"):
        assert (tmp_path / name).stat().st_mode & 0o777 == 0o666 & ~umask, name


def test_summaries_carry_a_schema_and_bad_ones_are_named(tmp_path):
    good = {"schema": store.SCHEMA, "slug": "p", "scale": "smoke", "seed": 0}
    good |= {"claims": [], "measurements": {}, "counts": {}}
    store.write_summary(tmp_path, "p", "smoke", 0, good)
    store.write_summary(tmp_path, "p", "default", 0, {**good, "scale": "default"})
    old = store.summary_path(tmp_path, "p", "default", 1)
    old.parent.mkdir(parents=True)
    old.write_text(json.dumps({"slug": "p", "claims": []}))  # schema 1, before this change
    problems = []
    found = store.find_summaries(tmp_path, "p", problems.append)
    assert [(s["scale"], s["seed"]) for s in found] == [("smoke", 0), ("default", 0)]
    assert [p.path for p in problems] == [old] and "schema 1" in problems[0].reason
    assert store.latest(found)["scale"] == "default"


def test_figures_are_written_atomically_as_png(tmp_path):
    from matplotlib.figure import Figure

    figure = Figure()
    figure.subplots().plot([0, 1])
    store.save_figure_atomic(figure, tmp_path / "figures" / "f.png")
    assert (tmp_path / "figures" / "f.png").read_bytes()[:4] == b"\x89PNG"
    assert not list((tmp_path / "figures").glob(".*.tmp"))


GOOD_SUMMARY = {"schema": store.SCHEMA, "slug": "p", "scale": "smoke", "seed": 0, "claims": [],
                "measurements": {}, "counts": {}}  # fmt: skip


def _write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"seed": "0"}, "seed: '0' is not of type 'integer'"),
        ({"seed": True}, "seed: True is not of type 'integer'"),
        ({"measurements": []}, r"measurements: \[\] is not of type 'object'"),
        ({"claims": [1]}, r"claims\[0\]: 1 is not of type 'object'"),
        ({"slug": None}, "slug: None is not of type 'string'"),
        ({"scale": "../../.."}, "scale: '../../..' is not one of"),
        ({"slug": "../x"}, "slug: '../x' does not match"),
        ({"seed": -1}, "seed: -1 is less than the minimum of 0"),
        ({"model": "../../x"}, "model: '../../x' does not match"),
        ({"model": 3}, "model: 3 is not of type 'string', 'null'"),
    ],
)
def test_a_summary_with_fields_of_the_wrong_type_is_named(tmp_path, change, reason):
    path = _write(tmp_path / "summary.json", json.dumps({**GOOD_SUMMARY, **change}))
    with pytest.raises(store.Unreadable, match=reason) as err:
        store.read_summary(path)
    assert err.value.path == path


def test_deep_nesting_fifos_devices_and_huge_files_are_refused_unread(tmp_path, monkeypatch):
    deep = _write(tmp_path / "deep" / "summary.json", "[" * 100_000 + "]" * 100_000)
    fifo = tmp_path / "fifo" / "summary.json"
    fifo.parent.mkdir()
    os.mkfifo(fifo)
    zero = tmp_path / "zero" / "summary.json"
    zero.parent.mkdir()
    zero.symlink_to("/dev/zero")
    huge = _write(tmp_path / "huge" / "summary.json", json.dumps(GOOD_SUMMARY) + " " * 2000)
    cell = _write(tmp_path / "cells" / "c.json", "[" * 100_000 + "]" * 100_000)
    for path, reason in ((deep, "nested too deeply"), (fifo, "not a regular file"),
                         (zero, "not a regular file")):  # fmt: skip
        with pytest.raises(store.Unreadable, match=reason):
            store.read_summary(path)
    with pytest.raises(store.Unreadable, match="nested too deeply"):
        store.read_cell(cell)
    monkeypatch.setattr(store, "MAX_JSON_BYTES", 1000)
    with pytest.raises(store.Unreadable, match="more than the 1000"):
        store.read_summary(huge)


@pytest.mark.parametrize(
    ("name", "tag"),
    [
        ("local:smollm2", "smollm2"),
        ("gpt-4o-mini", "gpt-4o-mini"),
        ("meta-llama/Llama-3.1-8B Instruct", "meta-llama-llama-3.1-8b-instruct"),
        ("local:../../etc", "etc"),
        ("..", None),
        ("///", None),
    ],
)
def test_a_model_name_becomes_a_folder_safe_tag_or_is_refused(name, tag):
    if tag is None:
        with pytest.raises(ValueError, match="no letter or digit"):
            store.model_tag(name)
    else:
        assert store.model_tag(name) == tag
        assert store.run_dir(Path("runs"), "p", "smoke", 0, tag).name == f"seed-0-{tag}"


@pytest.mark.parametrize("tag", ["..", "../x", "a/b", "", "X"])
def test_a_run_folder_refuses_a_tag_that_could_leave_it(tag):
    with pytest.raises(ValueError, match="not a folder-safe tag"):
        store.run_dir(Path("runs"), "p", "smoke", 0, tag)


def test_a_model_run_is_found_beside_the_offline_one_which_is_shown_first(tmp_path):
    offline = {**GOOD_SUMMARY, "scale": "default", "provenance": {"finished": "2026-01-01"}}
    model = {**offline, "model": "smollm2", "provenance": {"finished": "2026-02-01"}}
    other = {**offline, "seed": 1, "model": None}
    for summary in (model, offline, other):
        store.write_summary(tmp_path, "p", "default", summary["seed"], summary)
    found = store.find_summaries(tmp_path, "p")
    assert [(s["seed"], s.get("model")) for s in found] == [(0, None), (0, "smollm2"), (1, None)]
    assert (tmp_path / "p" / "default" / "seed-0-smollm2" / "summary.json").is_file()
    assert store.latest(found) is not found[1]  # a newer model run does not hide the offline one
    assert store.offline_beside(found, found[1]) is found[0]
    assert store.offline_beside(found, found[0]) is None


def test_the_command_line_imports_without_fcntl():
    # the folder lock is filelock's, so the CLI imports where fcntl does not exist (Windows)
    import subprocess
    import sys

    code = "import sys; sys.modules['fcntl'] = None; import icml25.lab.cli, icml25.lab.store"
    done = subprocess.run([sys.executable, "-W", "ignore", "-c", code], capture_output=True)
    assert done.returncode == 0, done.stderr.decode()


def test_the_published_schema_matches_the_stores_rules_and_every_committed_summary():
    schema = store.summary_schema()
    props = schema["properties"]
    assert props["schema"]["const"] == store.SCHEMA
    assert tuple(props["scale"]["enum"]) == SCALE_NAMES
    assert props["model"]["pattern"] == f"^{store.MODEL_TAG.pattern}$"
    committed = sorted(store.results_dir().glob("*/*/*/summary.json"))
    assert committed and all(store.read_summary(path) for path in committed)


def test_a_summary_that_breaks_the_schema_is_not_written(tmp_path):
    bad = {**GOOD_SUMMARY, "claims": [{"id": "a", "metric": "m", "kind": "claim",
                                       "measured": 0.5, "verdict": "passed"}]}  # fmt: skip
    with pytest.raises(ValueError, match=r"claims\[0\].verdict: 'passed' is not one of"):
        store.write_summary(tmp_path, "p", "smoke", 0, bad)
    assert not any(tmp_path.rglob("summary.json"))
    assert store.write_summary(tmp_path, "p", "smoke", 0, GOOD_SUMMARY).is_file()
