"""codec.encode of a connector's result, two trees in one process, alternating (issue 12, s11c).

Run: .venv/bin/python benchmarks/s11c_codec.py OLD_TREE NEW_TREE [--rounds 15]

Loads ``codemode_kernel/codec.py`` from each tree as its own module and times ``encode`` of the same
values in alternation (CPU time of this process, ``time.process_time``), so the machine's load hits
both alike. Values: rows of a few fields with a float and a list (``s11c_calls.record``) of ~200,
~2,000 and ~20,000 characters of JSON, and an API-like record (nested objects of strings, integers,
booleans and nulls, ~3,000 characters). Prints the median µs per encode and in how many rounds the
new tree was faster.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from s11c_calls import record


def load(tree: str, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, Path(tree) / "codemode_kernel" / "codec.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def api_record() -> dict[str, Any]:
    user = {"login": "octocat", "id": 1, "node_id": "MDQ6VXNlcjE=", "type": "User", "site_admin": False,
            "url": "https://api.github.com/users/octocat", "name": None}
    return {"id": 1296269, "name": "Hello-World", "full_name": "octocat/Hello-World", "owner": user,
            "private": False, "description": "This your first repo!", "fork": False, "topics": ["a", "b", "c"],
            "license": {"key": "mit", "name": "MIT License", "spdx_id": "MIT", "url": None},
            "pulls": [{"number": n, "state": "open", "title": f"Fix #{n}", "user": user, "draft": n % 2 == 0,
                       "labels": [{"id": n, "name": "bug", "default": True}]} for n in range(8)]}


def cpu_per_call(codec: ModuleType, value: Any, n: int) -> float:
    start = time.process_time()
    for _ in range(n):
        codec.encode(value, "the result of x.y")
    return (time.process_time() - start) / n * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--rounds", type=int, default=15)
    args = ap.parse_args()
    old, new = load(args.old, "old_codec"), load(args.new, "new_codec")
    values = {"rows ~200": record(200), "rows ~2,000": record(2000), "rows ~20,000": record(20000),
              "API record ~3,000": api_record()}
    for label, value in values.items():
        assert old.encode(value, "w") == new.encode(value, "w")
        n = max(20, 200_000 // len(repr(value)))
        before, after, wins = [], [], 0
        for _ in range(args.rounds):
            a, b = cpu_per_call(old, value, n), cpu_per_call(new, value, n)
            before.append(a)
            after.append(b)
            wins += b < a
        print(f"{label:20} {statistics.median(before):8.1f} -> {statistics.median(after):8.1f} µs "
              f"(new faster in {wins} of {args.rounds}; load {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
