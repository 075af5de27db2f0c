"""The fusions, request cleaning and WordNet reader of ``benchmarks/discovery_semantic.py`` do what its figures say.

Issue 13: the semantic signal is measured, not shipped, so these specs guard the measurement: each
fusion is checked on a hand-made catalog of five methods whose lexical and model rankings disagree.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy")
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import discovery_semantic as ds  # noqa: E402

KEYS = ["s.a", "s.b", "s.c", "s.d", "s.e"]
POSITION = {k: i for i, k in enumerate(KEYS)}


def case(lexical: list[tuple[str, float]], sims: list[float], expect: str = "s.a") -> Any:
    intent = {"q": "q", "expect": [expect], "paraphrase": False, "holdout": False, "connector": "s"}
    return ds.Case(intent, lexical, np.array(sims, dtype=np.float32), KEYS, POSITION)


# The lexical ranker says a > b > c > d; the model says e, then d, c, b, a.
LEXICAL = [("s.a", 10.0), ("s.b", 9.0), ("s.c", 5.0), ("s.d", 1.0)]
SIMS = [0.1, 0.2, 0.3, 0.8, 0.9]


@pytest.fixture(autouse=True)
def small_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ds, "POOL", 4)  # the pool is 100 in a run; these catalogs have five methods


def test_the_model_alone_ranks_by_similarity() -> None:
    """The model's order is its similarity, best first, whatever the lexical ranker said."""
    assert ds.semantic_only(case(LEXICAL, SIMS), {}) == ["s.e", "s.d", "s.c", "s.b"]


def test_rrf_with_no_weight_is_the_lexical_order_and_a_heavy_weight_the_models() -> None:
    """Weighted reciprocal rank fusion moves from one ranking to the other with its weight."""
    c = case(LEXICAL, SIMS)
    assert ds.rrf(c, {"k": 10, "w": 0.0})[:4] == ["s.a", "s.b", "s.c", "s.d"]
    assert ds.rrf(c, {"k": 10, "w": 100.0})[:2] == ["s.e", "s.d"]


def test_the_rerank_reorders_only_the_lexical_top_k() -> None:
    """Re-ranking the top 2 may swap a and b, never lifts c, d or e above them, and keeps the rest in lexical order."""
    c = case(LEXICAL, SIMS)
    assert ds.rerank(c, {"K": 2, "a": 0.0}) == ["s.a", "s.b", "s.c", "s.d"]
    assert ds.rerank(c, {"K": 2, "a": 0.9}) == ["s.b", "s.a", "s.c", "s.d"]


def test_the_rerank_falls_back_to_the_model_when_the_lexical_ranker_found_nothing() -> None:
    """A request no method's words match is still answered, by the model."""
    assert ds.rerank(case([], SIMS), {"K": 10, "a": 0.3})[:2] == ["s.e", "s.d"]


def test_the_blend_adds_the_models_evidence_to_the_lexical_score() -> None:
    """With no weight the blend is the lexical order (methods only the model found last); with weight, a
    method the lexical ranker put third can win."""
    c = case(LEXICAL, [0.0, 0.0, 1.0, 0.0, 0.0])
    assert ds.blend(c, {"a": 0.0})[:4] == ["s.a", "s.b", "s.c", "s.d"]
    assert ds.blend(c, {"a": 1.0})[0] == "s.c"


def test_the_gated_blend_leaves_a_sure_lexical_ranking_alone() -> None:
    """When the lexical first leads its second by more than the margin the order is the lexical one; when
    the two are close the model decides between them."""
    sure = case([("s.a", 10.0), ("s.b", 5.0)], [0.0, 1.0, 0.0, 0.0, 0.0])
    assert ds.gated(sure, {"m": 0.2, "a": 1.0})[:2] == ["s.a", "s.b"]
    unsure = case([("s.a", 10.0), ("s.b", 9.5)], [0.0, 1.0, 0.0, 0.0, 0.0])
    assert ds.gated(unsure, {"m": 0.2, "a": 1.0})[:2] == ["s.b", "s.a"]


def test_the_blend_below_the_first_never_moves_the_lexical_first() -> None:
    """However strongly the model prefers another method, the lexical first stays first and the model
    orders the rest."""
    c = case(LEXICAL, [0.0, 0.0, 0.0, 0.0, 1.0])
    assert ds.blend(c, {"a": 5.0})[0] == "s.e"
    assert ds.keep_first(c, {"a": 5.0})[:2] == ["s.a", "s.e"]
    assert ds.keep_first(case([], SIMS), {"a": 0.5})[:2] == ["s.e", "s.d"]


def test_parameters_are_chosen_by_top5_then_mrr_on_the_cases_given() -> None:
    """choose() ranks the grid on the cases it is given: here only a weight that lets the model lift a's
    rank puts the expected method first."""
    c = case([("s.b", 10.0), ("s.a", 9.9)], [1.0, 0.0, 0.0, 0.0, 0.0], expect="s.a")
    tried = ds.choose(ds.blend, {"a": (0.0, 0.5)}, [c])
    assert tried[0][0] == {"a": 0.5} and tried[0][1]["top1"] == 1.0
    assert tried[1][0] == {"a": 0.0} and tried[1][1]["top1"] == 0.0


@pytest.mark.parametrize(("request_text", "cleaned"), [
    ("what's the newest published version of cli/cli?", "what's the newest published version of"),
    ("what card brand is pm_123?", "what card brand is"),
    ('send "hello there" to the team', "send to the team"),
    ("where is digest sha256:9f2c stored", "where is digest stored"),
    ("list my repositories", "list my repositories"),
    ("pm_123", "pm_123"),  # nothing but a value: left as it is rather than emptied
])
def test_clean_query_cuts_literal_values_from_a_request(request_text: str, cleaned: str) -> None:
    """IDs, paths, quoted text and digests are cut; a request that is only a value is kept whole."""
    assert ds.clean_query(request_text) == cleaned


def write_wordnet(folder: Path) -> None:
    """A two-sense verb "remove" and a noun "branch", in WordNet's index and data file formats."""
    licence = "  1 This is a licence line, as the real files start with.\n"
    (folder / "index.verb").write_text(licence + "remove v 2 1 @ 2 1 00000001 00000002  \n", encoding="utf-8")
    (folder / "data.verb").write_text(
        licence
        + "00000001 29 v 02 remove 0 take_away 0 001 @ 00000003 v 0000 | to take something away\n"
        + "00000002 29 v 02 remove 0 withdraw 0 000 | to withdraw\n"
        + "00000003 29 v 01 displace 0 000 | to move\n", encoding="utf-8")
    (folder / "index.noun").write_text(licence + "branch n 1 0 1 0 00000010  \n", encoding="utf-8")
    (folder / "data.noun").write_text(licence + "00000010 05 n 02 branch 0 limb 0 000 | a part\n", encoding="utf-8")


def test_the_thesaurus_reads_synonyms_of_the_first_senses(tmp_path: Path) -> None:
    """Single-word lemmas of the word's first synsets, from its inflected form too; multi-word lemmas left out."""
    write_wordnet(tmp_path)
    assert ds.Thesaurus(tmp_path, senses=2).related("removing") == ["withdraw"]
    assert ds.Thesaurus(tmp_path, senses=1).related("removes") == []
    assert ds.Thesaurus(tmp_path, senses=1, hypernyms=True).related("remove") == ["displace"]
    assert ds.Thesaurus(tmp_path, senses=2).expand("remove branches") == "remove branches withdraw limb"
