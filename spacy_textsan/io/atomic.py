"""The one atomic writer of spacy-textsan: every output file is written to a
temporary file in its directory, synced, and moved onto its name, so that a
failed run never leaves a half-written file behind.

The permissions of a new file are chosen by the caller: the usual ones (the
umask applied to 0666) by default, or owner-only (0600) with ``owner_only``.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from .errors import PathLike

__all__ = ["AtomicFile", "atomic_path", "atomic_write"]


@contextmanager
def atomic_path(path: PathLike, *, owner_only: bool = False) -> Iterator[Path]:
    """Yield the path of a new empty temporary file next to ``path``; move it
    onto ``path`` on success.

    For writers that take a path rather than a file object. The body may
    reopen the temporary file (``"w"`` keeps its permissions) but must not
    replace it. On an exception in the body the temporary file is removed and
    ``path`` is left as it was.

    path (PathLike): The file to write.
    owner_only (bool): Create the file readable and writable by its owner only
        (0600); otherwise the umask decides, as for any new file.
    """
    target = Path(path)
    temp = _create_temp(target, 0o600 if owner_only else 0o666)
    try:
        yield temp
        fd = os.open(temp, os.O_RDWR)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, target)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise


def _create_temp(target: Path, mode: int) -> Path:
    """Create a new empty file ``.{name}.{random}.tmp`` next to ``target``."""
    while True:
        temp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
        try:
            os.close(os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode))
            return temp
        except FileExistsError:
            continue


@contextmanager
def atomic_write(
    path: PathLike, mode: str = "w", encoding: str | None = "utf-8", *, owner_only: bool = False
) -> Iterator[IO[Any]]:
    """Open a temporary file next to ``path``; move it onto ``path`` on success.

    On an exception in the body the temporary file is removed and ``path`` is
    left as it was. Text mode does no newline translation (``newline=""``),
    so what is written is what ends up in the file.

    path (PathLike): The file to write.
    mode (str): ``"w"`` (text) or ``"wb"`` (binary).
    encoding (str | None): Text encoding; ignored in binary mode.
    owner_only (bool): Permissions 0600 instead of the umask's (see :func:`atomic_path`).
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write mode must be 'w' or 'wb', got {mode!r}")
    binary = mode == "wb"
    with atomic_path(path, owner_only=owner_only) as temp:
        with open(temp, mode, encoding=None if binary else encoding, newline=None if binary else "") as handle:
            yield handle


class AtomicFile:
    """An output written piece by piece over a long run: a temporary file
    next to ``path`` (``.{name}.{random}.tmp``) until :meth:`commit` moves it
    onto ``path``; :meth:`abort` removes it. A run killed in between leaves
    only the temporary file, never a file under the output's name.

    Binary: the caller encodes (see :meth:`write_text`)."""

    def __init__(self, path: PathLike, *, owner_only: bool = False) -> None:
        self.path = Path(path)
        self.temp = _create_temp(self.path, 0o600 if owner_only else 0o666)
        self._fh: IO[bytes] | None = open(self.temp, "wb")  # noqa: SIM115 (closed by close/commit/abort)
        self._done = False

    def write(self, data: bytes) -> None:
        assert self._fh is not None, "write after commit or abort"
        self._fh.write(data)

    def write_text(self, text: str, encoding: str = "utf-8") -> None:
        self.write(text.encode(encoding))

    def close(self) -> None:
        """Flush, sync and close the temporary file (it keeps its temporary
        name until :meth:`commit`, so that a run of many files holds no more
        than one open)."""
        if self._fh is not None:
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self._fh.close()
            self._fh = None

    def commit(self) -> Path:
        """Close the file and move it onto its name; returns the name."""
        assert not self._done, "commit after commit or abort"
        self.close()
        os.replace(self.temp, self.path)
        self._done = True
        return self.path

    def abort(self) -> None:
        """Remove the temporary file (nothing is left under the output's name)."""
        if self._done:
            return
        self._done = True
        if self._fh is not None:
            self._fh.close()
            self._fh = None
        try:
            os.unlink(self.temp)
        except OSError:
            pass
