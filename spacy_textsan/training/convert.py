"""TAB JSON → spaCy training data (``.spacy`` DocBins).

Every Doc carries the gold of one annotator in two forms:

* ``doc.ents``: the mentions to learn to detect (by default all of them; with
  ``identifiers=("DIRECT", "QUASI")`` only those to mask), label = TAB entity
  type. Overlapping mentions keep the longest (:func:`spacy.util.filter_spans`).
* ``doc.spans["textsan_gold"]``: every mention, ``label_`` = entity type,
  ``id_`` = identifier type (DIRECT / QUASI / NO_MASK, or UNKNOWN for a
  mentions-only file), ``kb_id_`` = entity id: the targets of the
  supervised risk classifier.

With ``annotator="all"`` a document annotated by several annotators becomes
one Doc per annotator (spaCy's usual way to train on disagreeing
annotations); ``"first"`` takes the first annotator, any other value that
annotator only (documents without it are skipped).

``holdout_every = n`` splits the documents into a training part and a validation
part without reading any other file: a document is held out when the CRC-32 of
its doc_id is divisible by n (about one in n, the same documents whatever the
order or the other files). ``holdout = "exclude"`` writes the training part,
``"only"`` the validation part. The project trains on TAB train's training part
and picks its best model on the validation part, so TAB dev is never read
before the evaluation.
"""

import zlib
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from spacy.language import Language
from spacy.tokens import Doc, DocBin, Span
from spacy.util import filter_spans

from ..tab.reader import DOC_ID_KEY, TabDocument, read_tab

__all__ = ["GOLD_KEY", "ANNOTATOR_KEY", "tab_to_training_docs", "convert_tab", "docbin_stats", "is_held_out"]

GOLD_KEY = "textsan_gold"
ANNOTATOR_KEY = "tab_annotator"
ALL_IDENTIFIERS = ("DIRECT", "QUASI", "NO_MASK", "UNKNOWN")
HOLDOUT_PARTS = ("exclude", "only")


def check_holdout_every(every: int) -> None:
    """A split holds out about one document in ``every``: 2 or more."""
    if every < 2:
        raise ValueError(f"holdout_every must be 2 or more, not {every}")


def is_held_out(doc_id: str, every: int) -> bool:
    """Whether ``doc_id`` is in the validation part of a split that holds out about one document in ``every``."""
    check_holdout_every(every)
    return zlib.crc32(doc_id.encode("utf-8")) % every == 0


def _annotators(tab_doc: TabDocument, annotator: str) -> list[str]:
    names = list(tab_doc.annotations)
    if annotator == "all":
        return names
    if annotator == "first":
        return names[:1]
    return [annotator] if annotator in tab_doc.annotations else []


def tab_to_training_docs(
    nlp: Language,
    tab_docs: Iterable[TabDocument],
    *,
    annotator: str = "all",
    identifiers: Sequence[str] = ALL_IDENTIFIERS,
    exclude_ids: Iterable[str] = (),
) -> Iterator[Doc]:
    """Docs with gold entities and the ``textsan_gold`` span group (see the module doc)."""
    excluded = set(exclude_ids)
    keep = set(identifiers)
    for tab_doc in tab_docs:
        if tab_doc.doc_id in excluded:
            continue
        for name in _annotators(tab_doc, annotator):
            doc = nlp.make_doc(tab_doc.text)
            doc.user_data[DOC_ID_KEY] = tab_doc.doc_id
            doc.user_data[ANNOTATOR_KEY] = name
            spans: list[Span] = []
            for m in tab_doc.annotations[name]:
                span = doc.char_span(
                    m.start,
                    m.end,
                    label=m.entity_type,
                    kb_id=m.entity_id,
                    span_id=m.identifier_type,
                    alignment_mode="expand",
                )
                if span is not None and len(span):
                    spans.append(span)
            doc.spans[GOLD_KEY] = spans
            doc.ents = filter_spans([s for s in spans if s.id_ in keep])
            yield doc


def convert_tab(
    nlp: Language,
    paths: Sequence[str | Path],
    output: str | Path,
    *,
    annotator: str = "all",
    identifiers: Sequence[str] = ALL_IDENTIFIERS,
    exclude_ids: Iterable[str] = (),
    mentions_only: bool = False,
    holdout_every: int = 0,
    holdout: str = "exclude",
) -> dict[str, int]:
    """Convert TAB files into one DocBin at ``output``; returns counts.

    ``holdout_every`` (0: no split) and ``holdout`` choose the training or the
    validation part (see the module doc).
    """
    if holdout not in HOLDOUT_PARTS:
        raise ValueError(f"holdout must be one of {', '.join(HOLDOUT_PARTS)}, not {holdout!r}")
    if holdout_every:
        check_holdout_every(holdout_every)  # before anything is read
    db = DocBin(store_user_data=True)
    exclude_ids = set(exclude_ids)
    for path in paths:
        tab_docs = read_tab(path, mentions_only=mentions_only)
        if holdout_every:
            wanted = holdout == "only"
            tab_docs = [d for d in tab_docs if is_held_out(d.doc_id, holdout_every) == wanted]
        for doc in tab_to_training_docs(
            nlp, tab_docs, annotator=annotator, identifiers=identifiers, exclude_ids=exclude_ids
        ):
            db.add(doc)
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    db.to_disk(output)
    return docbin_stats(list(db.get_docs(nlp.vocab)))


def docbin_stats(docs: Sequence[Doc]) -> dict[str, int]:
    """Docs, tokens, entities and gold mentions (by identifier type)."""
    stats = {
        "docs": len(docs),
        "tokens": sum(len(d) for d in docs),
        "ents": sum(len(d.ents) for d in docs),
        "mentions": sum(len(d.spans.get(GOLD_KEY, [])) for d in docs),
    }
    for doc in docs:
        for span in doc.spans.get(GOLD_KEY, []):
            stats[f"mentions_{span.id_}"] = stats.get(f"mentions_{span.id_}", 0) + 1
    return stats
