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


class Coalescing:
    """A :class:`Sink` that merges streamed text into few messages for the sink it wraps.

    Text is held until ``max_chars`` are waiting, ``delay`` seconds after the first of them
    (a timer from ``call_later``, the kernel's event loop), before anything else is shown
    (a display, a result, an error: their order stays), or :meth:`flush`. Issue 16, item 1:
    a cell whose pass prints between thousands of fast (replayed) calls reaches the kernel as
    thousands of small batches; one IOPub message each ran into the Jupyter server's rate
    limit (1,000 messages a second), which then dropped messages, the cell's error among them.
    With 100 ms a cell sends at most ten stream messages a second, and a person watching
    live output sees no difference (ipykernel flushes its own stdout every 200 ms).
    """

    def __init__(self, inner: Sink, call_later: Callable[[float, Callable[[], None]], Any] | None,
                 *, max_chars: int = 65_536, delay: float = 0.1) -> None:
        self.inner = inner
        self.call_later = call_later
        self.max_chars = max_chars
        self.delay = delay
        self.name: str | None = None
        self.parts: list[str] = []
        self.chars = 0
        self.timer: Any = None

    def stream(self, text: str, name: str = "stdout") -> None:
        if not text:
            return
        if name != self.name:
            self.flush()
            self.name = name
        self.parts.append(text)
        self.chars += len(text)
        if self.chars >= self.max_chars or self.call_later is None:
            self.flush()
        elif self.timer is None:
            self.timer = self.call_later(self.delay, self._due)

    def _due(self) -> None:
        self.timer = None
        self.flush()

    def flush(self) -> None:
        """Pass on the waiting text now."""
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if self.parts and self.name is not None:
            text = "".join(self.parts)
            self.parts.clear()
            self.chars = 0
            self.inner.stream(text, self.name)

    def display(self, bundle: Bundle, *, result: bool = False) -> None:
        self.flush()
        self.inner.display(bundle, result=result)

    def error(self, ename: str, evalue: str, traceback: list[str]) -> None:
        self.flush()
        self.inner.error(ename, evalue, traceback)


class ReplayFilter:
    """Passes on only what a replayed pass prints *beyond* what was already shown.

    Approval re-runs the code from the top, so it prints again what the first pass printed.
    The cell already shows that text; this filter drops the replayed prefix and forwards
    from the start of the first line that differs (a changed print is shown, never hidden,
    and shown as a whole line: ``[… 9,000 more characters …]`` after ``[… 5,000 …]`` is not
    shown as ``9,000 more characters …]``). ``printed`` collects the whole output of this
    pass: the prefix for the next replay.

    Output cut at the executor's bound (``max_kept_output_chars``) is cut at the same
    character in every pass, so a replay's kept text and cut note match what was shown.
    """

    def __init__(self, shown: str, write: Callable[[str], None]) -> None:
        self.shown = shown
        self.write = write
        self.position: int | None = 0 if shown else None
        self.parts: list[str] = []

    def __call__(self, text: str) -> None:
        self.parts.append(text)
        if self.position is not None:
            start = self.position
            same = _common_prefix(self.shown, start, text)
            if same == len(text):
                self.position += same
                return
            self.position = None
            # The differing line from its start; its beginning may have come in earlier parts.
            line_start = self.shown.rfind("\n", 0, start + same) + 1
            text = "".join(self.parts)[line_start:]
        self.write(text)

    @property
    def printed(self) -> str:
        return "".join(self.parts)


def _common_prefix(shown: str, start: int, text: str) -> int:
    """How many characters of ``text`` equal ``shown`` from ``start``."""
    limit = min(len(shown) - start, len(text))
    if shown.startswith(text[:limit], start):
        return limit
    low, high = 0, limit  # text[:low] matches, text[:high] does not
    while high - low > 1:
        middle = (low + high) // 2
        if shown.startswith(text[:middle], start):
            low = middle
        else:
            high = middle
    return low
