"""s15k (review 15x M15): a NameError for a name that a cell which did not complete assigns says so,
per how it ended (failed, paused, rejected), until a completed cell carries or reports the name."""

from __future__ import annotations

from codemode_kernel import codec
from codemode_kernel.kernel.variables import CarriedVariables

BARE = "name 'z' is not defined. Globals available: codemode, notes"


def test_each_ending_is_said_with_its_execution() -> None:
    carried = CarriedVariables()
    for status, words in (("error", "a cell that failed"), ("paused", "%approve E1"),
                          ("rejected", "call was rejected")):
        carried.did_not_complete("E1", status, "z = 5\nnotes.add_note(text='x')")
        said = carried.explain("NameError", BARE)
        assert words in said and "E1" in said and said.endswith(". Globals available: codemode, notes"), said


def test_a_completed_cell_that_carries_the_name_ends_the_note() -> None:
    carried = CarriedVariables()
    carried.did_not_complete("E1", "paused", "z = 5\n_hidden = 1")
    assert carried.explain("NameError", "name '_hidden' is not defined") == "name '_hidden' is not defined"
    carried.carry({"variables": {"z": codec.encode(5)}}, {}, "z = 5")
    assert carried["z"] == 5 and "E1" not in carried.explain("NameError", BARE)
    carried.did_not_complete("E2", "error", "y = 1")
    carried.carry({"variables": {}}, {}, "def y():\n    pass")  # completed, could not carry: that reason wins
    assert "a function" in carried.explain("NameError", "name 'y' is not defined")
