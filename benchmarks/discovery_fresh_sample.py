"""How the methods behind the discovery benchmark's dev, blind and validation intent sets were chosen (issue 13).

Run: .venv/bin/python benchmarks/discovery_fresh_sample.py [--blind | --validation] [--json]

The fresh intent set measures ``codemode.search`` on requests nobody tuned the ranker on. Its
methods are a seeded random sample, stratified by connector: the six catalogs are loaded the
way ``bench_discovery.py`` loads them, each connector's methods are sorted by path and
shuffled with ``random.Random(f"{SEED}:{connector}")``, and the first ``PER_CONNECTOR`` of
them that are not skipped are taken. The same seed always gives the same sample, so anyone
can check that the methods were not picked by hand.

Skipped, in the order tested:

* *deprecated*: the operation says so (``deprecated: true`` in the API description, or the
  word in its summary or description: Kubernetes' ``watch`` endpoints, GitHub's old
  endpoints). Nobody should be sent to them, so no request should expect them.
* *indistinguishable*: ``INDISTINGUISHABLE`` below, a method no wording could tell apart
  from a sibling (each with the reason). Written while reading the sample, before any
  ranker ran on the set.

The *blind* sample (``--blind``, behind ``discovery_intents_blind.json``) is drawn the same
way with its own seed, ``BLIND_SEED``, after the first set became a dev set that the ranker
is tuned on. It also skips every method the first sample took (*in the first fresh sample*),
so the two sets measure different methods; its indistinguishable methods are
``BLIND_INDISTINGUISHABLE``. The first sample is unchanged: same seed, same output.

The *validation* sample (``--validation``, behind ``discovery_intents_validation.json``) is the
third, drawn after two ranking rounds had overfit the dev set: its own seed,
``VALIDATION_SEED``, the same 16 per connector, stratification and skips, and it skips every
method the first or the blind sample took (*in an earlier sample*); its indistinguishable
methods are ``VALIDATION_INDISTINGUISHABLE``. Tuners may measure its aggregates, never read its
intents. The first two samples are unchanged.

The script prints each sampled method with what the writer read (path, HTTP line, summary,
description, required parameters) and, with ``--json``, the sample as a list of paths.
It never ranks anything.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_discovery import fetch, load_connectors, summary_of

from codemode_kernel import CodemodeRuntime, InProcessExecutor
from codemode_kernel.catalog import Method

SEED = "issue-13-fresh-2026-11-30"
BLIND_SEED = "issue-13-blind-2026-11-30"
VALIDATION_SEED = "issue-13-validation-2026-12-01"
PER_CONNECTOR = 16
_VERBS = ("get", "put", "post", "delete", "patch", "head", "options")
_HTTP = re.compile(r"^HTTP: ([A-Z]+) (\S+)", re.MULTILINE)

# path -> why no request could single it out (filled in while the sample was read).
INDISTINGUISHABLE: dict[str, str] = {}
# The same for the blind sample (filled in while that sample was read, before any ranker ran on it).
BLIND_INDISTINGUISHABLE: dict[str, str] = {}
IN_FIRST_SAMPLE = "in the first fresh sample"
# The same for the validation sample (filled in while that sample was read, before any ranker ran on it).
VALIDATION_INDISTINGUISHABLE: dict[str, str] = {}
IN_EARLIER_SAMPLE = "in an earlier sample (the first fresh or the blind one)"


def deprecated_operations(paths: dict[str, Path]) -> set[tuple[str, str, str]]:
    """(connector, HTTP verb, path) of every operation its API description calls deprecated."""
    out = set()
    for connector, file in paths.items():
        document = json.loads(file.read_text(encoding="utf-8"))
        for route, item in document.get("paths", {}).items():
            for verb, op in item.items():
                if verb not in _VERBS or not isinstance(op, dict):
                    continue
                words = f"{op.get('summary', '')} {op.get('description', '')}".lower()
                if op.get("deprecated") is True or "deprecated" in words:
                    out.add((connector, verb.upper(), route))
    return out


def http_of(method: Method) -> tuple[str, str]:
    found = _HTTP.search(method.tool.description)
    return (found.group(1), found.group(2)) if found else ("", "")


def sample(methods: Sequence[Method], deprecated: set[tuple[str, str, str]], seed: str = SEED,
           indistinguishable: dict[str, str] | None = None,
           exclude: frozenset[str] = frozenset(),
           excluded_because: str = IN_FIRST_SAMPLE) -> tuple[list[Method], dict[str, str]]:
    """The sampled methods, connector by connector, and the skipped ones with the reason.

    By default the first fresh sample; ``blind_sample`` passes the blind seed and excludes it,
    ``validation_sample`` its own seed and excludes both (recorded as ``excluded_because``).
    """
    hopeless = INDISTINGUISHABLE if indistinguishable is None else indistinguishable
    chosen: list[Method] = []
    skipped: dict[str, str] = {}
    for connector in sorted({m.connector for m in methods}):
        pool = sorted((m for m in methods if m.connector == connector), key=lambda m: m.path)
        random.Random(f"{seed}:{connector}").shuffle(pool)
        taken = 0
        for m in pool:
            if taken == PER_CONNECTOR:
                break
            if (connector, *http_of(m)) in deprecated:
                skipped[m.path] = "deprecated"
            elif m.path in exclude:
                skipped[m.path] = excluded_because
            elif m.path in hopeless:
                skipped[m.path] = hopeless[m.path]
            else:
                chosen.append(m)
                taken += 1
    return chosen, skipped


def blind_sample(methods: Sequence[Method],
                 deprecated: set[tuple[str, str, str]]) -> tuple[list[Method], dict[str, str]]:
    """The second (blind) sample: its own seed, none of the methods the first sample took."""
    first, _skipped = sample(methods, deprecated)
    return sample(methods, deprecated, BLIND_SEED, BLIND_INDISTINGUISHABLE, frozenset(m.path for m in first))


def validation_sample(methods: Sequence[Method],
                      deprecated: set[tuple[str, str, str]]) -> tuple[list[Method], dict[str, str]]:
    """The third (validation) sample: its own seed, none of the methods the first or the blind sample took."""
    first, _skipped = sample(methods, deprecated)
    blind, _skipped = blind_sample(methods, deprecated)
    taken = frozenset(m.path for m in first) | frozenset(m.path for m in blind)
    return sample(methods, deprecated, VALIDATION_SEED, VALIDATION_INDISTINGUISHABLE, taken, IN_EARLIER_SAMPLE)


def show(m: Method) -> str:
    verb, route = http_of(m)
    props = m.tool.input_schema.get("properties") or {}
    required = m.tool.input_schema.get("required") or []
    body = " ".join(m.tool.description.split())
    return (f"{m.path}\n  {verb} {route}\n  summary: {summary_of(m.tool.description)}\n"
            f"  required: {', '.join(required) or '-'}; parameters: {', '.join(props)[:300]}\n"
            f"  description: {body[:700]}\n")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="print the sample as a JSON list of paths")
    parser.add_argument("--blind", action="store_true",
                        help="the second (blind) sample: seed BLIND_SEED, without the first sample's methods")
    parser.add_argument("--validation", action="store_true",
                        help="the third (validation) sample: seed VALIDATION_SEED, without the first two samples' "
                             "methods")
    args = parser.parse_args()
    if args.blind and args.validation:
        parser.error("--blind and --validation draw different samples: give one of them")
    paths = fetch(lambda s: print(s, file=sys.stderr))
    async with CodemodeRuntime(load_connectors(paths), store="sqlite://", executor=InProcessExecutor()) as rt:
        methods = (await rt.catalog()).all_methods()
    draw = validation_sample if args.validation else blind_sample if args.blind else sample
    seed = VALIDATION_SEED if args.validation else BLIND_SEED if args.blind else SEED
    chosen, skipped = draw(methods, deprecated_operations(paths))
    if args.json:
        result: dict[str, Any] = {"seed": seed, "per_connector": PER_CONNECTOR,
                                  "sample": [m.path for m in chosen], "skipped": skipped}
        print(json.dumps(result, indent=1))
        return
    for m in chosen:
        print(show(m))
    print(f"{len(chosen)} sampled (seed {seed!r}, {PER_CONNECTOR} per connector); {len(skipped)} skipped:")
    for path, why in skipped.items():
        print(f"  {path}: {why}")


if __name__ == "__main__":
    asyncio.run(main())
