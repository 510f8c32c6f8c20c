"""Read and validate Text Anonymization Benchmark (TAB) JSON files.

TAB's format is a JSON list of documents::

    {"doc_id": "...", "text": "...", "dataset_type": "dev", "meta": {...},
     "annotations": {"annotator1": {"entity_mentions": [
         {"entity_type": "PERSON", "entity_mention_id": "...", "start_offset": 0,
          "end_offset": 8, "span_text": "John Doe", "edit_type": "check",
          "identifier_type": "DIRECT", "entity_id": "...",
          "confidential_status": "NOT_CONFIDENTIAL"}, ...]}}}

:func:`read_tab` / :func:`parse_tab` check the structure and raise
:class:`TabFormatError` with the file name and the location of the problem.
Document and mention indices in error messages are 0-based positions in the
JSON lists. A document is named by its position, never by its ``doc_id``, and
a mention by its position and offsets, never by its text: both are data of
the file (a doc_id may be a person's name). :func:`tab_to_docs` turns the
documents into spaCy ``Doc`` objects that carry the gold mentions in one span
group per annotator.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import spacy
from spacy.language import Language
from spacy.tokens import Doc

from ..extensions import DIRECT, NO_MASK, QUASI
from ..io import InputError, JsonSyntaxError, UndecodableError, id_string, read_text, scan_tab_json
from ..io.field_names import looks_like_name
from ..io.jsonl import json_type

#: The identifier types allowed in a TAB gold file.
TAB_IDENTIFIER_TYPES = (DIRECT, QUASI, NO_MASK)
UNKNOWN_IDENTIFIER = "UNKNOWN"  # mentions-only files (read_tab(..., mentions_only=True))

#: Prefix of the span groups that hold the gold mentions (one group per annotator).
GOLD_SPANS_PREFIX = "tab_gold_"

#: ``doc.user_data`` key holding the TAB doc_id of a Doc made by :func:`tab_to_docs`.
DOC_ID_KEY = "tab_doc_id"


class TabFormatError(ValueError):
    """A TAB file (or loaded JSON object) does not follow TAB's format."""


@dataclass
class GoldMention:
    """One annotated mention; ``text`` is ``document.text[start:end]``."""

    start: int
    end: int
    text: str
    entity_type: str
    identifier_type: str
    entity_id: str
    annotator: str
    mention_id: str | None = None
    confidential_status: str | None = None


@dataclass
class TabDocument:
    """One TAB document: its text and, per annotator, its mentions in file order."""

    doc_id: str
    text: str
    dataset_type: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    annotations: dict[str, list[GoldMention]] = field(default_factory=dict)


def read_tab(path: str | Path, mentions_only: bool = False, encoding: str | None = None) -> list[TabDocument]:
    """Read and validate a TAB JSON file.

    ``mentions_only=True`` accepts files whose mentions have no identifier
    type and no entity id (``dev127_mentions_only.json``): the identifier type
    becomes ``UNKNOWN`` and every mention its own entity. Such files are
    training material for detection, not gold for masking metrics.

    The file is decoded and parsed as ``textsan sanitize`` reads TAB JSON
    (:func:`spacy_textsan.io.read_text`, :func:`spacy_textsan.io.scan_tab_json`):
    UTF-8 with or without a BOM, UTF-16/32 with a BOM, or ``encoding``; an
    integer ``doc_id`` is read as its string.

    Raises :class:`TabFormatError` for an unreadable or empty file, bytes that
    the encoding cannot decode (with the byte offset), invalid JSON (with line
    and column) and structural problems (see :func:`parse_tab`).
    """
    source = str(path)
    try:
        # No binary sniffing: a binary file fails on its first byte that is not text.
        text, _ = read_text(path, encoding, detect_binary=False)
        documents = scan_tab_json(Path(path), text)
    except UndecodableError as err:
        what = "UTF-8" if err.codec == "utf-8" else err.encoding
        raise TabFormatError(
            f"{source}: not {what} text: invalid byte 0x{err.byte:02x} at byte offset {err.offset}"
        ) from None
    except JsonSyntaxError as err:
        raise TabFormatError(f"{source}: invalid JSON at line {err.line}, column {err.column}: {err.msg}") from None
    except InputError as err:
        raise TabFormatError(f"{source}: {err.reason}") from None
    return parse_tab([_string_id(document) for _, document in documents], source=source, mentions_only=mentions_only)


def _string_id(document: Any) -> Any:
    """``document`` with an integer ``doc_id`` as its string, as ``textsan sanitize``
    reads it (:func:`spacy_textsan.io.id_string`), so that a file it sanitizes can be
    evaluated; anything else is left to :func:`parse_tab` to check."""
    if isinstance(document, dict) and not isinstance(document.get("doc_id"), str):
        doc_id = id_string(document.get("doc_id"))
        if doc_id is not None:
            return {**document, "doc_id": doc_id}
    return document


