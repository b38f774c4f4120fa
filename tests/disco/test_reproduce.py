"""The reproduction at smoke scale, with the endpoint path against the stub server."""

import dataclasses

import numpy as np

import icml25.disco.reproduce as disco
from icml25.common.llm import Endpoint
from icml25.common.openai_stub import StubServer
from icml25.disco.claims import CLAIMS
from icml25.lab import runner
from icml25.lab.claims import NOT_MEASURED


def test_cells_cover_every_model_and_the_probe_only_with_an_endpoint():
    config = disco.SCALES["default"]
    assert [c["model"] for c in disco.cells(config)] == list(config.models)
    with_llm = dataclasses.replace(config, llm=Endpoint("http://127.0.0.1:1/v1", "m"))
    assert disco.cells(with_llm)[-1] == {"part": "null_probe", "input": "image"}
    text_only = dataclasses.replace(with_llm.llm, reads_images=False)
    blind = dataclasses.replace(config, llm=text_only)
    assert disco.cells(blind)[-1] == {"part": "null_probe", "input": "caption"}
    for scale in disco.SCALES.values():
        assert scale.llm is None  # committed scales are offline


def test_a_content_free_caption_names_each_blocks_colour_row_by_row():
    frame = np.zeros((8, 8, 3), dtype=np.uint8)  # 4 x 4 blocks of 2 x 2 pixels
    frame[:2, :2] = (250, 250, 250)  # top-left white
    frame[6:, 6:] = (20, 50, 210)  # bottom-right blue
    caption = disco.describe_blocks(frame)
    rows = caption.split("the rows are: ")[1].rstrip(".").split("; ")
    assert rows[0] == "white, black, black, black" and rows[3] == "black, black, black, blue"
    frames = disco.content_free_frames(2, 64, np.random.default_rng(0))
    for f in frames:  # 16 names in 4 rows
        rows = disco.describe_blocks(f).split("the rows are: ")[1].split("; ")
        assert [row.count(",") for row in rows] == [3, 3, 3, 3]


def test_content_free_frames_are_seeded_images():
    a = disco.content_free_frames(3, 30, np.random.default_rng(0))
    b = disco.content_free_frames(3, 30, np.random.default_rng(0))
    assert a.shape == (3, 30, 30, 3) and a.dtype == np.uint8
    np.testing.assert_array_equal(a, b)


def test_smoke_run_with_a_stub_endpoint(tmp_path, monkeypatch):
    monkeypatch.setenv("ICML25_CACHE", str(tmp_path / "cache"))
    replies = iter(['{"movie_name": "Titanic"}', "no idea, sorry"] * 4)
    with StubServer(lambda body: next(replies)) as server:
        summary = runner.run(
            ["disco"],
            scale="smoke",
            out=tmp_path / "runs",
            jobs=1,
            llm=Endpoint(server.url, "stub-vlm"),
        )["disco"]
    assert summary["cells"]["failed"] == 0, summary["failures"]
    verdicts = {c["id"]: c["verdict"] for c in summary["claims"]}
    assert verdicts["a"] == "reproduced" and verdicts["floor_le_image"] == "holds"
    assert NOT_MEASURED not in verdicts.values()
    m = summary["measurements"]
    assert summary["llm_usage"]["calls"] == 2 and m["llm_malformed_replies"] == 1
    # "Titanic" names exactly one of the 100 films; "no idea, sorry" none
    assert m["llm_null_films_named"] == 1 and m["llm_null_hit_rate"] == 1 / 200
    assert summary["config"]["llm"]["model"] == "stub-vlm"


def test_which_declarations_are_checks():
    assert [c.id for c in CLAIMS if c.kind == "check"] == ["floor_le_image"]
