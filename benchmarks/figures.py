"""What every benchmark reports: figures, each a median of repeats beside its anchor from the same run.

The shared command-line shape (``make bench`` relies on it): ``bench_<name>.py --json`` prints one
JSON object on stdout, ``{"benchmark": name, "figures": [...], ...}``, and its progress on stderr;
without ``--json`` it prints the same figures for people. ``--quick`` makes fewer repeats.

A figure shows its spread, not only its median (issue 12's reporting): on these 2-CPU VMs a
figure's draws are often bimodal (where the scheduler puts two processes that talk to each other;
the journaled calls/s of the same tree went 1,692-2,675/s and 1,915-3,934/s minutes apart) and the
anchors moved 2-3x between runs. So a figure carries

- the min-max of its samples and of its anchor's;
- ``paired``: sample *i* and anchor sample *i* were measured in the same round, one right after
  the other (the benchmark interleaves them: ours, the anchor, ours, ...). The ratio is then the
  median of the per-round ratios, with their min-max: a round's load hits both sides of its ratio
  alike, where a median of ours over a median of anchors taken minutes apart mixes two machine
  states. Unpaired figures keep median over median;
- ``modes``: when the sorted samples fall into two groups (see :func:`modes`), how many rounds were
  in the fast one and the median of each: a median of a bimodal figure says which mode won the
  majority, not how fast the code is.
"""

from __future__ import annotations

import itertools
import json
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, fields
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
    paired: bool = False          # samples[i] and anchor_samples[i] were measured in the same round
    loads: list[float] = field(default_factory=list)  # the 1-minute load at each round, if recorded

    def __post_init__(self) -> None:
        if self.paired and len(self.samples) != len(self.anchor_samples):
            raise ValueError(f"{self.name}: a paired figure needs one anchor sample per sample "
                             f"({len(self.samples)} samples, {len(self.anchor_samples)} anchor samples)")

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Figure:
        """The figure :meth:`to_json` wrote (what it derived is derived again; keys it did not write
        then, as in an older saved run, take their defaults)."""
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})

    @property
    def value(self) -> float:
        return statistics.median(self.samples)

    @property
    def anchor_value(self) -> float | None:
        return statistics.median(self.anchor_samples) if self.anchor_samples else None

    @property
    def spread(self) -> tuple[float, float]:
        """The least and the greatest sample."""
        return min(self.samples), max(self.samples)

    @property
    def anchor_spread(self) -> tuple[float, float] | None:
        return (min(self.anchor_samples), max(self.anchor_samples)) if self.anchor_samples else None

    def _cost(self, ours: float, anchor: float) -> float | None:
        if anchor == 0 or ours == 0:
            return None
        return ours / anchor if self.better == "lower" else anchor / ours

    @property
    def ratios(self) -> list[float] | None:
        """A paired figure's ratio in each round (``None`` when it is not paired)."""
        if not self.paired:
            return None
        costs = [self._cost(ours, anchor) for ours, anchor in zip(self.samples, self.anchor_samples, strict=True)]
        return [c for c in costs if c is not None] or None

    @property
    def ratio(self) -> float | None:
        """How many times the anchor's cost this figure is (above 1: slower than the anchor): the
        median of the rounds' ratios when paired, else the median over the anchor's median."""
        if self.paired:
            ratios = self.ratios
            return statistics.median(ratios) if ratios else None
        anchor = self.anchor_value
        return None if anchor is None else self._cost(self.value, anchor)

    @property
    def ratio_spread(self) -> tuple[float, float] | None:
        """The least and the greatest of a paired figure's per-round ratios."""
        ratios = self.ratios
        return (min(ratios), max(ratios)) if ratios else None

    @property
    def modes(self) -> Modes | None:
        return modes(self.samples, self.better)

    def to_json(self) -> dict[str, Any]:
        found = self.modes
        return {**asdict(self), "value": self.value, "anchor_value": self.anchor_value, "ratio": self.ratio,
                "spread": self.spread, "anchor_spread": self.anchor_spread, "ratios": self.ratios,
                "ratio_spread": self.ratio_spread, "modes": asdict(found) if found else None}

    def line(self) -> str:
        low, high = self.spread
        ours = f"{fmt(self.value, self.unit)} (median of {len(self.samples)}, {span(low, high, self.unit)})"
        anchor = ""
        if self.anchor_value is not None:
            anchor = f"   {self.anchor}: {fmt(self.anchor_value, self.unit)}"
            if self.ratio is not None:
                anchor += f" ({self.ratio:.2f}× its cost"
                if self.ratio_spread is not None:
                    anchor += f", rounds {self.ratio_spread[0]:.2f}–{self.ratio_spread[1]:.2f}×"
                anchor += ")"
        found = self.modes
        split = f"   {found.text(self.unit)}" if found else ""
        target = f"   target {self.target}" if self.target else ""
        return f"  {self.name}: {ours}{anchor}{split}{target}   load {self.load_text}"

    @property
    def load_text(self) -> str:
        """The load when the figure was taken, or the least and greatest of its rounds' ("2.3–6.1")."""
        return f"{min(self.loads):.1f}–{max(self.loads):.1f}" if self.loads else f"{self.load:.1f}"


# Two groups of samples are two modes when the widest step between neighbouring sorted samples is
# at least MODE_GAP (as a ratio) and wider than the spread inside either group: 1.4, 1.4, 1.5 | 2.0,
# 2.1 ms is two modes (a step of 1.33x, groups of 1.07x and 1.05x); 2,632 ... 5,746/s in steps of at
# most 1.21x is one wide mode. A lone sample beyond the step is a mode of one round.
MODE_GAP = 1.25
MODE_ROUNDS = 5


@dataclass(frozen=True)
class Modes:
    """Samples that fell into a fast and a slow group."""

    fast: int            # rounds in the fast group
    rounds: int
    fast_value: float    # the median of each group
    slow_value: float

    def text(self, unit: str) -> str:
        return (f"2 modes: {self.fast} of {self.rounds} fast (median {fmt(self.fast_value, unit)}), "
                f"{self.rounds - self.fast} slow ({fmt(self.slow_value, unit)})")


def modes(samples: Sequence[float], better: str = "lower") -> Modes | None:
    """The fast and slow groups of ``samples`` if they form two modes (see ``MODE_GAP``), else ``None``.
    Needs at least ``MODE_ROUNDS`` positive samples: of three, one is always furthest from the others."""
    values = sorted(samples)
    if len(values) < MODE_ROUNDS or values[0] <= 0:
        return None
    steps = [b / a for a, b in itertools.pairwise(values)]
    cut = max(range(len(steps)), key=steps.__getitem__)
    low, high = values[: cut + 1], values[cut + 1:]
    inside = max(low[-1] / low[0], high[-1] / high[0])
    if steps[cut] < MODE_GAP or steps[cut] <= inside:
        return None
    fast, slow = (low, high) if better == "lower" else (high, low)
    return Modes(len(fast), len(values), statistics.median(fast), statistics.median(slow))


def fmt(value: float, unit: str) -> str:
    if unit in ("/s", "calls/s", "passes/s"):
        return f"{value:,.0f} {unit}"
    if abs(value) >= 100:
        return f"{value:,.0f} {unit}"
    return f"{value:.3g} {unit}" if abs(value) < 10 else f"{value:.1f} {unit}"


def span(low: float, high: float, unit: str) -> str:
    """``low–high`` in the unit of the figure ("2,632–5,746 calls/s")."""
    return f"{fmt(low, unit).removesuffix(' ' + unit)}–{fmt(high, unit)}"


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