def parse_tab(obj: Any, source: str = "<tab>", mentions_only: bool = False) -> list[TabDocument]:
    """Validate already-loaded TAB JSON and convert it to :class:`TabDocument` objects.

    Checks that the top level is a list; that every document has a unique
    string ``doc_id``, a string ``text`` and an ``annotations`` dict (possibly
    empty) mapping annotator names to ``{"entity_mentions": [...]}``; that
    every mention has a string ``entity_type`` and ``entity_id``, an
    ``identifier_type`` in DIRECT/QUASI/NO_MASK and integer offsets with
    ``0 <= start_offset < end_offset <= len(text)``; and that no entity id is
    used by two annotators of the same document (TAB's evaluation script
    refuses that too). ``source`` names the input in error messages.
    """
    if not isinstance(obj, list):
        raise TabFormatError(f"{source}: top level must be a list of documents, got {type(obj).__name__}")
    docs: list[TabDocument] = []
    seen_ids: dict[str, int] = {}
    for index, raw in enumerate(obj):
        doc = _parse_document(raw, index, source, mentions_only)
        if doc.doc_id in seen_ids:
            # Not the doc_id itself: a value of the file.
            raise TabFormatError(f"{source}: document {index}: duplicate doc_id (also document {seen_ids[doc.doc_id]})")
        seen_ids[doc.doc_id] = index
        docs.append(doc)
    return docs


def _parse_document(raw: Any, index: int, source: str, mentions_only: bool = False) -> TabDocument:
    """Validate one document (``index`` is its position in the file)."""
    where = f"{source}: document {index}"
    if not isinstance(raw, dict):
        raise TabFormatError(f"{where}: must be an object, got {type(raw).__name__}")
    doc_id = raw.get("doc_id")
    if not isinstance(doc_id, str):
        raise TabFormatError(f"{where}: missing or non-string 'doc_id'")
    text = raw.get("text")
    if not isinstance(text, str):
        raise TabFormatError(f"{where}: missing or non-string 'text'")
    dataset_type = raw.get("dataset_type")
    if dataset_type is not None and not isinstance(dataset_type, str):
        raise TabFormatError(f"{where}: 'dataset_type' must be a string")
    meta = raw.get("meta")
    if meta is None:
        meta = {}
    elif not isinstance(meta, dict):
        raise TabFormatError(f"{where}: 'meta' must be an object")
    if "annotations" not in raw:
        raise TabFormatError(f"{where}: missing 'annotations'")
    raw_annotations = raw["annotations"]
    if not isinstance(raw_annotations, dict):
        raise TabFormatError(f"{where}: 'annotations' must be an object")

    annotations: dict[str, list[GoldMention]] = {}
    entity_owner: dict[str, str] = {}  # entity_id -> annotator that uses it
    for annotator, raw_ann in raw_annotations.items():
        if not isinstance(raw_ann, dict) or not isinstance(raw_ann.get("entity_mentions"), list):
            raise TabFormatError(f"{where}, {annotator}: must be an object with an 'entity_mentions' list")
        mentions = []
        for m_index, raw_mention in enumerate(raw_ann["entity_mentions"]):
            m_where = f"{where}, {annotator} mention {m_index}"
            if mentions_only and isinstance(raw_mention, dict):
                raw_mention = {
                    **raw_mention,
                    "entity_id": raw_mention.get("entity_id") or f"{annotator}_m{m_index}",
                    "identifier_type": raw_mention.get("identifier_type") or UNKNOWN_IDENTIFIER,
                }
            mention = _parse_mention(raw_mention, text, annotator, m_where, mentions_only)
            owner = entity_owner.setdefault(mention.entity_id, annotator)
            if owner != annotator:
                raise TabFormatError(
                    f"{m_where}: entity_id {_value(mention.entity_id)} is also used by "
                    f"annotator {owner!r} (entity ids must be unique per annotator)"
                )
            mentions.append(mention)
        annotations[annotator] = mentions
    return TabDocument(
        doc_id=doc_id,
        text=text,
        dataset_type=dataset_type,
        meta=meta,
        annotations=annotations,
    )


def _value(value: Any) -> str:
    """``'MAYBE'`` or ``None`` for a message, or the JSON type of a value that
    does not look like a name (:func:`~spacy_textsan.io.field_names.looks_like_name`):
    a value of the file may be data."""
    if value is None or (isinstance(value, str) and looks_like_name(value)):
        return repr(value)
    return f"({json_type(value)}, not shown: it may be data)"


