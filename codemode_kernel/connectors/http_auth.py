"""Credentials for HTTP connectors, held on the host and never shown to the sandbox.

An :class:`HttpAuth` says what to send (a bearer token, an API key in a header, query
parameter or cookie, or basic credentials) and where the secret comes from: a literal
value or, better, an environment variable read at request time (so a rotated token is
picked up without restarting, and nothing secret sits in the configuration file).
:meth:`HttpAuth.apply` yields the headers, query parameters and cookies to add.
"""

from __future__ import annotations

import base64
import difflib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from codemode_kernel.connectors.policy import check_keys, read_env, shown
from codemode_kernel.errors import ConfigurationError

AuthType = Literal["bearer", "api_key", "basic"]
KeyLocation = Literal["header", "query", "cookie"]


_TYPES = ("bearer", "api_key", "basic")
_PLACES = ("header", "query", "cookie")


def _choice(value: Any, choices: tuple[str, ...]) -> str:
    """A wrong value of a key with a few allowed words, as an error shows it: the word it is close to, not the
    value itself (a token pasted under the wrong key must not be printed; s15o)."""
    if isinstance(value, str):
        close = difflib.get_close_matches(value.strip().lower(), choices, n=1, cutoff=0.6)
        if close:
            return f"{shown(value)} (did you mean {close[0]!r}?)"
    return shown(value)


@dataclass(frozen=True)
class HttpAuth:
    """One credential. ``value``/``value_env`` hold the token or key; basic auth uses the username ones.

    Build with :meth:`bearer`, :meth:`api_key` or :meth:`basic`, or from a configuration table
    with :meth:`from_table`.
    """

    type: AuthType
    value: str | None = None
    value_env: str | None = None
    name: str | None = None
    location: KeyLocation = "header"
    username: str | None = None
    username_env: str | None = None

    @classmethod
    def bearer(cls, *, token: str | None = None, token_env: str | None = None) -> HttpAuth:
        return cls._checked("bearer", token, token_env)

    @classmethod
    def api_key(cls, *, name: str | None = None, location: KeyLocation = "header", value: str | None = None,
                value_env: str | None = None) -> HttpAuth:
        """An API key sent as header/query/cookie ``name`` (default: from the document's apiKey scheme)."""
        return cls._checked("api_key", value, value_env, name=name, location=location)

    @classmethod
    def basic(cls, *, username: str | None = None, username_env: str | None = None, password: str | None = None,
              password_env: str | None = None) -> HttpAuth:
        if (username is None) == (username_env is None):
            raise ConfigurationError("basic auth needs exactly one of username or username_env.")
        return cls._checked("basic", password, password_env, username=username, username_env=username_env)

    @classmethod
    def _checked(cls, kind: AuthType, value: str | None, env: str | None, **extra: Any) -> HttpAuth:
        if (value is None) == (env is None):
            secret = {"bearer": "token", "api_key": "value", "basic": "password"}[kind]
            raise ConfigurationError(f"{kind} auth needs exactly one of {secret} or {secret}_env "
                                     f"(prefer {secret}_env: the name of an environment variable).")
        return cls(kind, value, env, **extra)

    @classmethod
    def from_table(cls, table: Any, where: str) -> HttpAuth:
        """From ``auth = { type = "bearer", token_env = "X" }`` and friends (see the OpenAPI connector)."""
        if not isinstance(table, Mapping):
            raise ConfigurationError(f"{where}: auth must be a table such as "
                                     "{ type = \"bearer\", token_env = \"PETSTORE_TOKEN\" }.")
        kind = table.get("type")
        try:
            if kind == "bearer":
                check_keys(table, ("type", "token", "token_env"), f"{where} auth")
                return cls.bearer(token=table.get("token"), token_env=table.get("token_env"))
            if kind == "api_key":
                check_keys(table, ("type", "name", "in", "value", "value_env"), f"{where} auth")
                location = table.get("in", "header")
                if location not in _PLACES:
                    raise ConfigurationError(f"auth.in must be header, query or cookie; got "
                                             f"{_choice(location, _PLACES)}.")
                return cls.api_key(name=table.get("name"), location=location, value=table.get("value"),
                                   value_env=table.get("value_env"))
            if kind == "basic":
                check_keys(table, ("type", "username", "username_env", "password", "password_env"), f"{where} auth")
                return cls.basic(username=table.get("username"), username_env=table.get("username_env"),
                                 password=table.get("password"), password_env=table.get("password_env"))
        except ConfigurationError as exc:
            if str(exc).startswith(where):
                raise
            raise ConfigurationError(f"{where}: {exc}") from None
        raise ConfigurationError(f"{where}: auth.type must be \"bearer\", \"api_key\" or \"basic\"; got "
                                 f"{_choice(kind, _TYPES)}.")

    def with_default_key(self, name: str | None, location: str | None) -> HttpAuth:
        """Fill the API key's name and place from the document's ``apiKey`` security scheme."""
        if self.type != "api_key" or self.name is not None or name is None:
            return self
        loc: KeyLocation = location if location in ("header", "query", "cookie") else "header"  # type: ignore[assignment]
        return HttpAuth(self.type, self.value, self.value_env, name, loc, self.username, self.username_env)

    def secret_names(self) -> set[tuple[str, str]]:
        """(location, lower-case name) of the parameters this credential fills; they are hidden."""
        if self.type in ("bearer", "basic"):
            return {("header", "authorization")}
        if self.name:
            return {(self.location, self.name.lower())}
        return set()

    def secrets(self) -> list[str]:
        """The credential as configured now, and for basic auth the ``base64(user:password)`` it sends."""
        secret = self.value if self.value is not None else os.environ.get(self.value_env or "")
        if not secret:
            return []
        if self.type != "basic":
            return [secret]
        user = self.username if self.username is not None else os.environ.get(self.username_env or "", "")
        return [secret, base64.b64encode(f"{user}:{secret}".encode()).decode("ascii")]

    def identity(self) -> dict[str, str]:
        """What tells one account from another without the credential itself, which rotates: the kind, where
        it goes, the user, and the environment variable it is read from (hashed into the connector's target:
        review 15 H1, 15x M10)."""
        user = self.username if self.username is not None else os.environ.get(self.username_env or "", "")
        return {"auth type": self.type, "auth at": f"{self.location} {self.name or ''}", "auth user": user or "",
                "auth read from": f"${self.value_env}" if self.value_env else "(written in the configuration)"}

    def apply(self, what: str) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
        """(headers, query parameters, cookies) to add to a request; reads environment variables now."""
        secret = self.value if self.value is not None else read_env(self.value_env or "", what)
        if self.type == "bearer":
            return {"Authorization": f"Bearer {secret}"}, {}, {}
        if self.type == "basic":
            user = self.username if self.username is not None else read_env(self.username_env or "", what)
            token = base64.b64encode(f"{user}:{secret}".encode()).decode("ascii")
            return {"Authorization": f"Basic {token}"}, {}, {}
        if not self.name:
            raise ConfigurationError(f"{what}: api_key auth needs `name` (the header, query parameter or cookie "
                                     "to send), because the document declares no apiKey security scheme.")
        if self.location == "query":
            return {}, {self.name: secret}, {}
        if self.location == "cookie":
            return {}, {}, {self.name: secret}
        return {self.name: secret}, {}, {}
