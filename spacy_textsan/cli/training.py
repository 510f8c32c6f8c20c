"""``textsan convert`` and ``textsan silver``: the training data of project.yml."""

from pathlib import Path

import spacy
import typer
from spacy.tokens import DocBin
from tqdm import tqdm
from wasabi import msg

from ..io import InputError
from ..pipeline import load_pipeline
from ..tab.reader import TabFormatError, read_tab
from ..training.convert import ALL_IDENTIFIERS, HOLDOUT_PARTS, convert_tab
from ..training.silver import SILVER_CONFIG, annotate_silver, read_texts
from .numbers import MAX_COUNT, number_option
from .options import parse_settings
from .util import fail as _fail


def convert_cmd(
    inputs: list[Path] = typer.Argument(..., help="TAB JSON file(s)"),
    output: Path = typer.Option(..., "--output", "-o", help="DocBin to write (.spacy)"),
    annotator: str = typer.Option("all", "--annotator", help="all (one Doc per annotator), first, or a name"),
    identifiers: str = typer.Option(
        "DIRECT,QUASI,NO_MASK,UNKNOWN",
        "--identifiers",
        help="Identifier types whose mentions become doc.ents (e.g. DIRECT,QUASI)",
    ),
    exclude_docs: list[Path] = typer.Option(
        [], "--exclude-docs", help="TAB file(s) whose doc_ids are left out (e.g. dev.json)"
    ),
    mentions_only: bool = typer.Option(
        False, "--mentions-only", help="Mentions without identifier type / entity id (dev127_mentions_only)"
    ),
    holdout_every: int = number_option(
        0,
        "--holdout-every",
        low=0,
        high=MAX_COUNT,
        help="Hold out about one document in N for validation (CRC-32 of the doc_id; 0: none, 1: refused)",
    ),
    holdout: str = typer.Option(
        "exclude", "--holdout", help="exclude: write the training part; only: write the held-out validation part"
    ),
    lang: str = typer.Option("en", "--lang", help="Language of the tokenizer"),
) -> None:
    """Convert TAB JSON to a .spacy DocBin: gold entities + the textsan_gold span group."""
    idents = tuple(i.strip() for i in identifiers.split(",") if i.strip())
    bad = [i for i in idents if i not in ALL_IDENTIFIERS]
    if bad or not idents:
        _fail(f"--identifiers takes {', '.join(ALL_IDENTIFIERS)}, not {identifiers!r}")
    if holdout_every == 1:  # every document held out: nothing left to train on
        _fail(f"--holdout-every takes 0 (no split) or 2 or more, not {holdout_every}")
    if holdout not in HOLDOUT_PARTS:
        _fail(f"--holdout takes {', '.join(HOLDOUT_PARTS)}, not {holdout!r}")
    try:
        exclude_ids = {d.doc_id for p in exclude_docs for d in read_tab(p, mentions_only=True)}
        stats = convert_tab(
            spacy.blank(lang),
            inputs,
            output,
            annotator=annotator,
            identifiers=idents,
            exclude_ids=exclude_ids,
            mentions_only=mentions_only,
            holdout_every=holdout_every,
            holdout=holdout,
        )
    except TabFormatError as e:
        _fail(str(e))
    except OSError as e:
        _fail(f"{e.filename}: {e.strerror}")
    msg.good(
        f"wrote {output}: {stats['docs']} docs, {stats['tokens']} tokens, {stats['ents']} entities, "
        f"{stats['mentions']} mentions"
    )


def silver_cmd(
    inputs: list[Path] = typer.Argument(..., help="Unlabeled documents: files (TXT, CSV, JSONL, TAB JSON) or folders"),
    output: Path = typer.Option(..., "--output", "-o", help="Silver DocBin to write (.spacy)"),
    pipeline: str | None = typer.Option(None, "--pipeline", help="Labelling pipeline (default: configs/silver.cfg)"),
    field: str | None = typer.Option(None, "--field", help="JSONL field with the text"),
    column: list[str] = typer.Option([], "--column", help="CSV column with the text (repeatable)"),
    setting: list[str] = typer.Option([], "--set", help="Config override section.key=value"),
    exclude_docs: list[Path] = typer.Option(
        [], "--exclude-docs", help="TAB file(s) whose doc_ids are left out (e.g. the dev set)"
    ),
) -> None:
    """Label unlabeled documents with a sanitization pipeline into a silver DocBin."""
    try:
        nlp = load_pipeline(pipeline or str(SILVER_CONFIG), parse_settings(setting))
        exclude_ids = {d.doc_id for p in exclude_docs for d in read_tab(p, mentions_only=True)}
        texts = list(read_texts(inputs, field, column, exclude_ids))
    except (InputError, TabFormatError) as e:
        _fail(str(e))
    except (OSError, ValueError) as e:
        _fail(f"cannot load the labelling pipeline: {e}")
    if not texts:
        _fail(f"no text found in {', '.join(map(str, inputs))}")
    db = DocBin(store_user_data=True)
    failed = 0
    for source, doc, err in tqdm(annotate_silver(nlp, texts), total=len(texts), desc="silver", unit="doc"):
        if doc is None:
            failed += 1
            msg.warn(f"{source}: left out ({err})")
        else:
            db.add(doc)
    output.parent.mkdir(parents=True, exist_ok=True)
    db.to_disk(output)
    msg.good(f"wrote {output}: {len(db)} silver docs ({failed} left out)")
