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

Without a surrogate key, ``pseudonym`` draws from the *per-user secret*
(:func:`user_secret`): 32 random bytes, made on first use and kept private
(mode 0600) in the user's config directory (:func:`config_dir`), so that
nobody who reads a sanitized text can recompute its surrogates from the text
itself. It makes keyless output reproducible for this user on this machine
only; a shared key makes it reproducible anywhere.
"""

import logging
import os
import secrets
import stat
import tempfile
from pathlib import Path

__all__ = [
    "Secret",
    "MissingKeyError",
    "read_key",
    "config_dir",
    "user_secret",
    "SURROGATE_KEY_ENV",
    "MAPPING_KEY_ENV",
    "CONFIG_DIR_ENV",
    "USER_SECRET_FILE",
]

SURROGATE_KEY_ENV = "TEXTSAN_KEY"
MAPPING_KEY_ENV = "TEXTSAN_MAPPING_KEY"
#: overrides the user's config directory (where the per-user secret is kept)
CONFIG_DIR_ENV = "TEXTSAN_CONFIG_DIR"
USER_SECRET_FILE = "secret.key"
_APP_DIR = "spacy-textsan"
_GIVE_A_KEY = f"give a surrogate key instead (key_file, --key-file or ${SURROGATE_KEY_ENV})"

logger = logging.getLogger("spacy_textsan")


class MissingKeyError(ValueError):
    """A key is missing or unreadable (the message never holds the key)."""


class Secret:
    """Bytes that do not print, and that a pickle never holds.

    ``source`` says where the key was read (``("file", path)``, ``("env",
    name)`` or ``("user", path)`` for the per-user secret): a pickled Secret stores only that and reads the key again when
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
    if kind == "user":
        return _read_user_secret(Path(where))
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


def config_dir() -> Path:
    """The user's config directory of spacy-textsan: ``$TEXTSAN_CONFIG_DIR``,
    else ``$XDG_CONFIG_HOME/spacy-textsan``, else ``%APPDATA%\\spacy-textsan``
    on Windows, else ``~/.config/spacy-textsan``; always absolute."""
    if os.environ.get(CONFIG_DIR_ENV):
        return Path(os.environ[CONFIG_DIR_ENV]).expanduser().absolute()
    xdg = os.environ.get("XDG_CONFIG_HOME", "")
    if os.path.isabs(xdg):  # the XDG spec: a relative value is ignored
        return Path(xdg) / _APP_DIR
    if os.name == "nt" and os.environ.get("APPDATA"):
        return Path(os.environ["APPDATA"]) / _APP_DIR
    try:
        return Path.home() / ".config" / _APP_DIR
    except RuntimeError:  # no home directory to be found
        raise MissingKeyError(
            f"no config directory for the per-user secret: set ${CONFIG_DIR_ENV}, or {_GIVE_A_KEY}"
        ) from None


def user_secret() -> Secret:
    """The per-user secret, ``secret.key`` in :func:`config_dir`; made on first
    use (32 random bytes, hex, mode 0600, the directory 0700 when it is made
    here), with a notice on the ``spacy_textsan`` logger. A secret that other
    users may read or write is refused (:class:`MissingKeyError`), as ssh refuses
    such a private key: outputs drawn from it would not be secret."""
    path = config_dir() / USER_SECRET_FILE
    if not os.path.lexists(path):
        try:
            created = _create_secret(path)
        except OSError as e:
            raise MissingKeyError(
                f"cannot create the per-user secret {path}: {e.strerror or type(e).__name__}; {_GIVE_A_KEY}"
            ) from None
        if created:
            logger.warning(
                "created a per-user secret for pseudonyms without a key at %s (readable by you only): the "
                "same input gives the same output for this user on this machine only; for reproducible output "
                "across users and machines, give a shared key with --key-file or $%s",
                path,
                SURROGATE_KEY_ENV,
            )
    return _read_user_secret(path)


def _create_secret(path: Path) -> bool:
    """Write a new secret at ``path`` atomically unless one is there already;
    whether this call wrote it. A process that loses the race reads the
    winner's secret, so concurrent first runs agree."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".secret-", dir=path.parent)  # mode 0600
    try:
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(secrets.token_hex(32) + "\n")
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(tmp, path)  # never replaces a secret that is there
        except FileExistsError:
            return False
        except OSError:  # a file system without hard links
            if os.path.lexists(path):
                return False
            os.replace(tmp, path)
        return True
    finally:
        Path(tmp).unlink(missing_ok=True)


def _read_user_secret(path: Path) -> Secret:
    """The per-user secret at ``path``, refused when missing, empty or open to others."""
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
        value = path.read_bytes().strip()
    except FileNotFoundError:
        raise MissingKeyError(
            f"the per-user secret {path} is missing (output without a key is reproducible only where "
            f"its secret is); {_GIVE_A_KEY}"
        ) from None
    except OSError as e:
        raise MissingKeyError(
            f"cannot read the per-user secret {path}: {e.strerror or type(e).__name__}; {_GIVE_A_KEY}"
        ) from None
    if os.name != "nt" and mode & 0o077:
        raise MissingKeyError(
            f"the per-user secret {path} is open to other users (mode {mode:04o}): make it private "
            f"(chmod 600 {path}), or {_GIVE_A_KEY}"
        )
    if not value:
        raise MissingKeyError(
            f"the per-user secret {path} is empty: remove it to have a new one made, or {_GIVE_A_KEY}"
        )
    return Secret(value, ("user", str(path)))