def _parse_mention(raw: Any, text: str, annotator: str, where: str, mentions_only: bool = False) -> GoldMention:
    """Validate one mention (``where`` locates it in error messages)."""
    if not isinstance(raw, dict):
        raise TabFormatError(f"{where}: must be an object, got {type(raw).__name__}")
    for key in ("entity_type", "entity_id"):
        if not isinstance(raw.get(key), str):
            raise TabFormatError(f"{where}: missing or non-string {key!r}")
    identifier_type = raw.get("identifier_type")
    if identifier_type not in TAB_IDENTIFIER_TYPES and not (mentions_only and identifier_type == UNKNOWN_IDENTIFIER):
        raise TabFormatError(
            f"{where}: identifier_type {_value(identifier_type)} not in {', '.join(TAB_IDENTIFIER_TYPES)}"
        )
    offsets = []
    for key in ("start_offset", "end_offset"):
        value = raw.get(key)
        if isinstance(value, bool) or not isinstance(value, int):
            raise TabFormatError(f"{where}: missing or non-integer {key!r}")
        offsets.append(value)
    start, end = offsets
    if start < 0:
        raise TabFormatError(f"{where}: negative start_offset {start}")
    if end > len(text):
        raise TabFormatError(f"{where}: end_offset {end} beyond text length {len(text)}")
    if start >= end:
        raise TabFormatError(f"{where}: start_offset {start} not before end_offset {end}")
    for key in ("entity_mention_id", "confidential_status"):
        if raw.get(key) is not None and not isinstance(raw[key], str):
            raise TabFormatError(f"{where}: {key!r} must be a string")
    return GoldMention(
        start=start,
        end=end,
        text=text[start:end],
        entity_type=raw["entity_type"],
        identifier_type=identifier_type,
        entity_id=raw["entity_id"],
        annotator=annotator,
        mention_id=raw.get("entity_mention_id"),
        confidential_status=raw.get("confidential_status"),
    )


def tab_doc_to_doc(nlp: Language, tab_doc: TabDocument, index: int | None = None) -> Doc:
    """Tokenize one TAB document (``nlp.make_doc``: tokenizer only) and attach its gold.

    Every annotator's mentions go to the span group
    ``doc.spans["tab_gold_" + annotator]`` (created even when empty), in file
    order, each span with ``label_`` = entity type, ``kb_id_`` = entity id and
    ``id_`` = identifier type; character offsets are expanded to token
    boundaries. The doc_id is stored in ``doc.user_data["tab_doc_id"]``. Gold
    information is deliberately not written to span ``._`` extensions: spaCy
    stores those by character offsets, so they would clash with predicted spans.
    A mention that covers no token (only the whitespace after a token) cannot
    become a span: it is skipped with a warning that names the document by
    ``index`` (its 0-based position in the file, when given) and the mention
    by its position and offsets, not by its doc_id or text.
    """
    doc = nlp.make_doc(tab_doc.text)
    doc.user_data[DOC_ID_KEY] = tab_doc.doc_id
    document = "a TAB document" if index is None else f"TAB document {index}"
    for annotator, mentions in tab_doc.annotations.items():
        spans = []
        for m_index, mention in enumerate(mentions):
            span = doc.char_span(
                mention.start,
                mention.end,
                label=mention.entity_type,
                kb_id=mention.entity_id,
                span_id=mention.identifier_type,
                alignment_mode="expand",
            )
            if span is None or len(span) == 0:
                warnings.warn(
                    f"{document}, {annotator} mention {m_index} "
                    f"(start_offset {mention.start}, end_offset {mention.end}): covers no token; skipped",
                    stacklevel=2,
                )
                continue
            spans.append(span)
        doc.spans[GOLD_SPANS_PREFIX + annotator] = spans
    return doc


def tab_to_docs(nlp: Language, tab_docs: Iterable[TabDocument]) -> list[Doc]:
    """Convert TAB documents to spaCy Docs with gold span groups (see :func:`tab_doc_to_doc`)."""
    return [tab_doc_to_doc(nlp, tab_doc, index) for index, tab_doc in enumerate(tab_docs)]


@spacy.registry.misc("spacy_textsan.tab_reader.v1")
def create_tab_reader(path: str | Path) -> Callable[[Language], Iterator[Doc]]:
    """A corpus-like reader for configs: ``reader(nlp)`` yields the Docs of a TAB file.

    The file is read and validated when the reader is called, lazily, one Doc
    at a time (see :func:`tab_doc_to_doc`).
    """

    def read_docs(nlp: Language) -> Iterator[Doc]:
        for index, tab_doc in enumerate(read_tab(path)):
            yield tab_doc_to_doc(nlp, tab_doc, index)

    return read_docs
