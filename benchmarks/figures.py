"""What every benchmark reports: figures, each a median of repeats beside its anchor from the same run.

The shared command-line shape (``make bench`` relies on it): ``bench_<name>.py --json`` prints one
JSON object on stdout, ``{"benchmark": name, "figures": [...], ...}``, and its progress on stderr;
without ``--json`` it prints the same figures for people. ``--quick`` makes fewer repeats.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Figure:
    """One measured figure: the median over ``samples`` (each a repeat), and what it is compared with."""

    group: str
    name: str
    unit: str                     # "ms", "µs", "/s", "MiB", "calls/s"
    samples: list[float]
    better: str = "lower"         # or "higher"
    anchor: str | None = None     # what the same run measured to compare with
    anchor_samples: list[float] = field(default_factory=list)
    target: str | None = None     # the target, as text ("≤ 2 ms")
    note: str = ""
    load: float = field(default_factory=lambda: os.getloadavg()[0])  # 1-minute load when it was taken

    @property
    def value(self) -> float:
        return statistics.median(self.samples)

    @property
    def anchor_value(self) -> float | None:
        return statistics.median(self.anchor_samples) if self.anchor_samples else None

    @property
    def ratio(self) -> float | None:
        """How many times the anchor's cost this figure is (above 1: slower than the anchor)."""
        anchor = self.anchor_value
        if anchor is None or anchor == 0 or self.value == 0:
            return None
        return self.value / anchor if self.better == "lower" else anchor / self.value

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "value": self.value, "anchor_value": self.anchor_value, "ratio": self.ratio}

    def line(self) -> str:
        anchor = ""
        if self.anchor_value is not None:
            anchor = f"   {self.anchor}: {fmt(self.anchor_value, self.unit)}"
            if self.ratio is not None:
                anchor += f" ({self.ratio:.2f}× its cost)"
        target = f"   target {self.target}" if self.target else ""
        return f"  {self.name}: {fmt(self.value, self.unit)} (median of {len(self.samples)}){anchor}{target}"


def fmt(value: float, unit: str) -> str:
    if unit in ("/s", "calls/s", "passes/s"):
        return f"{value:,.0f} {unit}"
    if abs(value) >= 100:
        return f"{value:,.0f} {unit}"
    return f"{value:.3g} {unit}" if abs(value) < 10 else f"{value:.1f} {unit}"


def median_of(fn: Callable[[], float], repeats: int) -> list[float]:
    """``fn()`` ``repeats`` times (each call returns one sample, itself usually a median)."""
    return [fn() for _ in range(repeats)]


def plain_exec_ms(code: str, n: int = 2000) -> float:
    """Median ms to compile and exec ``code`` in this process (no sandbox, no process)."""
    samples = []
    for _ in range(n):
        t = time.perf_counter()
        exec(compile(code, "<plain>", "exec"), {})
        samples.append(time.perf_counter() - t)
    return statistics.median(samples) * 1e3


def progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def emit(benchmark: str, figures: Sequence[Figure], as_json: bool, **extra: Any) -> None:
    """Print the figures: one JSON object (``--json``) or lines for people."""
    if as_json:
        print(json.dumps({"benchmark": benchmark, "figures": [f.to_json() for f in figures], **extra}))
        return
    group = None
    for figure in figures:
        if figure.group != group:
            group = figure.group
            print(f"\n{group}")
        print(figure.line())
        if figure.note:
            print(f"    ({figure.note})")
