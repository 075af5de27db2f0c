"""Review 15x: completion where a notebook user leans on it most.

- Inside a connector call, ``notes.add_note(te<Tab>`` offers nothing; every method takes keyword
  arguments only (README: "connector methods take keyword arguments"), and the kernel knows
  them (``notes.add_note?`` shows them). IPython completes ``text=`` there.
- ``x['al<Tab>`` (a carried dict ``{'alpha': 1}``) offers ``all`` - the builtin, inside a string
  subscript, where inserting it would produce ``x['all``. IPython offers the key (``alpha``);
  offering nothing would at least not mislead.
- ``datetime.da<Tab>`` offers ``datetime_CAPI`` (a C capsule) beside ``date`` and ``datetime``.
"""

from __future__ import annotations

from tests.kernel.kernel_harness import Kernel


def matches(kernel: Kernel, code: str) -> list[str]:
    return list(kernel.shell_reply(kernel.kc.complete(code, len(code)))["content"]["matches"])


def test_a_connector_calls_arguments_complete(shared_kernel: Kernel) -> None:
    assert any(m.startswith("text") for m in matches(shared_kernel, "notes.add_note(te"))


def test_a_string_subscript_does_not_complete_builtins(shared_kernel: Kernel) -> None:
    shared_kernel.ok("r15x_x = {'alpha': 1}")
    found = matches(shared_kernel, "r15x_x['al")
    assert "all" not in found, found
