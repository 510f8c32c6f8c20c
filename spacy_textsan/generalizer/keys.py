"""Secrets of the generalizer: where keys come from, and how they never leak.

A key is read from a file (``key_file``) or an environment variable
(``key_env``), in that order. Errors name the file or the variable, never the
key; :class:`Secret` hides its value from ``repr`` and ``str`` so that a key
cannot end up in a log line, a report or an exception message by accident.

Two kinds of key are used:

* the *surrogate key* of the ``hash`` and ``pseudonym`` strategies: any
  bytes (a passphrase is fine); default variable ``TEXTSAN_KEY``;
* the *mapping key* of reversible mode: a Fernet key (``textsan keygen``);
  default variable ``TEXTSAN_MAPPING_KEY``.
"""

import os
from pathlib import Path

__all__ = ["Secret", "MissingKeyError", "read_key", "SURROGATE_KEY_ENV", "MAPPING_KEY_ENV"]

SURROGATE_KEY_ENV = "TEXTSAN_KEY"
MAPPING_KEY_ENV = "TEXTSAN_MAPPING_KEY"


class MissingKeyError(ValueError):
    """A key is missing or unreadable (the message never holds the key)."""


class Secret:
    """Bytes that do not print, and that a pickle never holds.

    ``source`` says where the key was read (``("file", path)`` or ``("env",
    name)``): a pickled Secret stores only that and reads the key again when
    it is unpickled, so ``pickle.dumps(nlp)`` of a pipeline with a key holds
    no key. A Secret made from bytes alone cannot be pickled."""

    __slots__ = ("_value", "source")

    def __init__(self, value: bytes, source: tuple[str, str] | None = None) -> None:
        self._value = bytes(value)
        self.source = source

    def __reduce__(self) -> tuple:
        if self.source is None:
            raise TypeError("a Secret read from no key file or variable cannot be pickled (it would hold the key)")
        return (_reread, (self.source,))

    def reveal(self) -> bytes:
        return self._value

    def __repr__(self) -> str:
        return "Secret(***)"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(("Secret", self._value))


def _reread(source: tuple[str, str]) -> Secret:
    """The key of a pickled :class:`Secret`, read again from where it came from."""
    kind, where = source
    key = read_key(where, None) if kind == "file" else read_key(None, where)
    assert key is not None  # required: a missing key raised
    return key


def read_key(
    key_file: str | Path | None = None, key_env: str | None = None, what: str = "key", required: bool = True
) -> Secret | None:
    """The key from ``key_file`` if given, else from ``$key_env``; surrounding
    whitespace (a trailing newline) is stripped. ``None`` when neither is set
    and ``required`` is false; otherwise :class:`MissingKeyError`."""
    if key_file:
        path = Path(key_file)
        try:
            value = path.read_bytes().strip()
        except OSError as e:
            raise MissingKeyError(f"cannot read the {what} file {path}: {e.strerror or type(e).__name__}") from None
        if not value:
            raise MissingKeyError(f"the {what} file {path} is empty")
        return Secret(value, ("file", str(path)))
    if key_env:
        value = os.environ.get(key_env, "").strip().encode("utf-8")
        if value:
            return Secret(value, ("env", key_env))
    if required:
        where = f"${key_env}" if key_env else "a key file"
        raise MissingKeyError(f"no {what}: set {where} or give a key file")
    return None
