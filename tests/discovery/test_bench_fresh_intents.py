"""The fresh intent set of the discovery benchmark is well formed and names the seeded sample (issue 13).

The first specs read only the JSON file. The last ones need the six API descriptions that
``benchmarks/bench_discovery.py`` fetches once into ``.bench-cache/discovery/`` (``make bench``
or a first run of the benchmark); without them they are skipped with that reason.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
FRESH = BENCHMARKS / "discovery_intents_fresh.json"
CONNECTORS = ("github", "gmail", "kubernetes", "slack", "stripe", "twilio")


def fresh() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(FRESH.read_text(encoding="utf-8"))
    return data


def test_the_file_has_the_shape_of_the_tuning_set() -> None:
    """Its keys are 'about' and 'intents'; each intent is a request and a non-empty list of connector.method paths."""
    data = fresh()
    assert set(data) == {"about", "intents"}
    assert "never" in data["about"].lower()
    for intent in data["intents"]:
        assert set(intent) == {"q", "expect"}
        assert isinstance(intent["q"], str) and intent["q"].strip() == intent["q"] and intent["q"]
        assert intent["expect"] and len(set(intent["expect"])) == len(intent["expect"])
        for path in intent["expect"]:
            connector, _, method = path.partition(".")
            assert connector in CONNECTORS and method


def test_one_request_per_sampled_method_sixteen_per_connector() -> None:
    """Each intent's first expected method is its sampled method: all distinct, 16 in each of the six connectors."""
    intents = fresh()["intents"]
    firsts = [i["expect"][0] for i in intents]
    assert len(set(firsts)) == len(firsts) == 96
    assert len({i["q"] for i in intents}) == len(intents)
    per_connector = Counter(path.split(".")[0] for path in firsts)
    assert per_connector == dict.fromkeys(CONNECTORS, 16)
    for intent in intents:  # an equal answer is from the same service as the sampled method
        assert {p.split(".")[0] for p in intent["expect"]} == {intent["expect"][0].split(".")[0]}


@pytest.fixture(scope="module")
def bench() -> Any:
    cache = Path(__file__).resolve().parents[2] / ".bench-cache" / "discovery"
    if not all((cache / f"{name}.json").is_file() for name in CONNECTORS):
        pytest.skip("the six API descriptions are not in .bench-cache/discovery/: "
                    "run benchmarks/bench_discovery.py once")
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import bench_discovery
        import discovery_fresh_sample
    finally:
        sys.path.remove(str(BENCHMARKS))
    return bench_discovery, discovery_fresh_sample


def loaded(bench: Any) -> tuple[list[dict[str, Any]], list[str]]:
    bench_discovery, sampler = bench
    from codemode_kernel import CodemodeRuntime, InProcessExecutor

    async def run() -> tuple[list[dict[str, Any]], list[str]]:
        paths = bench_discovery.fetch(lambda _line: None)
        connectors = bench_discovery.load_connectors(paths)
        async with CodemodeRuntime(connectors, store="sqlite://", executor=InProcessExecutor()) as rt:
            catalog = await rt.catalog()
            intents = bench_discovery.load_intents(catalog, bench_discovery.FRESH_INTENTS)
            chosen, _skipped = sampler.sample(catalog.all_methods(), sampler.deprecated_operations(paths))
        return intents, [m.path for m in chosen]

    return asyncio.run(run())


def test_every_expected_method_exists_and_the_sample_is_the_seeded_one(bench: Any) -> None:
    """The benchmark loads every intent (it exits on a method the catalog lacks); the sampled methods are the seed's."""
    intents, sample = loaded(bench)
    assert sorted(i["expect"][0] for i in intents) == sorted(sample)
    assert sum(i["paraphrase"] for i in intents) >= len(intents) / 2
