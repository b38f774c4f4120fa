"""Each implemented paper's README opens with a "Use it" block: its method called on arrays made
in the block, which runs as written, offline, in a few seconds."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from icml25.lab import catalog

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 15

_DRIVER = """
import json, sys, time, traceback
blocks = json.load(sys.stdin)
out = {}
for slug, code in blocks.items():
    begin = time.perf_counter()
    try:
        exec(compile(code, f"<{slug} README: Use it>", "exec"), {"__name__": "__main__"})
        out[slug] = [None, time.perf_counter() - begin]
    except BaseException:
        out[slug] = [traceback.format_exc(limit=4), time.perf_counter() - begin]
print("RESULTS " + json.dumps(out))
"""


def use_it_block(slug: str) -> str | None:
    """The first python block under the README's "## Use it" heading, or None."""
    text = catalog.card(slug).readme() or ""
    match = re.search(r"^## Use it\n(?:(?!^## ).)*?```python\n(.*?)```", text, re.S | re.M)
    return match.group(1) if match else None


def test_each_paper_readme_opens_with_a_use_it_block_that_imports_its_entry_point():
    problems = {}
    for slug in catalog.implemented():
        card, block = catalog.card(slug), use_it_block(slug)
        headings = re.findall(r"^## (.+)$", card.readme(), re.M)
        if block is None or not headings or headings[0] != "Use it":
            problems[slug] = "no '## Use it' section with a python block as its first section"
        elif card.import_line not in block:
            problems[slug] = f"the block does not say `{card.import_line}`"
        elif len(block.strip().splitlines()) > MAX_LINES:
            problems[slug] = f"the block has more than {MAX_LINES} lines"
    assert not problems, problems


def test_the_use_it_blocks_run_as_written():
    blocks = {slug: use_it_block(slug) for slug in catalog.implemented()}
    blocks = {slug: code for slug, code in blocks.items() if code}
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, "-c", _DRIVER],
        input=json.dumps(blocks),
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
        env=env,
    )
    line = next(x for x in done.stdout.splitlines()[::-1] if x.startswith("RESULTS "))
    results = json.loads(line.removeprefix("RESULTS "))
    failed = {slug: error for slug, (error, _) in results.items() if error}
    assert not failed, "\n".join(f"{slug}:\n{error}" for slug, error in failed.items())
