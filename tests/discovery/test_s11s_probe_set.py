"""benchmarks/discovery_probe.py's ``--set`` gives a collection constant the comma-separated words it is given.

Issue 13, round 18. Before, ``--set _HOW_MUCH=many,much`` made ``frozenset("many,much")``: a set of
characters, which silently switched the feature off while the run looked like a measurement of the words.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import discovery_probe

from codemode_kernel.discovery import cooccurrence, search


def test_a_frozenset_constant_takes_comma_separated_words() -> None:
    module, name, value = discovery_probe.constant("_HOW_MUCH=many, much,,long")
    assert (module, name) == (search, "_HOW_MUCH")
    assert value == frozenset({"many", "much", "long"})


def test_an_empty_value_empties_a_collection_constant() -> None:
    assert discovery_probe.constant("_HOW_MUCH=")[2] == frozenset()


def test_numbers_and_switches_keep_their_type() -> None:
    assert discovery_probe.constant("WHO_PEOPLE=0")[2] is False
    module, name, value = discovery_probe.constant("cooccurrence.TOP=3")
    assert (module, name, value) == (cooccurrence, "TOP", 3)
    assert type(value) is type(cooccurrence.TOP)


def test_an_unknown_constant_is_refused() -> None:
    with pytest.raises(SystemExit):
        discovery_probe.constant("NO_SUCH_CONSTANT=1")
