"""Review 14x: names a cell assigns but cannot carry over vanish without a word.

README: "names a completed cell assigns (serializable values only) carry over into later cells".
What is not carried is dropped silently, and the later cell gets the NameError of a name never
defined ("name 'double' is not defined. Globals available: ..."). The most common notebook habit,
a helper function defined in one cell and used in the next, fails that way; so does a set, an
``import json as j2`` alias, and a string of 2,000,000 characters (over the 1,000,000-character
limit of a stored value, under the 10,000,000 of ``max_result_chars``). ``%vars`` lists none of
them. Neither the assigning cell nor the failing one says that the name was assigned and not
carried, or why.
"""

from __future__ import annotations

from tests.kernel.kernel_harness import Kernel


def test_a_function_from_an_earlier_cell_is_explained(shared_kernel: Kernel) -> None:
    shared_kernel.ok("def r14x_double(x):\n    return 2 * x\nr14x_double(2)")
    run = shared_kernel.execute("r14x_double(3)")
    assert run.status == "error" and run.error is not None
    message = run.error["evalue"]
    assert "carried" in message or "earlier cell" in message, message


def test_the_cell_that_assigns_an_uncarriable_value_says_so(shared_kernel: Kernel) -> None:
    run = shared_kernel.ok('r14x_big = "x" * 2_000_000\nlen(r14x_big)')
    said = run.stdout + run.stderr + "".join(str(c["data"].get("text/plain", "")) for c in run.of("display_data"))
    assert "r14x_big" in said, said


def test_a_set_is_carried_or_the_person_is_told(shared_kernel: Kernel) -> None:
    run = shared_kernel.ok("r14x_seen = {1, 2}")
    later = shared_kernel.execute("len(r14x_seen)")
    if later.status == "ok":
        return
    said = run.stdout + run.stderr + (later.error["evalue"] if later.error else "")
    assert "r14x_seen" in said and ("carried" in said or "earlier cell" in said), said
