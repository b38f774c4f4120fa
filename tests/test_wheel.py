"""The built wheel carries what the package reads at run time besides its code: the report's
templates, the catalog's cards, each paper's README and committed figures, and the committed
results (``results/<slug>/<scale>/seed-<N>/summary.json``).

The wheel is built offline from a copy of the project (so that setuptools' ``build/`` and
``*.egg-info`` never land in the source tree, and two test runs never share them), with this
environment's setuptools: ``pip wheel --no-deps --no-build-isolation --no-index``.
"""

import importlib.util
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from icml25.lab import catalog

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "icml25"
SKIP = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build", "dist")


def _can_build_wheels() -> bool:
    """setuptools >= 70.1 has bdist_wheel built in; older ones need the ``wheel`` package."""
    return any(
        importlib.util.find_spec(name) is not None
        for name in ("setuptools.command.bdist_wheel", "wheel")
    )


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> set[str]:
    """The names of the files in a wheel built from a copy of this source tree."""
    if importlib.util.find_spec("setuptools") is None or not _can_build_wheels():
        pytest.skip("this environment's setuptools cannot build a wheel offline")
    project = tmp_path_factory.mktemp("project")
    for path in ROOT.iterdir():  # pyproject.toml, README.md, constraints.txt, ...
        if path.is_file():
            shutil.copy2(path, project / path.name)
    shutil.copytree(ROOT / "src", project / "src", ignore=SKIP)
    dist = tmp_path_factory.mktemp("dist")
    command = [
        sys.executable,
        *("-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index"),
        *("--disable-pip-version-check", "-q", "-w", str(dist), str(project)),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    (built,) = dist.glob("icml25-*.whl")
    with zipfile.ZipFile(built) as archive:
        return set(archive.namelist())


def _in_wheel(path: Path) -> str:
    return path.relative_to(ROOT / "src").as_posix()


def _expected(pattern: str) -> list[str]:
    return sorted(_in_wheel(p) for p in PACKAGE.glob(pattern) if p.is_file())


def test_wheel_has_the_report_templates_and_the_cards(wheel):
    templates = _expected("lab/templates/*.html")
    assert {"icml25/lab/templates/base.html", "icml25/lab/templates/index.html"} <= set(templates)
    assert "icml25/lab/templates/paper.html" in templates
    assert set(templates) <= wheel
    assert "icml25/lab/cards.toml" in wheel


def test_wheel_has_each_paper_readme_and_committed_figures(wheel):
    implemented = catalog.implemented()
    assert implemented
    for slug in implemented:
        assert f"icml25/{slug}/README.md" in wheel, slug
        assert f"icml25/{slug}/reproduce.py" in wheel, slug
    figures = _expected("*/figures/*.png")
    assert figures  # the READMEs' figures are committed beside them
    missing = sorted(set(figures) - wheel)
    assert not missing, f"not in the wheel: {missing}"


def test_wheel_has_the_shipped_model_weights(wheel):
    weights = _expected("*/weights/*.npz")
    assert "icml25/apt_tabular/weights/apt_default.npz" in weights
    missing = sorted(set(weights) - wheel)
    assert not missing, f"not in the wheel: {missing}"


def test_wheel_has_every_committed_result(wheel):
    """Each ``results/*/*/*/summary.json`` of the source tree; none is also fine (the folder
    may be empty), but then no stray result may be in the wheel either."""
    results = _expected("results/*/*/*/summary.json")
    missing = sorted(set(results) - wheel)
    assert not missing, f"not in the wheel: {missing}"
    shipped = {name for name in wheel if name.startswith("icml25/results/")}
    assert {n for n in shipped if n.endswith("summary.json")} == set(results)


def test_wheel_has_the_data_the_papers_ship(wheel):
    """Data files read at run time (disco's released answers, with their licence)."""
    data = _expected("*/data/*")
    assert "icml25/disco/data/answers.csv.gz" in data
    missing = sorted(set(data) - wheel)
    assert not missing, f"not in the wheel: {missing}"
