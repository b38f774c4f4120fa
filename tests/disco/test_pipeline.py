"""DIS-CO on user frames: a scripted model offline, and a real HTTP round trip to the stub."""

import base64
import io
import json

import numpy as np
import pytest
from PIL import Image

from icml25.common.llm import Endpoint, LLMClient, LLMConfigError
from icml25.common.openai_stub import StubServer
from icml25.disco import Film, ask_titles, default_client, run_disco


def frames(value, n):
    return [np.full((8, 8, 3), value, dtype=np.uint8) for _ in range(n)]


def knows_old_films(messages, params):
    """A scripted 'model': names the film from a bright frame or a caption naming it, guesses
    another film otherwise; one reply in prose, one empty."""
    content = messages[-1]["content"]
    text = content if isinstance(content, str) else content[0]["text"]
    if "Description:" in text:
        caption = text.split("Description:")[1]
        return json.dumps({"movie_name": "Titanic" if "ship" in caption else "Drive"})
    png = base64.b64decode(content[1]["image_url"]["url"].split(",", 1)[1])
    bright = np.asarray(Image.open(io.BytesIO(png))).mean() > 128
    return json.dumps({"movie_name": "Titanic"}) if bright else "The movie is Drive."


FILMS = [
    Film("Titanic", frames(250, 3), ["a big ship", "a car", "a car"], released="1997-12-19"),
    Film("Twisters", frames(7, 3), ["a storm", "a storm", "a car"], released="2024-07-19"),
]


def test_scores_aucs_and_malformed_replies_with_a_scripted_model():
    # "Titanic" is named from the bright frames, prose "The movie is Drive." from the dark ones
    client = LLMClient.scripted(knows_old_films)
    report = run_disco(FILMS, client, cutoff="2023-09-01")
    titanic, twisters = report.films
    assert titanic.image_answers == ("Titanic",) * 3 and titanic.score == 1.0
    assert titanic.caption_score == pytest.approx(1 / 3)
    assert titanic.floor_score == pytest.approx(2 / 3)  # the ship caption gave one frame away
    assert twisters.score == 0.0 and twisters.malformed == 3  # prose, read but counted
    assert report.labels.tolist() == [1, 0]
    assert report.auc == report.floor_auc == 1.0
    assert report.usage["calls"] == 12 and report.malformed == 3 and report.empty == 0


def test_against_the_stub_server_over_http(tmp_path):
    answers = iter(['{"movie_name": "Titanic"}', "", '"Titanic"'])
    with StubServer(lambda body: next(answers)) as server:
        client = LLMClient.from_endpoint(Endpoint(server.url, "stub-vlm"), cache_dir=tmp_path)
        # three different frames: identical requests may be answered from the response cache
        distinct = [np.full((8, 8, 3), v, dtype=np.uint8) for v in (9, 10, 11)]
        got = ask_titles(client, frames=distinct)
    assert sorted(got) == sorted([("Titanic", True), ("", False), ("Titanic", False)])
    body = server.requests[0]
    assert body["model"] == "stub-vlm" and body["temperature"] == 0.0
    parts = body["messages"][0]["content"]
    assert parts[0]["type"] == "text" and "film" in parts[0]["text"]
    assert parts[1]["image_url"]["url"].startswith("data:image/png;base64,")


def test_structured_output_sends_the_schema():
    seen = []
    client = LLMClient.scripted(lambda m, p: seen.append(p) or '{"movie_name": "Up"}')
    ask_titles(client, captions=["a house with balloons"], structured_output=True)
    assert seen[0]["response_format"]["json_schema"]["schema"]["required"] == ["movie_name"]


def test_missing_endpoint_is_one_clear_error(monkeypatch):
    for name in ("ICML25_LLM_MODEL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(LLMConfigError, match="ICML25_LLM_MODEL"):
        default_client()
    with pytest.raises(LLMConfigError, match="ICML25_LLM_MODEL"):
        run_disco(FILMS)


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="frames"):
        Film("Titanic", [])
    with pytest.raises(ValueError, match="captions"):
        Film("Titanic", frames(1, 2), ["only one"])
    with pytest.raises(ValueError, match="title"):
        Film("", frames(1, 1))
    with pytest.raises(ValueError, match="films"):
        run_disco([], LLMClient.scripted(knows_old_films))
    with pytest.raises(ValueError, match="released"):
        run_disco([Film("Up", frames(1, 1))], LLMClient.scripted(knows_old_films), cutoff="2023")
    with pytest.raises(TypeError, match="client"):
        ask_titles("not a client", captions=["x"])
    with pytest.raises(ValueError, match="exactly one"):
        ask_titles(LLMClient.scripted(knows_old_films))
