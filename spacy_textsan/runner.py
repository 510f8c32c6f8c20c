"""Running a pipeline over many texts, failing closed.

A document whose processing raises (or that comes out without a sanitized
text) is never emitted in clear: its output is :data:`FAILED_TEXT`, its whole
text counts as masked, and the error is reported.
"""
import logging
from dataclasses import dataclass, field
from itertools import islice
from typing import Iterable, Iterator, List, Optional

from spacy.language import Language
from spacy.tokens import Doc

from .extensions import masked_offsets, spans_records, get_candidates
from .pipeline import spans_key_of

logger = logging.getLogger("spacy_textsan")

FAILED_TEXT = "[REDACTED: sanitization failed]"


@dataclass
class DocResult:
    sanitized: str
    masked: List[List[int]]
    spans: List[dict] = field(default_factory=list)
    errors: List[str] = field(default_factory=list)
    ok: bool = True
    decision: Optional[dict] = None
    risky_sets: List[dict] = field(default_factory=list)
    doc: Optional[Doc] = None
    #: the generalizer's map from the sanitized text back to the original (None: failed document)
    offset_map: Optional[List[List[int]]] = None

    @property
    def n_masked(self) -> int:
        return sum(1 for s in self.spans if s["masked"] is not False)


def result_from_doc(doc: Doc, spans_key: str, keep_doc: bool = False) -> DocResult:
    if doc._.sanitized_text is None:
        return failed_result(doc.text, "pipeline produced no sanitized text (is a generalizer in it?)")
    return DocResult(
        sanitized=doc._.sanitized_text,
        masked=masked_offsets(doc, spans_key),
        spans=spans_records(get_candidates(doc, spans_key)),
        errors=list(doc._.sanitize_errors or []),
        decision=doc._.decision_info,
        risky_sets=list(doc._.risky_sets or []),
        doc=doc if keep_doc else None,
        offset_map=doc._.offset_map,
    )


def failed_result(text: str, error: str) -> DocResult:
    return DocResult(sanitized=FAILED_TEXT, masked=[[0, len(text)]] if text else [], errors=[error], ok=False)


def sanitize_texts(nlp: Language, texts: Iterable[str], *, batch_size: int = 32, n_process: int = 1,
                   keep_docs: bool = False) -> Iterator[DocResult]:
    """One :class:`DocResult` per text, in input order."""
    spans_key = spans_key_of(nlp)
    it = iter(texts)
    chunk_size = max(1, batch_size) * max(1, n_process)
    while True:
        chunk = list(islice(it, chunk_size))
        if not chunk:
            return
        try:
            docs = list(nlp.pipe(chunk, batch_size=batch_size, n_process=n_process))
            results = [result_from_doc(d, spans_key, keep_docs) for d in docs]
        except Exception as batch_error:  # fail closed: retry one by one
            logger.warning("batch failed (%s); retrying documents one by one", batch_error)
            results = []
            for text in chunk:
                try:
                    results.append(result_from_doc(nlp(text), spans_key, keep_docs))
                except Exception as e:
                    logger.error("sanitization failed: %s: %s", type(e).__name__, e)
                    results.append(failed_result(text, f"{type(e).__name__}: {e}"))
        yield from results
