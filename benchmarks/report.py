"""`make bench`: run every benchmark, write docs/benchmarks.md and its plot docs/benchmarks.png.

Run: .venv/bin/python benchmarks/report.py [--quick] [--only executor,runtime] [--out docs/benchmarks.md]

Every ``benchmarks/bench_*.py`` that takes ``--json`` (see ``figures.py``) runs in turn, in
its own process; a benchmark that fails or does not speak that shape is listed with the
reason instead of its figures. Each figure is a median of repeats beside its anchor measured
in the same run, with the min-max of both; a figure measured in rounds with its anchor
(``paired``, figures.py) has as its ratio the median of the rounds' ratios, with their min-max,
and a figure whose repeats fell into two groups says how many were fast (``modes``). The 1-minute
load average is recorded with every figure: on a shared machine a figure taken above one
runnable process per core is marked *busy*.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
HERE = ROOT / "benchmarks"
sys.path.insert(0, str(HERE))

from figures import Figure, span  # noqa: E402


def machine() -> dict[str, str]:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor() or "?") if Path("/proc/cpuinfo").exists() \
        else platform.processor()
    memory = next((line.split(":", 1)[1].strip() for line in Path("/proc/meminfo").read_text().splitlines()
                   if line.startswith("MemTotal")), "?") if Path("/proc/meminfo").exists() else "?"
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    return {
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": commit.stdout.strip() or "?",
        "cpu": f"{cpu}, {os.cpu_count()} logical CPUs",
        "memory": memory,
        "os": f"{platform.system()} {platform.release()} ({platform.machine()})",
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "sqlite": sqlite3.sqlite_version,
    }


def run(script: Path, quick: bool) -> dict[str, Any]:
    takes_quick = '"--quick"' in script.read_text(encoding="utf-8")  # not every benchmark has a quick mode
    command = [sys.executable, str(script), "--json", *(["--quick"] if quick and takes_quick else [])]
    started = time.monotonic()
    load = os.getloadavg()[0]
    print(f"== {script.name} (load {load:.2f})", file=sys.stderr, flush=True)
    try:
        proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=3600)
    except subprocess.TimeoutExpired:
        return {"benchmark": script.stem.removeprefix("bench_"), "error": "timed out after an hour"}
    elapsed = time.monotonic() - started
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"benchmark": script.stem.removeprefix("bench_"), "error": f"exit {proc.returncode}: {tail[:300]}"}
    data: dict[str, Any] = json.loads(lines[-1])
    data.update(seconds=elapsed, load_before=load, load_after=os.getloadavg()[0])
    return data


def fmt(value: float | None, unit: str) -> str:
    if value is None:
        return ""
    if unit in ("calls/s", "passes/s", "/s") or abs(value) >= 100:
        return f"{value:,.0f} {unit}"
    return f"{value:.3g} {unit}" if abs(value) < 10 else f"{value:.1f} {unit}"


def cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def rounds_text(figure: Figure) -> str:
    """How the repeats were taken, and their two modes if they fell into two groups."""
    text = f"{len(figure.samples)}" + (", each with its anchor" if figure.paired else "")
    found = figure.modes
    return text + (f"; {found.text(figure.unit)}" if found else "")


def figures_table(result: dict[str, Any], busy_above: float) -> list[str]:
    out = []
    group = None
    for data in result["figures"]:
        f = Figure.from_json(data)
        if f.group != group:
            group = f.group
            out += ["", f"**{group}**", "",
                    "| figure | ours (median) | ours (min–max) | anchor, same run | anchor (median) | anchor (min–max) "
                    "| × the anchor's cost | × per round (min–max) | repeats | target | load |",
                    "|---|---|---|---|---|---|---|---|---|---|---|"]
        ratio = f"{f.ratio:.2f}×" if f.ratio is not None else ""
        rounds = f"{f.ratio_spread[0]:.2f}–{f.ratio_spread[1]:.2f}×" if f.ratio_spread is not None else ""
        anchor_spread = span(*f.anchor_spread, f.unit) if f.anchor_spread is not None else ""
        load = f.load_text + (" busy" if max([f.load, *f.loads]) > busy_above else "")
        name = f.name + (f" ({f.note})" if f.note else "")
        out.append(f"| {cell(name)} | {fmt(f.value, f.unit)} | {span(*f.spread, f.unit)} | {cell(f.anchor or '')} | "
                   f"{fmt(f.anchor_value, f.unit)} | {anchor_spread} | {ratio} | {rounds} | {cell(rounds_text(f))} | "
                   f"{cell(f.target or '')} | {load} |")
    return out


def other_table(result: dict[str, Any]) -> list[str]:
    """A benchmark with its own JSON shape: rankers as a table (discovery), anything else as JSON."""
    rankers = result.get("rankers")
    if isinstance(rankers, list) and all(isinstance(r, dict) for r in rankers):
        out = ["", f"{result.get('methods', '?')} methods, {result.get('intents', '?')} intents "
               f"({result.get('paraphrases', '?')} paraphrases); its own figures, not repeats beside an anchor.",
               "", "| ranker | top-1 | top-5 | MRR | paraphrase top-5 | holdout top-5 | p50 | p95 "
               "| top-5, connector= given |",
               "|---|---|---|---|---|---|---|---|---|"]
        fresh_rankers = [{**r, "ranker": f"{r.get('ranker', '?')}, {extra.get('label', f'{name} set')} "
                                          f"({extra.get('intents', '?')} intents)"}
                         for name in ("fresh", "blind", "validation") for extra in [result.get(name) or {}]
                         for r in extra.get("rankers") or []]
        for r in [*rankers, *fresh_rankers]:
            def share(split: str, key: str, r: dict[str, Any] = r) -> str:
                value = (r.get(split) or {}).get(key)
                return f"{value:.0%}" if isinstance(value, int | float) else ""
            out.append(f"| {cell(r.get('ranker', '?'))} | {share('overall', 'top1')} | {share('overall', 'top5')} | "
                       f"{(r.get('overall') or {}).get('mrr', 0):.2f} | {share('paraphrase', 'top5')} | "
                       f"{share('holdout', 'top5')} | {r.get('p50_ms', 0):.2f} ms | {r.get('p95_ms', 0):.2f} ms | "
                       f"{share('connector_given', 'top5')} |")
        return out
    summary = {k: v for k, v in result.items() if k not in ("seconds", "load_before", "load_after")}
    text = json.dumps(summary, ensure_ascii=False)
    return ["", "```", text[:1500] + ("…" if len(text) > 1500 else ""), "```"]


def plot(results: list[dict[str, Any]], path: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is missing (pip install -e '.[bench]'): no plot", file=sys.stderr)
        return False
    rows = [(f"{r['benchmark']}: {f.name}", f.ratio, f.ratio_spread or (f.ratio, f.ratio))
            for r in results for f in map(Figure.from_json, r.get("figures", [])) if f.ratio is not None]
    if not rows:
        return False
    rows.reverse()
    fig, ax = plt.subplots(figsize=(11, 0.32 * len(rows) + 1.4))
    ratios = [ratio for _, ratio, _ in rows]
    ax.barh(range(len(rows)), ratios,  # by position: rows of the same name ("the same: ...") stay apart
            xerr=[[ratio - low for _, ratio, (low, _) in rows], [high - ratio for _, ratio, (_, high) in rows]],
            error_kw={"linewidth": 0.8, "capsize": 2},
            color=["#3b7dd8" if ratio <= 3 else "#d8893b" for ratio in ratios])
    ax.set_yticks(range(len(rows)), [label[:95] for label, _, _ in rows])
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.set_xscale("log")
    ax.axvline(1, color="black", linewidth=0.8)
    ax.set_xlabel("× the anchor's cost, measured in the same run (log scale; 1 = as fast as the anchor)")
    ax.set_title("codemode-kernel: each figure against its anchor (median; whiskers: min–max of the rounds)",
                 fontsize=10)
    ax.tick_params(axis="y", labelsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer repeats (a check of the pipeline)")
    parser.add_argument("--only", default="", help="comma-separated benchmark names (executor,runtime,...)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "benchmarks.md")
    parser.add_argument("--render", type=Path, help="write the page from a saved results file instead of running")
    args = parser.parse_args()
    only = {name.strip() for name in args.only.split(",") if name.strip()}
    scripts = [p for p in sorted(HERE.glob("bench_*.py")) if not only or p.stem.removeprefix("bench_") in only]
    busy_above = float(os.cpu_count() or 1)
    if args.render:
        saved = json.loads(args.render.read_text())
        facts, results, quick = saved["machine"], saved["results"], bool(saved.get("quick"))
    else:
        facts, quick = machine(), args.quick
        results = [run(script, quick) for script in scripts]
        # The numbers behind the page, to render it again or compare runs.
        args.out.with_suffix(".json").write_text(json.dumps({"machine": facts, "quick": quick,
                                                             "results": results}, indent=1) + "\n")
    image = args.out.with_suffix(".png")
    plotted = plot(results, image)
    lines = ["# Benchmarks", "",
             "Written by `make bench` (`benchmarks/report.py`): every `benchmarks/bench_*.py`, each figure the",
             "median of repeats beside its anchor measured in the same run (raw SQLite, plain `exec`, the stock",
             "IPython kernel, smolagents' `LocalPythonExecutor` from a throwaway venv, a raw pipe, plain httpx).",
             "\"× the anchor's cost\" is ours divided by the anchor for times, the anchor divided by ours for",
             "rates: above 1 means slower than the anchor. Where a figure was measured in rounds, each round ours",
             "and then its anchor (*repeats* says \"each with its anchor\"), it is the median of the rounds'",
             "ratios and *× per round* their min–max: these VMs draw bimodally (where the scheduler puts two",
             "processes that talk) and the anchors move 2–3× between runs, so only a round's own anchor judges",
             "it. *min–max* is the spread of the repeats; *2 modes* says how many fell in the fast group when",
             "5 or more split in two (a gap of 25% or more between sorted neighbours, wider than either group).",
             "*load* is the 1-minute load average when the figure (or each of its rounds, least–greatest)",
             f"was taken; above {busy_above:g} (one runnable process per core) it is marked *busy*: other work",
             "shared the machine and the figure is noisier and slower than on a quiet one.", "",
             "| machine | |", "|---|---|", *[f"| {k} | {cell(v)} |" for k, v in facts.items()],
             f"| mode | {'quick (fewer repeats)' if quick else 'full'} |", ""]
    if plotted:
        lines += [f"![each figure against its anchor]({image.name})", ""]
    for result in results:
        name = result.get("benchmark", "?")
        lines += [f"## {name}", ""]
        if "error" in result:
            lines.append(f"Not measured: {cell(result['error'])}")
        else:
            lines.append(f"Took {result['seconds']:.0f} s; load {result['load_before']:.1f} before, "
                         f"{result['load_after']:.1f} after.")
            lines += figures_table(result, busy_above) if "figures" in result else other_table(result)
        lines.append("")
    args.out.write_text("\n".join(lines))
    print(f"wrote {args.out}" + (f" and {image}" if plotted else ""), file=sys.stderr)


if __name__ == "__main__":
    main()
