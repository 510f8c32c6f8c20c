"""``textsan keygen`` and ``textsan restore``: the reversible mode's commands,
and the helpers ``textsan sanitize --reversible`` writes the mapping with."""

import os
from pathlib import Path

import typer
from wasabi import msg

from ..generalizer.keys import MAPPING_KEY_ENV, MissingKeyError, Secret, read_key
from ..generalizer.mapping import (
    MappingError,
    decrypt_mapping,
    generate_key,
    restore_text,
)
from ..io import InputError, read_input, write_output
from ..run.outputs import MAPPING_FILE
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
    """Put the original strings back into the files of a reversible run."""
    path = sanitized_dir / MAPPING_FILE
    if not path.is_file():
        fail(f"{path} not found: was the directory written by `textsan sanitize --reversible`?")
    key = mapping_key(key_file)
    try:
        mapping = decrypt_mapping(path.read_bytes(), key)
    except MappingError as e:
        fail(f"{path}: {e}")
    if out.resolve() == sanitized_dir.resolve():
        fail("--out must differ from the sanitized directory")
    done = []  # everything is checked before anything is written
    for entry in mapping["files"]:
        source = sanitized_dir / entry["output"]
        try:
            f = read_input(
                source,
                fmt=entry["format"],
                columns=entry["fields"] or None,
                field=(entry["fields"] or ["text"])[0],
                delimiter=entry["delimiter"],
            )
        except InputError as e:
            fail(str(e))
        if len(f.records) != len(entry["records"]):
            fail(f"{source}: {len(f.records)} records, the mapping has {len(entry['records'])}")
        restored = []
        for rec, mrec in zip(f.records, entry["records"], strict=False):
            fields = {}
            for name, text in rec.texts.items():
                m = mrec["fields"].get(name)
                if m is None:
                    fail(f"{source}:{rec.line}: field {name!r} is not in the mapping")
                try:
                    fields[name] = restore_text(text, m["segments"], m["digest"])
                except MappingError as e:
                    fail(f"{source}:{rec.line}: {e}")
            restored.append(fields)
        done.append((f, restored))
    used: set = set()
    for f, restored in done:
        for written in write_output(f, restored, out, used=used):
            msg.good(f"restored {written}")
