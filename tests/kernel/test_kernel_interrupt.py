"""Interrupt and time limits: the pass is stopped (its worker killed), the kernel stays usable."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest

from tests.kernel.kernel_harness import Kernel, write_notebook_dir


@pytest.fixture(scope="module")
def limited_kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kernel]:
    folder = write_notebook_dir(tmp_path_factory.mktemp("limits") / "nb", executor="timeout = 3")
    kernel = Kernel(folder)
    yield kernel
    kernel.shutdown()


def test_interrupt_stops_the_running_pass_and_the_kernel_stays_usable(limited_kernel: Kernel) -> None:
    kernel = limited_kernel
    msg_id = kernel.kc.execute("print('looping')\nwhile True:\n    pass\n")
    deadline = time.monotonic() + 20
    while True:  # wait until the pass is really running (its first output arrived)
        msg = kernel.kc.get_iopub_msg(timeout=max(0.1, deadline - time.monotonic()))
        if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "stream":
            break
    kernel.km.interrupt_kernel()
    reply = kernel.shell_reply(msg_id, timeout=20)
    assert reply["content"]["status"] == "error"
    # "Interrupted", not "Timeout": the interrupt stopped the pass, not its 3 s time limit (no clock needed).
    assert reply["content"]["ename"] == "Interrupted"
    assert kernel.ok("6 * 7").result == {"text/plain": "42"}
    journal = kernel.ok("%executions 3").of("display_data")[0]["data"]["text/plain"]
    assert re.search(r"\w{26}\s+error\s", journal), "the interrupted execution is recorded as error"


def test_a_pass_over_its_time_limit_fails_with_timeout(limited_kernel: Kernel) -> None:
    run = limited_kernel.execute("while True:\n    pass\n", timeout=30)
    assert run.status == "error" and run.error is not None
    assert run.error["ename"] == "Timeout"
    assert limited_kernel.ok("'alive'").result == {"text/plain": "'alive'"}


def test_an_interrupt_when_idle_is_harmless(limited_kernel: Kernel) -> None:
    """An interrupt while no cell runs leaves the next cell alone. The spec waits for the kernel's
    interrupt_reply before it sends that cell: the kernel has then handed the interrupt to its loop,
    ahead of the cell (a fixed wait for it instead raced a control thread slow to run)."""
    kernel = limited_kernel
    request = kernel.kc.session.msg("interrupt_request", {})  # what km.interrupt_kernel() sends (message mode)
    kernel.kc.control_channel.send(request)
    deadline = time.monotonic() + 20
    while True:
        reply = kernel.kc.get_control_msg(timeout=max(0.1, deadline - time.monotonic()))
        if reply["parent_header"].get("msg_id") == request["header"]["msg_id"]:
            break
    assert reply["msg_type"] == "interrupt_reply" and reply["content"]["status"] == "ok"
    assert kernel.ok("1").result == {"text/plain": "1"}


def test_interrupt_stops_a_host_cell_with_keyboard_interrupt(limited_kernel: Kernel) -> None:
    kernel = limited_kernel
    msg_id = kernel.kc.execute("%%host\nimport time\nprint('sleeping', flush=True)\ntime.sleep(30)\n")
    deadline = time.monotonic() + 20
    while True:
        msg = kernel.kc.get_iopub_msg(timeout=max(0.1, deadline - time.monotonic()))
        if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "stream":
            break
    kernel.km.interrupt_kernel()
    reply = kernel.shell_reply(msg_id, timeout=20)  # the cell sleeps 30 s: a reply within 20 s is the interrupt's
    assert reply["content"]["status"] == "error" and reply["content"]["ename"] == "KeyboardInterrupt"
    assert kernel.ok("'after'").result == {"text/plain": "'after'"}
