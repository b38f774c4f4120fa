"""Build ``data/answers.csv.gz`` from the answers released with DIS-CO (Duarte et al., ICML 2025).

The official repository (github.com/avduarte333/DIS-CO, Apache-2.0) ships, under
``Replicate_Results/<movie>/``, one spreadsheet per (movie, frame type, model, input mode):
``<movie>_results_<main|neutral>_<model>_single_<image|caption>.xlsx``, one row per scene and one
column per shot (``Image k`` or ``Caption k``), each cell the model's answer to "which film is
this frame from?". This script turns the 1,600 spreadsheets into one table, one row per
(movie, frame type, scene, shot, model) with the image answer and the caption answer side by
side, written as gzip-compressed CSV (a fixed gzip header, so the bytes repeat).

It reads the spreadsheets with the standard library alone (an ``.xlsx`` file is a zip of XML
sheets), so no spreadsheet package is needed. It is not run by the tests or the reproduction,
which read the committed table; it is kept so that the table's provenance can be checked::

    git clone https://github.com/avduarte333/DIS-CO
    python -m icml25.disco.convert_release DIS-CO/Replicate_Results src/icml25/disco/data
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import re
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

SHEET_NS = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
FILE_PATTERN = re.compile(
    r"^(?P<movie>.+)_results_(?P<frame_type>main|neutral)_(?P<model>.+)_single_"
    r"(?P<mode>image|caption)\.xlsx$"
)
COLUMNS = ("movie", "frame_type", "scene", "shot", "model", "image_answer", "caption_answer")


def read_sheet(path: Path) -> list[list[str]]:
    """The first sheet of an ``.xlsx`` file as rows of strings (empty cells as ``""``), in
    column order; inline, shared and numeric cells are all read as text."""
    with zipfile.ZipFile(path) as archive:
        names = set(archive.namelist())
        shared: list[str] = []
        if "xl/sharedStrings.xml" in names:
            root = ET.fromstring(archive.read("xl/sharedStrings.xml"))
            shared = [
                "".join(t.text or "" for t in item.iter(f"{SHEET_NS}t"))
                for item in root.iter(f"{SHEET_NS}si")
            ]
        sheet = ET.fromstring(archive.read("xl/worksheets/sheet1.xml"))
    rows = []
    for row in sheet.iter(f"{SHEET_NS}row"):
        cells: dict[int, str] = {}
        for cell in row.iter(f"{SHEET_NS}c"):
            column = _column_index(cell.get("r", ""))
            kind = cell.get("t")
            if kind == "inlineStr":
                text = "".join(t.text or "" for t in cell.iter(f"{SHEET_NS}t"))
            else:
                value = cell.find(f"{SHEET_NS}v")
                text = "" if value is None or value.text is None else value.text
                if kind == "s" and text:
                    text = shared[int(text)]
            cells[column] = text
        width = max(cells, default=-1) + 1
        rows.append([cells.get(i, "") for i in range(width)])
    return rows


def _column_index(reference: str) -> int:
    """``"C7"`` -> 2: the zero-based column of a cell reference."""
    letters = re.match(r"[A-Z]+", reference)
    if letters is None:
        raise ValueError(f"cell reference must start with column letters, got {reference!r}")
    index = 0
    for letter in letters.group(0):
        index = index * 26 + ord(letter) - ord("A") + 1
    return index - 1


def collect(release_dir: Path) -> list[tuple]:
    """Every answer of the release, as rows of :data:`COLUMNS`, sorted."""
    answers: dict[tuple, dict[str, str]] = {}
    files = sorted(release_dir.glob("*/*.xlsx"))
    if not files:
        raise ValueError(f"release_dir must hold <movie>/*.xlsx files, found none in {release_dir}")
    for path in files:
        match = FILE_PATTERN.match(path.name)
        if match is None:
            raise ValueError(f"unexpected file name in the release: {path.name}")
        header, *body = read_sheet(path)
        if header[0] != "Scene":
            raise ValueError(f"{path.name}: first column must be 'Scene', got {header[0]!r}")
        for row in body:
            scene = int(float(row[0]))
            for shot, answer in enumerate(row[1:], start=1):
                key = (path.parent.name, match["frame_type"], scene, shot, match["model"])
                answers.setdefault(key, {})[match["mode"]] = answer.strip()
    return [
        (*key, modes.get("image", ""), modes.get("caption", ""))
        for key, modes in sorted(answers.items())
    ]


def write_table(rows: list[tuple], out_dir: Path) -> Path:
    """Write ``answers.csv.gz`` (fixed gzip header: same rows, same bytes)."""
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(COLUMNS)
    writer.writerows(rows)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "answers.csv.gz"
    with (
        open(path, "wb") as raw,
        gzip.GzipFile(
            filename="answers.csv", mode="wb", fileobj=raw, mtime=0, compresslevel=9
        ) as zipped,
    ):
        zipped.write(text.getvalue().encode("utf-8"))
    return path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("release_dir", type=Path, help="the release's Replicate_Results folder")
    parser.add_argument("out_dir", type=Path, help="where answers.csv.gz is written")
    args = parser.parse_args(argv)
    rows = collect(args.release_dir)
    path = write_table(rows, args.out_dir)
    print(f"{len(rows)} rows written to {path}")


if __name__ == "__main__":
    main()
