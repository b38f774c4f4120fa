import json
import re
from pathlib import Path

import pytest

from icml25.lab import catalog

ROOT = Path(__file__).resolve().parents[1]
SLUGS = (
    "relu_threshold zigzag_layers gpt_causal apt_tabular rad_ai w2s_intrinsic ipd_pavlov omnibal "
    "stop_st steer_learners ucgs_avr maxmin_eig diffadvmap predator_rl disco creator_groups fhbi "
    "timebridge selective_iv defog lrnn_dynamics wow_flows creativity political_neutrality "
    "certified_robustness effort_aigi supercollapse autoadvexbench icl_denoising mlc_rcn skvqa "
    "hiref social_choice collabllm mdm_order embodiedbench rf_ensembles future_of_work"
).split()
POSITION = {"rad_ai", "certified_robustness", "future_of_work"}


def test_one_card_per_seed_paper_in_seed_order():
    assert [c.slug for c in catalog.cards()] == SLUGS


def test_cards_are_complete():
    for c in catalog.cards():
        assert c.title and c.area and c.seed_file in {"000", "003"}
        sentences = len(re.findall(r"[.!?](\s|$)", c.summary))
        assert 2 <= sentences <= 4, (c.slug, sentences)
        assert c.code == "" or re.fullmatch(r"[\w.-]+/[\w.-]+", c.code), c.code


def test_status_is_derived_from_the_code():
    for c in catalog.cards():
        has_reproduction = (ROOT / "src" / "icml25" / c.slug / "reproduce.py").is_file()
        if c.slug in POSITION:
            assert c.status == catalog.POSITION_PAPER
        else:
            assert c.status == (catalog.IMPLEMENTED if has_reproduction else catalog.PLANNED)
    assert "ipd_pavlov" in catalog.implemented()


def test_unknown_slug_names_the_paper():
    with pytest.raises(ValueError, match="nope"):
        catalog.card("nope")


def test_each_implemented_card_names_a_public_entry_point_of_its_package():
    import importlib

    for c in catalog.cards():
        if c.status != catalog.IMPLEMENTED:
            assert c.entry == "" and c.import_line == "", c.slug
            continue
        package = importlib.import_module(f"icml25.{c.slug}")
        assert c.entry in package.__all__, (c.slug, c.entry)
        assert callable(getattr(package, c.entry)), (c.slug, c.entry)


def test_every_implemented_paper_has_a_readme():
    for slug in catalog.implemented():
        assert catalog.card(slug).readme(), slug


def test_cards_name_the_paper_its_authors_venue_and_link():
    for c in catalog.cards():
        assert c.venue.startswith("ICML 2025"), c.slug
        assert c.link == "" or re.fullmatch(
            r"https://(arxiv\.org/abs/\d{4}\.\d{4,5}|openreview\.net/forum\?id=[\w-]+"
            r"|proceedings\.mlr\.press/\S+)",
            c.link,
        ), c.link
        if c.status == catalog.IMPLEMENTED:  # or the card says what was searched, and where
            assert (c.paper_title and c.authors and c.link) or c.citation_note, c.slug
        assert not (c.citation_note and c.paper_title and c.authors and c.link), c.slug


def test_every_committed_result_comes_from_the_code_as_it_is():
    # a committed default summary records the fingerprints of the code that produced it: the
    # map side (cells) and the reduce side (summary.py): after any edit, rerun it
    # (`icml25 run SLUG --compare`; a summary-only edit reduces cached cells again) and commit
    # the new summary
    from icml25.lab.reproduction import code_fingerprint, summary_fingerprint

    results = Path(__file__).parents[1] / "src" / "icml25" / "results"
    summaries = sorted(results.glob("*/default/seed-0*/summary.json"))  # offline and model runs
    assert summaries
    stale = {}
    for path in summaries:
        slug, provenance = path.parts[-4], json.loads(path.read_text())["provenance"]
        if provenance["code_fingerprint"] != code_fingerprint(slug):
            stale[slug] = "cells"
        elif provenance.get("summary_fingerprint") != summary_fingerprint(slug):
            stale[slug] = "summary"
    assert not stale, f"committed summaries older than their code: {stale}"
