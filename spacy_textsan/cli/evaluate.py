"""``textsan evaluate``: the TAB metrics of a pipeline or of a masked_spans.json."""

import datetime
import platform
import time
from pathlib import Path

import srsly
import typer
from tqdm import tqdm
from wasabi import msg

from ..about import __version__
from ..io import write_json
from ..risk.lm_backends import WordfreqBackend, token_weighting
from ..run import sanitize_texts
from ..tab import TabFormatError, read_tab
from ..tab import evaluate as tab_evaluate
from .numbers import MAX_BATCH, MAX_COUNT, number_option
from .options import LANG_HELP, PIPELINE_HELP, check_lang, load_or_fail, parse_settings
from .util import fail as _fail


def evaluate(
    gold: Path = typer.Argument(..., help="TAB JSON file with gold annotations"),
    pipeline: str | None = typer.Option(None, "--pipeline", "-p", help=PIPELINE_HELP),
    lang: str | None = typer.Option(None, "--lang", help=LANG_HELP),
    masked: Path | None = typer.Option(
        None, "--masked", help="Score an existing masked_spans.json instead of running a pipeline"
    ),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write the metrics as JSON here"),
    limit: int = number_option(
        0, "--limit", low=1, high=MAX_COUNT, off=0, off_means="all", help="Only the first N documents"
    ),
    batch_size: int = number_option(32, "--batch-size", low=1, high=MAX_BATCH, help="Documents per batch"),
    settings: list[str] = typer.Option([], "--set", help="Config override section.key=value (repeatable)"),
    weights: str = typer.Option(
        "uniform",
        "--weights",
        help="Token weights of the weighted precision: uniform or wordfreq (information content)",
    ),
):
    """TAB metrics (Pilán et al. 2022): token recall, ERdi, ERqi, precision, weighted precision, per type."""

    try:
        docs = read_tab(gold)
    except (TabFormatError, OSError) as e:
        _fail(str(e))
    if limit:
        docs = docs[:limit]
    timing = {}
    if masked is not None:
        try:
            pred = {k: [tuple(x) for x in v] for k, v in srsly.read_json(masked).items()}
        except (ValueError, OSError, AttributeError, TypeError) as e:
            _fail(f"{masked}: not a masked_spans.json mapping doc_id -> [[start, end], ...] ({e})")
        ids = {d.doc_id for d in docs}
        pred = {k: v for k, v in pred.items() if k in ids}
    else:
        overrides = parse_settings(settings)
        nlp = load_or_fail(pipeline, overrides, overrides, lang=check_lang(lang))
        start = time.time()
        results = list(
            tqdm(
                sanitize_texts(nlp, (d.text for d in docs), batch_size=batch_size),
                total=len(docs),
                desc="sanitizing",
                unit="doc",
                leave=False,
                disable=None,
            )
        )
        elapsed = time.time() - start
        pred = {d.doc_id: r.masked for d, r in zip(docs, results, strict=False)}
        n_chars = sum(len(d.text) for d in docs)
        timing = {
            "seconds": round(elapsed, 3),
            "docs_per_s": round(len(docs) / elapsed, 3),
            "chars_per_s": round(n_chars / elapsed, 1),
        }
    if weights not in ("uniform", "wordfreq"):
        raise typer.BadParameter("--weights must be uniform or wordfreq")
    weight_fn = None
    if weights == "wordfreq":
        weight_fn = token_weighting(WordfreqBackend())
    try:
        metrics = tab_evaluate(docs, pred, weights=weight_fn)
    except KeyError as e:
        _fail(str(e))
    rows = [
        (name, f"{metrics[key]:.3f}")
        for name, key in [
            ("token recall (di+qi)", "recall"),
            ("token recall DIRECT", "recall_direct"),
            ("token recall QUASI", "recall_quasi"),
            ("mention recall", "mention_recall"),
            ("ERdi", "er_di"),
            ("ERqi", "er_qi"),
            ("precision", "precision"),
        ]
    ]
    if metrics["weighted_precision"] is not None:
        rows.append(("weighted precision (wordfreq)", f"{metrics['weighted_precision']:.3f}"))
    rows += [(f"recall {t}", f"{v:.3f}") for t, v in sorted(metrics["per_type_recall"].items())]
    rows += [(k, str(v)) for k, v in timing.items()]
    msg.table(rows, header=("metric", "value"), divider=True, title=f"{gold.name}: {metrics['n_docs']} documents")
    if output:
        write_json(
            output,
            {
                "gold": str(gold),
                "pipeline": pipeline or ("masked:" + str(masked) if masked else "default zero-shot"),
                "date": datetime.date.today().isoformat(),
                "machine": f"{platform.machine()} {platform.system()}",
                "spacy_textsan": __version__,
                "weights": weights,
                "metrics": metrics,
                "timing": timing,
            },
        )
        msg.good(f"wrote {output}")
