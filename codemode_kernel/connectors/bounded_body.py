"""An HTTP body's content coding undone piece by piece, with a bound (s15o).

httpx (and the MCP SDK's ``httpx2``) decode ``Content-Encoding: gzip`` / ``deflate`` a whole received
chunk at a time: a 64 KB chunk of a gzip bomb became ~66 MB in the host's memory before a cap on the
decoded body could look at it. :class:`ContentDecoder` is fed the raw bytes (``aiter_raw``) and gives
the decoded body in pieces of at most :data:`PIECE_BYTES`, so a reader that counts them stops at its own
limit with no more than one piece over it in memory. A coding applied on top of another (``gzip,
deflate``) is undone stage by stage, each stage's output bounded by the same limit: without that, an
outer layer could feed the inner one gigabytes that decode to nothing (empty deflate blocks), all in one
synchronous loop the request's deadline cannot interrupt.

The codings undone are the ones httpx undoes here (``gzip``/``x-gzip`` and ``deflate``, a zlib stream or
a raw one as servers send it); others (``br``, ``zstd`` without their libraries, ``identity``) pass as
they are, as httpx passes them.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator

#: The most one decompression step hands out at once.
PIECE_BYTES = 64 * 1024
#: The most codings one body may stack (``gzip, gzip, gzip, ...``); more is refused as malformed.
MAX_CODINGS = 4


class OverLimit(Exception):
    """A coding stage produced more than the limit (the body's decoded size is past it)."""


class BadCoding(ValueError):
    """The body is not valid in the coding its ``Content-Encoding`` names."""


class _Stage:
    def __init__(self, coding: str) -> None:
        self.coding = coding
        self.raw_fallback = coding == "deflate"  # a zlib stream first; a raw deflate stream if that fails
        self.started = False
        self.obj = zlib.decompressobj(zlib.MAX_WBITS | 16 if coding != "deflate" else zlib.MAX_WBITS)

    def feed(self, data: bytes) -> Iterator[bytes]:
        if self.obj.eof:  # what follows the end of the stream is ignored, as httpx ignores it
            return
        try:
            out = self.obj.decompress(data, PIECE_BYTES)
        except zlib.error as exc:
            if not (self.raw_fallback and not self.started):
                raise BadCoding(f"the body is not valid {self.coding} ({exc})") from None
            self.raw_fallback = False
            self.obj = zlib.decompressobj(-zlib.MAX_WBITS)
            yield from self.feed(data)
            return
        self.started = True
        while True:
            if out:
                yield out
            tail = self.obj.unconsumed_tail
            if self.obj.eof or (not tail and len(out) < PIECE_BYTES):
                return
            try:
                out = self.obj.decompress(tail, PIECE_BYTES)
            except zlib.error as exc:
                raise BadCoding(f"the body is not valid {self.coding} ({exc})") from None

    def flush(self) -> Iterator[bytes]:
        yield from self.feed(b"")


class ContentDecoder:
    """Undo ``content_encoding`` (a ``Content-Encoding`` header's value) on raw body bytes, in bounded pieces.

    ``decode(raw)`` and, at the end of the body, ``flush()`` yield decoded pieces of at most
    :data:`PIECE_BYTES`; the caller counts them against its own limit. The raw bytes and every inner
    stage are counted here: past ``limit`` they raise :class:`OverLimit`. Invalid data raises
    :class:`BadCoding`.
    """

    def __init__(self, content_encoding: str, limit: int) -> None:
        codings = [c.strip().lower() for c in content_encoding.split(",") if c.strip()]
        known = [("gzip" if c == "x-gzip" else c) for c in codings if c in ("gzip", "x-gzip", "deflate")]
        if len(known) > MAX_CODINGS:
            raise BadCoding(f"the body names {len(known)} content codings; at most {MAX_CODINGS} are undone")
        self.stages = [_Stage(c) for c in reversed(known)]  # the last coding applied is undone first
        self.limit = limit
        self.counts = [0] * len(self.stages)  # bytes into each stage

    @property
    def identity(self) -> bool:
        return not self.stages

    def decode(self, raw: bytes) -> Iterator[bytes]:
        return self._through(0, raw)

    def flush(self) -> Iterator[bytes]:
        for i, stage in enumerate(self.stages):
            for piece in stage.flush():
                yield from self._through(i + 1, piece)

    def _through(self, i: int, data: bytes) -> Iterator[bytes]:
        if i == len(self.stages):
            yield data
            return
        self.counts[i] += len(data)
        if self.counts[i] > self.limit:
            raise OverLimit
        for piece in self.stages[i].feed(data):
            yield from self._through(i + 1, piece)
