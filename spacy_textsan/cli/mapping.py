"""``textsan keygen`` and ``textsan restore``: the reversible mode's commands,
and the helpers ``textsan sanitize --reversible`` writes the mapping with."""

import os
from pathlib import Path

import typer
from wasabi import msg

from ..render.keys import MAPPING_KEY_ENV, MissingKeyError, Secret, read_key
from ..render.mapping import MappingError, decrypt_stream, generate_key
from ..run import MAPPING_FILE
from ..run.restore import RestoreError, restore_files
from .util import fail


def mapping_key(key_file: Path | None) -> Secret:
    """The Fernet key of reversible mode (``--key-file`` or ``$TEXTSAN_MAPPING_KEY``)."""
    try:
        key = read_key(key_file, MAPPING_KEY_ENV, what="mapping key")
    except MissingKeyError as e:
        fail(f"{e} (make one with `textsan keygen --out FILE`)")
    assert key is not None  # required: a missing key raised above
    return key


def keygen_cmd(
    out: Path = typer.Option(..., "--out", "-o", help="File to write the new key to (must not exist)"),
):
    """Write a new Fernet key for reversible mode (file mode 0600). Keep it apart
    from the sanitized outputs: whoever has both can restore the originals."""
    try:
        fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        fail(f"{out} exists already; refusing to overwrite a key")
    except OSError as e:
        fail(f"cannot write {out}: {e.strerror}")
    with os.fdopen(fd, "wb") as fh:
        fh.write(generate_key() + b"\n")
    msg.good(f"wrote a new mapping key to {out}")
    msg.info(f"use it with --key-file {out} or export {MAPPING_KEY_ENV}=$(cat {out})")


def restore_cmd(
    sanitized_dir: Path = typer.Argument(..., help="Output directory of `textsan sanitize --reversible`"),
    out: Path = typer.Option(..., "--out", "-o", help="Directory for the restored files"),
    key_file: Path | None = typer.Option(None, "--key-file", help=f"Mapping key file (default: ${MAPPING_KEY_ENV})"),
):
    """Put the original strings back into the files of a reversible run: each
    file comes back byte for byte as it was given to `textsan sanitize`
    (encoding, BOM, layout), readable by you only."""
    path = sanitized_dir / MAPPING_FILE
    if not path.is_file():
        fail(f"{path} not found: was the directory written by `textsan sanitize --reversible`?")
    if out.resolve() == sanitized_dir.resolve():
        fail("--out must differ from the sanitized directory")
    if out.exists() and not out.is_dir():
        fail(f"--out {out} is a file, not a directory")
    key = mapping_key(key_file)
    try:
        mapping = decrypt_stream(path.read_bytes(), key)
    except MappingError as e:
        fail(f"{path}: {e}")
    try:
        written = restore_files(sanitized_dir, mapping, out)
    except RestoreError as e:
        fail(f"{e}; nothing restored")
    except OSError as e:
        fail(f"cannot write into {out}: {e.strerror or e}; nothing restored")
    if mapping.get("run"):
        msg.info(f"{MAPPING_FILE} of run {mapping['run']}: every sanitized file checked (SHA-256)")
    else:
        msg.warn(f"{MAPPING_FILE} predates run ids: each sanitized value was checked, not the whole files")
    for path in written:
        msg.good(f"restored {path}")
