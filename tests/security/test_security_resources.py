"""Escape class 10: compiler and resource attacks land in the worker; the host stays responsive.

Through ``runtime.execute`` on the isolated executor with tight limits. While each attack
runs, the test keeps using the same runtime (listing executions) and times it; afterwards
the attack's execution is ``error`` with a message naming the limit, and the next one works.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from codemode_kernel import CodemodeRuntime
from codemode_kernel.executor.isolated import Limits, SubprocessExecutor
from tests.security.security_support import SECRET_ENV, HostSecrets, Vault

pytestmark = pytest.mark.anyio

LIMITS = Limits(timeout=2, max_memory_bytes=256 << 20, max_output_chars=20_000, max_calls=50,
                max_result_chars=100_000)

# id -> (code, words the error message must contain)
ATTACKS: dict[str, tuple[str, tuple[str, ...]]] = {
    "infinite-loop": ("while True:\n    pass", ("Limits.timeout=2",)),
    "sleep-forever": ("time.sleep(3600)", ("Limits.timeout=2",)),
    "huge-power": ("10 ** 10 ** 10", ()),
    "long-c-call": ("7 ** 50_000_000", ()),
    "memory-bomb": ("x = bytes(1 << 30)", ("max_memory_bytes",)),
    "list-bomb": ("x = [0] * (1 << 30)", ("max_memory_bytes",)),
    "string-doubling": ("s = 'x'\nwhile True:\n    s = s + s", ("memory",)),
    "print-flood": ("while True:\n    print('spam' * 100)", ("max_output_chars",)),
    "one-huge-print": ("print('y' * 10_000_000)", ("max_output_chars",)),
    "connector-loop": ("while True:\n    vault.status()", ("max_calls",)),
    "huge-result": ("'z' * 1_000_000", ("max_result_chars",)),
    "deep-recursion": ("def f(n):\n    return f(n + 1)\nf(0)", ("recursion",)),
    "compiler-bomb-parens": ("(" * 100_000 + ")" * 100_000, ()),
    "compiler-bomb-expression": ("x = 1" + " + 1" * 200_000, ("too deeply nested or too large",)),
    "compiler-bomb-lambdas": ("f = " + "lambda: " * 3000 + "1", ("too deeply nested or too large",)),
    "compiler-bomb-attributes": ("x = vault" + ".a" * 100_000, ("too deeply nested or too large",)),
    "compiler-bomb-lists": ("x = " + "[" * 50_000 + "]" * 50_000, ()),
    "regex-backtracking": ("re.match('(a+)+$', 'a' * 64 + 'b')", ("Limits.timeout=2",)),
}


@pytest.fixture
async def runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[tuple[CodemodeRuntime,
                                                                                           HostSecrets]]:
    host = HostSecrets.create(tmp_path / "host")
    monkeypatch.setenv(SECRET_ENV, host.secret)
    rt = CodemodeRuntime([Vault(host.secret)], store=f"sqlite:///{tmp_path / 'journal.db'}",
                         executor=SubprocessExecutor(LIMITS))
    yield rt, host
    await rt.aclose()


async def _while_running(rt: CodemodeRuntime, code: str) -> tuple[dict[str, Any], float]:
    """Run ``code``; meanwhile use the runtime every 50 ms, and return the longest time between two of
    its answers (seconds), the pauses between uses and a last use after the pass included: a loop
    held while a pause runs shows there too, not only one held during a use."""
    task = asyncio.ensure_future(rt.execute(code))
    longest = 0.0
    last = time.monotonic()
    while True:
        ended = task.done()
        await rt.executions(limit=5)
        now = time.monotonic()
        longest, last = max(longest, now - last), now
        if ended:
            return await task, longest
        await asyncio.sleep(0.05)


@pytest.mark.parametrize("attack", list(ATTACKS))
async def test_attack_fails_its_pass_only(runtime: tuple[CodemodeRuntime, HostSecrets], attack: str) -> None:
    """The pass ends as error naming the limit; the runtime answered throughout; the next pass works."""
    rt, host = runtime
    code, words = ATTACKS[attack]
    out, longest = await _while_running(rt, code)
    assert out["status"] == "error", out
    for word in words:
        assert word in out["error"], out["error"]
    # A host that did the attack's work, or waited for the worker, on its loop would leave the
    # runtime unanswered until the pass's wall-clock limit (or for ever); a free loop answers
    # every 50 ms and a use or two later. Each use was bound to 0.5 s, which a loaded machine
    # outlasts (0.60 s seen at load 10, compiler-bomb-parens, whose work is all in the worker).
    assert longest < LIMITS.timeout, (longest, LIMITS.timeout)
    host.assert_untouched(out)
    follow_up = await rt.execute("vault.status()['ok']")
    assert follow_up["status"] == "completed" and follow_up["result"] is True
