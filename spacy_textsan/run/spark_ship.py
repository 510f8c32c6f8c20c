"""The folders a Spark run's pipeline reads (its config's ``[paths]``: the background, a knowledge base),
zipped once on the driver and unpacked on each executor, so that executors on other machines, which
cannot read the driver's folders, load the same pipeline (:mod:`.spark`)."""

from __future__ import annotations

import atexit
import hashlib
import os
import re
import shutil
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import spacy.util
from thinc.api import Config

from ..pipeline import DEFAULT_CONFIG_PATH

__all__ = ["BACKGROUND_KEY", "ShipError", "config_folders", "ship_folders"]


#: The [paths] entry a run cannot do without: the background of the risk measures.
BACKGROUND_KEY = "paths.background"


class ShipError(ValueError):
    """A folder the pipeline's config names that cannot be sent to the executors."""


def config_folders(pipeline: str | Path | None, overrides: dict[str, Any] | None = None) -> dict[str, Path]:
    """The folders that the ``[paths]`` section of the pipeline's config names,
    as ``{override key: folder}``, resolved against the driver's working
    directory: those the executors need a copy of.

    pipeline (str | Path | None): As :func:`sanitize_dataframe`; only the
        bundled config and ``.cfg`` files are read (the ``--set paths.*``
        overrides do not apply to an installed or saved pipeline).
    overrides (dict[str, Any] | None): Config overrides; their ``paths.*``
        values replace the config's.
    RETURNS (dict[str, Path]): Every ``paths.*`` value that the config refers
        to (``${paths.background}`` in a component's settings) and that names
        a folder on the driver. A value that names no folder is left as it is
        (``null``, a package name, ...), except ``paths.background``.
    RAISES (ShipError): ``paths.background`` set to something that is not a
        folder, or a named folder that cannot be read; the message is one line.
    """
    if pipeline is not None and not str(pipeline).endswith(".cfg"):
        return {}
    try:
        config = spacy.util.load_config(DEFAULT_CONFIG_PATH if pipeline is None else Path(pipeline), interpolate=False)
    except (OSError, ValueError):
        return {}  # loading the pipeline reports it
    paths = dict(config.get("paths", {}))
    paths.update({k[6:]: v for k, v in (overrides or {}).items() if k.startswith("paths.") and k.count(".") == 1})
    try:  # ${paths.x} in a value
        paths = dict(Config({"paths": paths}).interpolate()["paths"])
    except ValueError:
        pass
    used = _paths_used(config)
    folders = {}
    for key, value in sorted((f"paths.{name}", value) for name, value in paths.items()):
        if key[6:] not in used or not isinstance(value, str) or not value:
            continue
        folder = Path(value)
        if not folder.is_dir():
            if key == BACKGROUND_KEY:
                why = "not a folder" if folder.exists() else "not found"
                raise ShipError(f"{key}={value}: cannot send it to the Spark executors: {why}")
            continue
        try:
            _files_of(folder)  # every file and folder below it readable
        except OSError as e:
            raise ShipError(f"{key}={value}: cannot send it to the Spark executors: {_os_error(e)}") from None
        folders[key] = folder.resolve()
    return folders


_PATH_REFERENCE = re.compile(r"\$\{paths\.([^.}\s]+)\}")


def _paths_used(config: Config) -> set[str]:
    """The names of the ``[paths]`` entries that the rest of ``config`` (not
    interpolated) refers to: ``background`` for ``path = ${paths.background}`` in a ``background`` block."""
    found: set[str] = set()
    todo: list[Any] = [value for section, value in config.items() if section != "paths"]
    while todo:
        node = todo.pop()
        if isinstance(node, dict):
            todo.extend(node.values())
        elif isinstance(node, (list, tuple)):
            todo.extend(node)
        elif isinstance(node, str):
            found.update(_PATH_REFERENCE.findall(node))
    return found


def _os_error(error: OSError) -> str:
    return f"{error.strerror or error}: {error.filename}" if error.filename else str(error)


def _files_of(folder: Path) -> list[tuple[str, Path]]:
    """``(name in the archive, path)`` of every folder (name ending with ``/``) and
    file below ``folder`` (symbolic links followed, but not back up to a folder
    that holds them), sorted; raises :class:`OSError` on one that cannot be read."""

    def fail(error: OSError) -> None:
        raise error

    entries = []
    for root, dirs, files in os.walk(folder, onerror=fail, followlinks=True):
        real = os.path.realpath(root)
        dirs[:] = sorted(d for d in dirs if not _is_within(real, os.path.realpath(os.path.join(root, d))))
        base = Path(root)
        if base != folder:
            entries.append((base.relative_to(folder).as_posix() + "/", base))
        for name in sorted(files):
            path = base / name
            if not os.access(path, os.R_OK):
                raise PermissionError(13, "Permission denied", str(path))
            entries.append((path.relative_to(folder).as_posix(), path))
    return entries


def _is_within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


#: The driver's archives, for the life of this process: Spark serves them to the
#: executors when a task first needs them (``sanitize_dataframe`` is lazy).
_ARCHIVE_DIR: list[Path] = []
#: (application id, archive name) already added to a SparkContext
_ADDED: set[tuple[str, str]] = set()


def _archive_dir() -> Path:
    if not _ARCHIVE_DIR:
        _ARCHIVE_DIR.append(Path(tempfile.mkdtemp(prefix="textsan-spark-")))
        atexit.register(shutil.rmtree, _ARCHIVE_DIR[0], True)
    return _ARCHIVE_DIR[0]


def _archive(key: str, folder: Path) -> tuple[str, Path]:
    """``(name, zip file)`` of ``folder``: the name holds a digest of its files
    (paths, sizes, modification times), so an unchanged folder is zipped once
    per process and a changed one gets a new name."""
    entries = _files_of(folder)
    digest = hashlib.sha256(str(folder).encode("utf-8"))
    for name, path in entries:
        stat = path.stat()
        digest.update(f"\0{name}\0{stat.st_size}\0{stat.st_mtime_ns}".encode())
    name = f"textsan-{key.partition('.')[2]}-{digest.hexdigest()[:16]}"
    target = _archive_dir() / f"{name}.zip"
    if not target.exists():
        partial = target.with_suffix(".tmp")
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
            for arcname, path in entries:
                archive.write(path, arcname)
        os.replace(partial, target)
    return name, target


def ship_folders(spark, folders: dict[str, Path]) -> tuple[tuple[str, str], ...]:
    """Add each folder of ``folders`` (:func:`config_folders`) to the Spark job
    as a zip archive (``SparkContext.addArchive``), which Spark unpacks once
    per executor; returns ``(override key, archive name)`` pairs
    (:attr:`PipelineSpec.shipped`). Raises :class:`ShipError` (one line) if a
    folder cannot be read."""
    context = spark.sparkContext
    shipped = []
    for key, folder in sorted(folders.items()):
        try:
            name, archive = _archive(key, folder)
        except OSError as e:
            raise ShipError(f"{key}={folder}: cannot send it to the Spark executors: {_os_error(e)}") from None
        if (context.applicationId, name) not in _ADDED:
            context.addArchive(f"{archive}#{name}")
            _ADDED.add((context.applicationId, name))
        shipped.append((key, name))
    return tuple(shipped)
