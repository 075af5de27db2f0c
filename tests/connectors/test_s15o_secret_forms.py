"""A credential is redacted inside base64 and as UTF-16 too (s15o, item 6).

The redactor knew a secret as itself, URL-encoded, JSON-escaped and as the base64 of the secret alone.
A service that echoes a request inside a base64 blob (a JWT's payload, a data: URL, a log record, a
PowerShell -EncodedCommand, which is base64 of UTF-16-LE) carries the secret at one of three byte
alignments, each a different run of base64 characters; a Windows or Java service that writes UTF-16
gives the secret as ``t\\x00o\\x00k\\x00...`` (``\\u0000`` in JSON), and debugging output gives its bytes
in hex. None of these was redacted.

The right outcome: the credential's base64 at each of the three alignments (standard and URL-safe),
its UTF-16-LE and UTF-16-BE forms (raw, JSON-escaped, as bytes), the hex of its UTF-8 and UTF-16 bytes
(either case) and the base64 of its UTF-16-LE bytes are all redacted, in text and in bytes, while text
that only resembles them is left alone.
"""

from __future__ import annotations

import base64
import contextlib
import json

import pytest

from codemode_kernel.connectors.secrets import REDACTED, Redactor

SECRET = "ghp_s15oExampleToken42"


def _inside_base64(prefix: bytes, secret: bytes, encode: object) -> str:
    return encode(prefix + b'{"authorization": "' + secret + b'", "n": 1}').decode()  # type: ignore[operator]


@pytest.mark.parametrize("prefix", [b"", b"x", b"xy", b"xyz", b"wxyz"])
@pytest.mark.parametrize("encode", [base64.b64encode, base64.urlsafe_b64encode], ids=["standard", "urlsafe"])
def test_a_secret_inside_a_base64_blob_is_redacted_at_every_alignment(prefix: bytes, encode: object) -> None:
    """It is an error if the base64 of a record holding the secret still decodes to the secret."""
    blob = _inside_base64(prefix, SECRET.encode(), encode)
    out = Redactor([SECRET]).text(f"payload={blob}")
    assert REDACTED in out
    rest = out.removeprefix("payload=")
    for part in rest.split(REDACTED):
        padded = part + "=" * (-len(part) % 4)
        for decode in (base64.b64decode, base64.urlsafe_b64decode):
            for cut in range(4):  # any run of it, at any alignment
                with contextlib.suppress(ValueError):
                    assert SECRET.encode() not in decode(padded[cut:] + "=" * (-len(padded[cut:]) % 4))


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_a_utf16_secret_is_redacted_in_text_json_and_bytes(encoding: str) -> None:
    """It is an error if the secret written as UTF-16 passes: as text with NULs, JSON-escaped, or as bytes."""
    raw = SECRET.encode(encoding)
    text = raw.decode("latin-1")  # what a UTF-16 body read as a one-byte charset looks like
    r = Redactor([SECRET])
    assert SECRET not in r.text(f"echo: {text}").replace("\x00", "") and REDACTED in r.text(f"echo: {text}")
    escaped = json.dumps(text)[1:-1]
    assert REDACTED in r.text(f'{{"echo": "{escaped}"}}')
    assert raw not in r.value(b"head " + raw + b" tail") and REDACTED.encode() in r.value(b"head " + raw + b" tail")
    value = r.value({"echo": text})
    assert REDACTED in value["echo"]


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16-le", "utf-16-be"])
@pytest.mark.parametrize("case", ["lower", "upper"])
def test_the_hex_of_a_secret_is_redacted(encoding: str, case: str) -> None:
    """It is an error if the hex of the secret's bytes (debugging output, a hex dump) passes."""
    hexed = SECRET.encode(encoding).hex()
    hexed = hexed.upper() if case == "upper" else hexed
    assert Redactor([SECRET]).text(f"bytes: {hexed}") == f"bytes: {REDACTED}"


@pytest.mark.parametrize("encode", [base64.b64encode, base64.urlsafe_b64encode], ids=["standard", "urlsafe"])
def test_the_base64_of_utf16_le_is_redacted(encode: object) -> None:
    """It is an error if base64(UTF-16-LE(secret)) (PowerShell's -EncodedCommand) passes."""
    blob = encode(SECRET.encode("utf-16-le")).decode()  # type: ignore[operator]
    assert REDACTED in Redactor([SECRET]).text(f"cmd -EncodedCommand {blob}")


def test_text_that_only_resembles_the_forms_is_left_alone() -> None:
    """It is an error if ordinary base64 (an image) or hex that does not hold the secret is changed."""
    image = base64.b64encode(bytes(range(256)) * 64).decode()
    digest = "0123456789abcdef" * 8
    r = Redactor([SECRET])
    assert r.text(image) == image and r.text(digest) == digest
