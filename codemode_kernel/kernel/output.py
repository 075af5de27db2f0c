"""Where a cell's output goes: the :class:`Sink` interface and small sinks.

A pass's output can land in the cell that ran it (IOPub messages), in an approval card
(an ipywidgets ``Output``), in the cell of a ``%approve`` magic, or in several at once.
The session writes to a :class:`Sink` and does not care which; what the kernel replies
for the cell is a :class:`CellOutcome`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from codemode_kernel.kernel.display import Bundle


@dataclass(frozen=True)
class CellOutcome:
    """What the kernel replies for a cell: ``ok`` or a Jupyter error (its output went to a :class:`Sink`)."""

    status: Literal["ok", "error"] = "ok"
    ename: str = ""
    evalue: str = ""
    traceback: list[str] = field(default_factory=list)
    execution_id: str | None = None
    payload: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def failed(cls, ename: str, evalue: str, traceback: list[str] | None = None,
               execution_id: str | None = None) -> CellOutcome:
        return cls("error", ename, evalue, traceback or [f"{ename}: {evalue}"], execution_id)


class Sink(Protocol):
    """A destination for output: streamed text, displays, results and errors."""

    def stream(self, text: str, name: str = "stdout") -> None: ...

    def display(self, bundle: Bundle, *, result: bool = False) -> None:
        """Show a MIME bundle; ``result`` marks the cell's result (``execute_result``)."""
        ...

    def error(self, ename: str, evalue: str, traceback: list[str]) -> None: ...


class NullSink:
    """Output nobody sees (silent executions)."""

    def stream(self, text: str, name: str = "stdout") -> None:
        pass

    def display(self, bundle: Bundle, *, result: bool = False) -> None:
        pass

    def error(self, ename: str, evalue: str, traceback: list[str]) -> None:
        pass


@dataclass
class RecordingSink:
    """Keeps everything in lists; used by tests and to build text answers."""

    outputs: list[tuple[str, Any]] = field(default_factory=list)

    def stream(self, text: str, name: str = "stdout") -> None:
        self.outputs.append((name, text))

    def display(self, bundle: Bundle, *, result: bool = False) -> None:
        self.outputs.append(("result" if result else "display", bundle))

    def error(self, ename: str, evalue: str, traceback: list[str]) -> None:
        self.outputs.append(("error", (ename, evalue, traceback)))

    def text(self) -> str:
        return "".join(v for k, v in self.outputs if k in ("stdout", "stderr"))


class Tee:
    """Writes to every sink it holds."""

    def __init__(self, sinks: Sequence[Sink]) -> None:
        self.sinks = list(sinks)

    def stream(self, text: str, name: str = "stdout") -> None:
        for s in self.sinks:
            s.stream(text, name)

    def display(self, bundle: Bundle, *, result: bool = False) -> None:
        for s in self.sinks:
            s.display(bundle, result=result)

    def error(self, ename: str, evalue: str, traceback: list[str]) -> None:
        for s in self.sinks:
            s.error(ename, evalue, traceback)


class ReplayFilter:
    """Passes on only what a replayed pass prints *beyond* what was already shown.

    Approval re-runs the code from the top, so it prints again what the first pass printed.
    The cell already shows that text; this filter drops the replayed prefix and forwards
    from the first character that differs (a changed print is shown, never hidden).
    ``printed`` collects the whole output of this pass: the prefix for the next replay.
    """

    def __init__(self, shown: str, write: Callable[[str], None]) -> None:
        self.shown = shown
        self.write = write
        self.position: int | None = 0 if shown else None
        self.parts: list[str] = []

    def __call__(self, text: str) -> None:
        self.parts.append(text)
        if self.position is not None:
            rest = self.shown[self.position:]
            same = 0
            limit = min(len(rest), len(text))
            while same < limit and rest[same] == text[same]:
                same += 1
            if same == len(text):
                self.position += same
                return
            self.position = None
            text = text[same:]
        self.write(text)

    @property
    def printed(self) -> str:
        return "".join(self.parts)
