"""Local JSON references: ``#/components/schemas/Pet`` → the node it names (RFC 6901, in a URI fragment).

The one helper for every ``$ref`` the package follows inside one document (the OpenAPI reader
and the stub generator). A fragment is percent-decoded first, then split on ``/``; in each
token ``~1`` is ``/`` and ``~0`` is ``~`` (decoded in that order, so ``~01`` is ``~1``). A token
indexes a list when it is a decimal index within it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import unquote


class Unresolved(LookupError):
    """A reference that names nothing: ``walked`` is the pointer that resolved, ``token`` the step that did not."""

    def __init__(self, ref: str, walked: str, token: str) -> None:
        self.ref = ref
        self.walked = walked
        self.token = token
        super().__init__(f"$ref {ref!r} does not resolve: {walked} has no {token!r}")


def is_local(ref: str) -> bool:
    """True for a reference into the same document (``#`` or ``#/...``)."""
    return ref == "#" or ref.startswith("#/")


def tokens(ref: str) -> list[str]:
    """The reference tokens of a local ``ref`` (``[]`` for ``#``); ``ValueError`` for any other reference."""
    if not is_local(ref):
        raise ValueError(f"$ref {ref!r} is not a local reference (#/...)")
    if ref == "#":
        return []
    return [unescape(t) for t in unquote(ref[2:]).split("/")]


def escape(token: str) -> str:
    """A key as a pointer token: ``a/b`` → ``a~1b``."""
    return token.replace("~", "~0").replace("/", "~1")


def unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def pointer(parts: Sequence[str]) -> str:
    """The local reference naming ``parts``: ``["a", "b/c"]`` → ``#/a/b~1c``."""
    return "#" + "".join("/" + escape(p) for p in parts)


def resolve(root: Any, ref: str) -> Any:
    """The node ``ref`` names in ``root``; :class:`Unresolved` if a step finds nothing, ``ValueError`` if not local."""
    node = root
    walked: list[str] = []
    for token in tokens(ref):
        if isinstance(node, Mapping) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            raise Unresolved(ref, pointer(walked), token)
        walked.append(token)
    return node
