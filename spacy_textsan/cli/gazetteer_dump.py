"""``textsan gazetteer import-dump``: a knowledge base from a Wikidata JSON dump.

Mount :func:`import_dump_cmd` on a typer app::

    gazetteer_app.command("import-dump")(import_dump_cmd)

Example::

    textsan gazetteer import-dump latest-all.json.bz2 assets/kb_wikidata \\
        --keep Q486972 --keep Q12737077 --type Q486972=LOC --type Q12737077=DEM

Without ``--keep`` the preset :data:`~.dump_importer.DEFAULT_CLASS_TYPES` is
used (occupations, professions, ethnic groups, religions, nationalities: DEM;
human settlements, countries, administrative territorial entities: LOC;
organizations: ORG; diseases: MISC). ``--type`` overrides or adds types; a
kept class without a type is MISC.
"""

import time
from pathlib import Path

import typer
from wasabi import msg

from ..detect.gazetteer.dump_importer import DEFAULT_CLASS_TYPES, SOURCE, import_dump
from ..detect.gazetteer.dump_reader import DumpFormatError, qid_to_int
from ..detect.gazetteer.kb import KB_TYPES
from .numbers import MAX_CHAIN, number_option
from .util import fail as _fail

__all__ = ["import_dump_cmd", "parse_type_pairs"]

_PRESET_HELP = ", ".join(f"{q}={t}" for q, t in DEFAULT_CLASS_TYPES.items())


def parse_type_pairs(pairs: list[str]) -> dict[str, str]:
    """``["Q515=LOC", ...]`` -> ``{"Q515": "LOC"}``; ValueError on a bad pair."""
    out: dict[str, str] = {}
    for pair in pairs:
        qid, sep, tab_type = pair.partition("=")
        qid, tab_type = qid.strip(), tab_type.strip().upper()
        if not sep or qid_to_int(qid) is None or tab_type not in KB_TYPES:
            raise ValueError(f"--type must be QID=TYPE with TYPE one of {', '.join(KB_TYPES)}: {pair!r}")
        out[qid] = tab_type
    return out


def import_dump_cmd(
    dump: Path = typer.Argument(..., help="Wikidata JSON dump: .json, .json.gz or .json.bz2 (one entity a line)"),
    out: Path = typer.Argument(..., help="Output directory of the knowledge base (kb.msgpack + meta.json)"),
    keep: list[str] | None = typer.Option(
        None, "--keep", "-k", help=f"Class QID to keep, repeatable (default preset: {_PRESET_HELP})"
    ),
    types: list[str] | None = typer.Option(
        None, "--type", "-t", help="QID=TYPE (LOC, ORG, DEM, MISC), repeatable; adds to the preset"
    ),
    language: str = typer.Option("en", "--language", "-l", help="Language of labels, aliases, descriptions"),
    max_chain: int = number_option(6, "--max-chain", low=0, high=MAX_CHAIN, help="Most ancestors kept in a chain"),
    on_error: str = typer.Option("raise", "--on-error", help="Malformed dump line: raise or skip"),
    no_progress: bool = typer.Option(False, "--no-progress", help="Hide the progress bar"),
) -> None:
    """Import a Wikidata JSON dump into a gazetteer knowledge base (streaming,
    bounded memory: the dump is read in 2 passes, sometimes a few more)."""
    if on_error not in ("raise", "skip"):
        _fail(f"--on-error must be raise or skip, not {on_error!r}")
    if not dump.is_file():
        _fail(f"no such dump file: {dump}")
    try:
        class_types = {**DEFAULT_CLASS_TYPES, **parse_type_pairs(types or [])}
    except ValueError as e:
        _fail(str(e))
    keep_classes = list(keep) if keep else list(DEFAULT_CLASS_TYPES)
    bad = [q for q in keep_classes if qid_to_int(q) is None]
    if bad:
        _fail(f"--keep takes Wikidata class ids (Q...): {', '.join(bad)}")
    start = time.time()
    try:
        kb, stats = import_dump(
            dump,
            keep_classes=keep_classes,
            class_types=class_types,
            language=language,
            max_chain=max_chain,
            on_error=on_error,
            progress=not no_progress,
        )
    except DumpFormatError as e:
        _fail(f"{e} (use --on-error skip to skip such lines)")
    elapsed = time.time() - start
    kept_types = {q: class_types.get(q, "MISC") for q in keep_classes}
    kb.to_disk(
        out,
        meta={
            "source": SOURCE,
            "dump": str(dump),
            "language": language,
            "keep_classes": kept_types,
            "max_chain": max_chain,
            "import_stats": stats,
            "created": time.strftime("%Y-%m-%dT%H:%M:%S"),
        },
    )
    msg.good(f"wrote {out} ({len(kb)} entries) in {elapsed:.1f}s")
    rows = [
        (key, stats[key])
        for key in ("read", "items", "skipped", "malformed", "classes", "kept_classes", "kept", "no_label", "passes")
    ]
    rows += [(f"kept {t}", n) for t, n in stats["by_type"].items()]
    msg.table(rows, header=("", "count"), divider=True)
    if stats["malformed"]:
        msg.warn(f"skipped {stats['malformed']} malformed line(s)")
