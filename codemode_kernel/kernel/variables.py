"""Names carried from cell to cell: what a completed cell assigned, given to the cells after it.

A pass runs in a fresh worker, so nothing survives between cells by itself. The runtime
returns the serializable top-level names a completed pass assigned (``capture_variables``)
and records the names a pass was given as that execution's inputs, so a replay sees the
same values. ``%vars`` lists the carried names and ``%reset`` forgets them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, MutableMapping
from typing import Any

from codemode_kernel import codec
from codemode_kernel.runtime import input_name_problem


class CarriedVariables(MutableMapping[str, Any]):
    """The names later cells see, as plain values."""

    def __init__(self) -> None:
        self._values: dict[str, Any] = {}

    def given(self) -> dict[str, Any]:
        """A copy for the next pass: the names it starts with (and its recorded inputs)."""
        return dict(self._values)

    def carry(self, out: Mapping[str, Any], given: Mapping[str, Any]) -> None:
        """Take the names a completed pass assigned (``out["variables"]``, codec-encoded).

        Only names the cell *changed* are taken: a cell approved long after it paused must not
        put back the old values it was given while later cells have moved on.
        """
        variables = out.get("variables")
        if not isinstance(variables, dict):
            return
        for name in given:
            if name not in variables:
                self._values.pop(name, None)  # deleted by the cell, or no longer serializable
        for name, encoded in variables.items():
            if input_name_problem(name) is not None:  # not from a sandbox that works: never a later cell's input
                continue
            if name in given and codec.is_encodable(given[name]) and codec.encode(given[name]) == encoded:
                continue
            self._values[name] = codec.decode(encoded)

    def __getitem__(self, name: str) -> Any:
        return self._values[name]

    def __setitem__(self, name: str, value: Any) -> None:
        self._values[name] = value

    def __delitem__(self, name: str) -> None:
        del self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"CarriedVariables({self._values!r})"
