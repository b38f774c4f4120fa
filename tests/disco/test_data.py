"""The packaged release and the script that built it."""

import csv
import gzip
import io
import zipfile

import numpy as np
import pytest

from icml25.disco.convert_release import collect, read_sheet, write_table
from icml25.disco.data import MODEL_KEYS, load_release, suspect_labels
from icml25.disco.titles import match_title, normalize_title


def test_release_has_every_answer_of_the_benchmark():
    release = load_release()
    assert len(release.movies) == 100 and release.models == tuple(MODEL_KEYS)
    assert release.labels().sum() == 50  # 50 suspect films, 50 clean ones
    assert release.image_answer.shape == (100 * 140 * 4,)
    for model in release.models:
        main, neutral = release.rows(model, "main"), release.rows(model, "neutral")
        # 20 scenes x 5 main frames and 10 scenes x 4 neutral frames per film
        assert np.bincount(release.movie_index[main], minlength=100).tolist() == [100] * 100
        assert np.bincount(release.movie_index[neutral], minlength=100).tolist() == [40] * 100
    assert all(release.accepted[i][0] == release.titles[i] for i in range(100))
    with pytest.raises(ValueError, match="frame_type"):
        release.rows(release.models[0], "background")


def test_labels_follow_release_dates_and_the_cutoff():
    dates = ["2023-08-31", "2023-09-01", "1999-01-01"]
    assert suspect_labels(dates).tolist() == [1, 0, 1]
    assert suspect_labels(dates, "1990-01-01").tolist() == [0, 0, 0]
    with pytest.raises(ValueError, match="ISO"):
        suspect_labels(["31/08/2023"])


def _sheet(rows, shared=None):
    """A minimal .xlsx in memory: rows of (kind, value) cells; kind 's' uses shared strings."""
    ns = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
    cells = []
    for r, row in enumerate(rows, start=1):
        out = []
        for c, (kind, value) in enumerate(row):
            ref = f"{'ABCDEF'[c]}{r}"
            if kind == "inline":
                out.append(f'<c r="{ref}" t="inlineStr"><is><t>{value}</t></is></c>')
            else:
                out.append(f'<c r="{ref}" t="{kind}"><v>{value}</v></c>')
        cells.append(f'<row r="{r}">{"".join(out)}</row>')
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(
            "xl/worksheets/sheet1.xml",
            f'<worksheet xmlns="{ns}"><sheetData>{"".join(cells)}</sheetData></worksheet>',
        )
        if shared is not None:
            items = "".join(f"<si><t>{s}</t></si>" for s in shared)
            archive.writestr("xl/sharedStrings.xml", f'<sst xmlns="{ns}">{items}</sst>')
    return buffer.getvalue()


def test_converter_reads_inline_shared_and_numeric_cells(tmp_path):
    film = tmp_path / "Frozen"
    film.mkdir()
    header = [("inline", "Scene"), ("inline", "Image 1"), ("inline", "Image 2")]
    (film / "Frozen_results_main_gpt-4o-2024-08-06_single_image.xlsx").write_bytes(
        _sheet([header, [("n", "1"), ("inline", "Frozen"), ("inline", " Tangled ")]])
    )
    header = [("inline", "Scene"), ("inline", "Caption 1"), ("inline", "Caption 2")]
    (film / "Frozen_results_main_gpt-4o-2024-08-06_single_caption.xlsx").write_bytes(
        _sheet([header, [("n", "1.0"), ("s", "0"), ("s", "1")]], shared=["Brave", "Frozen"])
    )
    sheet = read_sheet(film / "Frozen_results_main_gpt-4o-2024-08-06_single_caption.xlsx")
    assert sheet[1] == ["1.0", "Brave", "Frozen"]
    rows = collect(tmp_path)
    assert rows == [
        ("Frozen", "main", 1, 1, "gpt-4o-2024-08-06", "Frozen", "Brave"),
        ("Frozen", "main", 1, 2, "gpt-4o-2024-08-06", "Tangled", "Frozen"),
    ]
    first = write_table(rows, tmp_path / "a").read_bytes()
    assert first == write_table(rows, tmp_path / "b").read_bytes()  # same rows, same bytes
    table = list(csv.DictReader(io.StringIO(gzip.decompress(first).decode())))
    assert table[1]["caption_answer"] == "Frozen"


def test_converter_refuses_unknown_files(tmp_path):
    with pytest.raises(ValueError, match="release_dir"):
        collect(tmp_path)
    (tmp_path / "Frozen").mkdir()
    (tmp_path / "Frozen" / "notes.xlsx").write_bytes(_sheet([[("inline", "Scene")]]))
    with pytest.raises(ValueError, match="unexpected file name"):
        collect(tmp_path)


def test_the_tolerant_rules_accept_only_these_answers_of_the_release():
    # beyond equal normal forms, the typo and one-word rules accept three answers in all (the
    # README lists them); everything else the release's models said is matched exactly
    release = load_release()
    extra = {}
    for answers in (release.image_answer, release.caption_answer):
        for f, answer in set(zip(release.movie_index.tolist(), answers.tolist(), strict=True)):
            accepted = release.accepted[f]
            exact = normalize_title(answer) in {normalize_title(t) for t in accepted}
            if not exact and match_title(answer, accepted):
                extra[release.movies[f]] = answer
    assert extra == {"Longlegs": "Long Legs", "Bohemian_Rhapsody": "Bhemian Rhapsody"}
