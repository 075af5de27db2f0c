"""Fixtures of the panel comm tests: a real runtime behind a small PanelHost, fake comms.

The comm is the network edge (in the product it is a websocket to the browser), so it is
the one thing faked here; the runtime, its SQLite journal and its executor are real.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from codemode_kernel import CodemodeRuntime, Snippet
from codemode_kernel.kernel.output import RecordingSink
from codemode_kernel.kernel.panel import PanelChannel
from codemode_kernel.kernel.session import NotebookSession
from tests.conftest import RuntimeFactory
from tests.support import LEDGER_TWO_ADDS, Ledger, Shop


class FakeComm:
    """Records what the kernel sends; delivers what the browser would send."""

    def __init__(self, comm_id: str = "comm-1") -> None:
        self.comm_id = comm_id
        self.sent: list[dict[str, Any]] = []
        self.closed = False
        self._on_msg: Callable[[dict[str, Any]], None] | None = None
        self._on_close: Callable[[dict[str, Any]], None] | None = None

    def send(self, data: Any = None, metadata: Any = None, buffers: Any = None) -> None:
        if self.closed:
            raise RuntimeError("comm is closed")
        # What ipykernel would put on the wire: it must be JSON.
        self.sent.append(json.loads(json.dumps(data, allow_nan=False)))

    def on_msg(self, callback: Callable[[dict[str, Any]], None]) -> None:
        self._on_msg = callback

    def on_close(self, callback: Callable[[dict[str, Any]], None]) -> None:
        self._on_close = callback

    def deliver(self, data: Any) -> None:
        assert self._on_msg is not None, "the channel did not subscribe to the comm"
        self._on_msg({"content": {"comm_id": self.comm_id, "data": data}})

    def close_from_browser(self) -> None:
        self.closed = True
        assert self._on_close is not None
        self._on_close({"content": {"comm_id": self.comm_id, "data": {}}})

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.sent if m.get("type") == kind]


class FakeCommManager:
    """The part of ipykernel's CommManager the channel uses."""

    def __init__(self) -> None:
        self.targets: dict[str, Callable[[Any, dict[str, Any]], None]] = {}

    def register_target(self, target_name: str, f: Callable[[Any, dict[str, Any]], None]) -> None:
        self.targets[target_name] = f

    def open(self, target_name: str, comm: FakeComm) -> FakeComm:
        self.targets[target_name](comm, {"content": {"comm_id": comm.comm_id, "target_name": target_name,
                                                     "data": {}}})
        return comm


@dataclass
class Host:
    """A PanelHost over a real runtime that counts what the panel asked of it."""

    rt: CodemodeRuntime
    calls: list[tuple[str, str]] = field(default_factory=list)
    threads: list[int] = field(default_factory=list)
    broken: bool = False

    @property
    def runtime(self) -> CodemodeRuntime:
        if self.broken:
            raise RuntimeError("codemode.toml: [connectors.x] has no 'python', 'mcp' or 'openapi' key")
        return self.rt

    def _note(self, what: str, execution_id: str) -> None:
        self.calls.append((what, execution_id))
        self.threads.append(threading.get_ident())

    async def approve(self, execution_id: str, seq: int | None = None) -> dict[str, Any]:
        self._note("approve", execution_id)
        return await self.rt.approve(execution_id, seq=seq)

    async def reject(self, execution_id: str, seq: int | None) -> bool:
        self._note("reject", execution_id)
        return await self.rt.reject(execution_id, seq)

    async def rollback(self, execution_id: str) -> None:
        self._note("rollback", execution_id)
        await self.rt.rollback(execution_id)

    async def save_snippet(self, name: str, execution_id: str, description: str) -> Snippet:
        self._note("save_snippet", execution_id)
        return await self.rt.save_snippet(name, execution_id=execution_id, description=description)


class Panel:
    """One browser panel connected to the channel, with a request helper."""

    def __init__(self, channel: PanelChannel, comm: FakeComm) -> None:
        self.channel = channel
        self.comm = comm
        self._next = 0

    async def send(self, data: Any) -> None:
        self.comm.deliver(data)
        await self.channel.drain()

    async def ask(self, request_type: str, **params: Any) -> dict[str, Any]:
        """Send a request and return the kernel's answer to it (a reply or an error)."""
        self._next += 1
        rid = f"t{self._next}"
        await self.send({"type": request_type, "request_id": rid, **params})
        answers = [m for m in self.comm.sent if m.get("request_id") == rid]
        assert len(answers) == 1, f"expected one answer to {rid}, got {answers}"
        return answers[0]

    async def data(self, request_type: str, **params: Any) -> Any:
        answer = await self.ask(request_type, **params)
        assert answer["type"] == "reply", answer
        return answer["data"]


@dataclass
class Setup:
    shop: Shop
    host: Host
    manager: FakeCommManager
    channel: PanelChannel
    panel: Panel

    def open_panel(self, comm_id: str) -> Panel:
        return Panel(self.channel, self.manager.open(PanelChannel.target_name, FakeComm(comm_id)))


@pytest.fixture
async def setup(make_runtime: RuntimeFactory) -> AsyncIterator[Setup]:
    shop = Shop()
    host = Host(make_runtime([shop]))
    manager = FakeCommManager()
    channel = PanelChannel(host)
    channel.register(manager)
    panel = Panel(channel, manager.open(PanelChannel.target_name, FakeComm()))
    yield Setup(shop, host, manager, channel, panel)
    await channel.drain()
    await asyncio.sleep(0)


@dataclass
class Lab:
    """A notebook session with the Ledger connector, its panel channel and fake comms (the approval specs)."""

    ledger: Ledger
    session: NotebookSession
    channel: PanelChannel
    manager: FakeCommManager

    def panel(self, comm_id: str) -> Panel:
        return Panel(self.channel, self.manager.open(PanelChannel.target_name, FakeComm(comm_id)))

    async def paused(self) -> str:
        outcome = await self.session.run_code(LEDGER_TWO_ADDS, RecordingSink(), 1)
        return str(outcome.execution_id)

    async def state(self, eid: str) -> tuple[str, int, list[tuple[int, str]]]:
        state = await self.session.runtime.execution(eid)
        assert state is not None
        return state.status, state.passes, [(e.seq, e.state) for e in state.log]


@pytest.fixture
async def lab(tmp_path: Path) -> AsyncIterator[Lab]:
    (tmp_path / "codemode.toml").write_text('[executor]\nkind = "inprocess"\n')
    ledger = Ledger()
    session = NotebookSession(cwd=tmp_path, env={"JPY_SESSION_NAME": str(tmp_path / "p.ipynb")})
    session.load()
    session.connect(ledger.connector())
    session.home_loop = asyncio.get_running_loop()
    channel = PanelChannel(session)
    manager = FakeCommManager()
    channel.register(manager)
    yield Lab(ledger, session, channel, manager)
    await channel.drain()
    await session.aclose()
