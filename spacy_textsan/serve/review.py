"""The review page's work, as pure functions of the service: the page in its
reader's language, a result as the API answers it, a text rendered again with
a reviewer's decisions, the training record of a reviewed document, and the
documents of a report.jsonl read back for review."""

import csv
import html
import io
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from pydantic import TypeAdapter, ValidationError
from spacy.language import Language
from spacy.tokens import Span

from ..extensions import DIRECT, QUASI, add_reason
from ..pipeline import spans_key_of
from ..render.render import merge_replacements
from ..run.results import DocResult, failed_result, report_status, result_from_doc
from ..stages import stage_of
from ..visualize import UI_DEFAULT, UiText, ui_language
from .fields import field_path
from .models import ReportRow
from .work import Deadline

#: ``span._.source`` of a span that a reviewer decided.
REVIEW_SOURCE = "review"
#: The annotator of the training record of a reviewed document.
REVIEWER = "reviewer"


# -- the page in its reader's language --------------------------------------------------

#: An element whose text is a word of the page (``data-i18n="key"``): its start tag, then its text.
_I18N_TEXT = re.compile(r'(<[a-z][a-z0-9]*\b[^>]*?\sdata-i18n="([\w.-]+)"[^>]*>)([^<]*)')
#: A start tag with a translated attribute (``data-i18n-title="key"``).
_I18N_TAG = re.compile(r'<[a-z][a-z0-9]*\b[^>]*\sdata-i18n-[a-z-]+="[^"]*"[^>]*>')
_I18N_ATTR = re.compile(r'\sdata-i18n-([a-z-]+)="([\w.-]+)"')


def service_ui_language(languages: Sequence[str]) -> str | None:
    """The page's language that a service's languages (its pipelines', the
    first the default; ``textsan serve --lang``) say: the first, when the page
    speaks it, unless the service sanitizes English only (``textsan serve``
    alone): then nothing, and the reader's browser chooses."""
    if not languages or list(languages) == [UI_DEFAULT]:
        return None
    return ui_language(languages[0])


def page_html(template: str, lang: str, service_language: str | None = None) -> str:
    """The review page (``static/index.html``, its words English) in language
    ``lang``: ``<html lang>``, the text of each element ``data-i18n="key"``
    and the attribute X of each ``data-i18n-X="key"`` (what the page's script
    does when the reader picks another language). ``service_language``: the
    service's (:func:`service_ui_language`), as ``data-service-lang`` for the
    script's choice. English without a service language is the template itself."""
    ui = UiText(lang)
    page = _I18N_TEXT.sub(lambda m: m[1] + html.escape(ui.t(m[2]), quote=False), template)

    def attributes(m: re.Match[str]) -> str:
        tag = m[0]
        for name, key in _I18N_ATTR.findall(tag):
            attribute = f' {name}="{html.escape(ui.t(key), quote=True)}"'
            found = re.search(rf'\s{name}="[^"]*"', tag)
            tag = tag[: found.start()] + attribute + tag[found.end() :] if found else tag[:-1] + attribute + ">"
        return tag

    page = _I18N_TAG.sub(attributes, page)
    extra = f' data-service-lang="{service_language}"' if service_language else ""
    return re.sub(r'<html lang="[^"]*"', lambda _: f'<html lang="{ui.lang}"{extra}', page, count=1)


# -- results -----------------------------------------------------------------------------


def result_json(text: str, res: DocResult) -> dict[str, Any]:
    """A document's result as the API answers it (``Result`` of the contract):
    the input, the sanitized text, the report's status, the spans sorted by
    start (the report rows' records), the residual risk, the errors, and the
    offset map from the sanitized text to the input (None: failed)."""
    return {
        "text": text,
        "sanitized": res.sanitized,
        "status": report_status(res),
        "spans": sorted(res.spans, key=lambda s: (s["start"], s["end"])),
        "residual_risk": res.residual_risk,
        "errors": list(res.errors),
        "offset_map": res.offset_map,
    }


@dataclass
class Decision:
    """A reviewer's decision on one span: mask it or keep it; ``added``: a span
    the pipeline did not propose."""

    start: int
    end: int
    label: str
    masked: bool
    entity_id: str | None = None
    added: bool = False
    #: the pipeline's identifier type of the span (DIRECT, QUASI, ...), if known
    identifier_type: str | None = None

    @property
    def reason(self) -> str:
        return "review: added" if self.added else "review: masked" if self.masked else "review: kept"


def check_decisions(text: str, decisions: Sequence[Decision]) -> None:
    """``ValueError`` for a span outside the text or empty."""
    for i, d in enumerate(decisions):
        if not 0 <= d.start < d.end <= len(text):
            raise ValueError(f"span {i} is not a non-empty range of the text ({len(text)} characters)")


#: Components run again on a reviewed document besides the render stage (by factory).
RERUN_FACTORIES = ("residual_risk",)


def render_reviewed(nlp: Language, text: str, decisions: Sequence[Decision]) -> DocResult:
    """``text`` sanitized with the reviewer's ``decisions`` and nothing else:
    the tokenizer, the decided spans as the candidate span group (offsets
    widened to whole tokens), then only the components that measure what stays
    visible (``residual_risk``) and render (the generalizer: its leak sweep
    still masks every other occurrence of a masked string). No detector and
    no decision component runs. A failure gives the redaction notice (fail
    closed). Returns no Doc."""
    check_decisions(text, decisions)
    spans_key = spans_key_of(nlp)
    try:
        doc = nlp.make_doc(text)
        spans: dict[tuple[int, int], Span] = {}
        for d in decisions:
            span = doc.char_span(d.start, d.end, label=d.label, alignment_mode="expand")
            if span is None or not len(span):  # whitespace only: nothing to mask
                continue
            if (span.start_char, span.end_char) in spans:  # two decisions on one span: mask wins
                span = spans[(span.start_char, span.end_char)]
                span._.masked = bool(span._.masked or d.masked)
                add_reason(span, d.reason)
                continue
            span._.entity_id = d.entity_id
            if d.identifier_type:
                span._.identifier_type = d.identifier_type
            span._.source = REVIEW_SOURCE
            span._.masked = d.masked
            span._.reasons = [d.reason]
            spans[(span.start_char, span.end_char)] = span
        doc.spans[spans_key] = sorted(spans.values(), key=lambda s: (s.start_char, s.end_char))
        for name, proc in nlp.pipeline:
            if stage_of(proc) == "render" or nlp.get_pipe_meta(name).factory in RERUN_FACTORIES:
                doc = proc(doc)
        return result_from_doc(doc, spans_key)
    except Exception as e:
        return failed_result(text, f"rendering the reviewed document failed: {type(e).__name__}: {e}")


def training_record(doc_id: str, text: str, result: dict[str, Any]) -> dict[str, Any]:
    """The reviewed document as a TAB JSON document (what ``textsan convert``
    reads; a list of them is a TAB file): the reviewer's spans are the
    mentions of annotator ``reviewer``, a masked one a DIRECT or QUASI
    identifier (DIRECT as the pipeline typed it, else QUASI), a kept one
    NO_MASK. ``spans`` repeats them as ``{start, end, label, masked}``."""
    mentions, spans = [], []
    reviewed = [s for s in result["spans"] if s.get("source") == REVIEW_SOURCE]
    for i, s in enumerate(reviewed):
        masked = s["masked"] is not False
        identifier = (DIRECT if s.get("identifier_type") == DIRECT else QUASI) if masked else "NO_MASK"
        mentions.append(
            {
                "entity_type": s["label"],
                "entity_mention_id": f"{doc_id}_em{i + 1}",
                "start_offset": s["start"],
                "end_offset": s["end"],
                "span_text": text[s["start"] : s["end"]],
                "edit_type": "check",
                "identifier_type": identifier,
                "entity_id": s.get("entity_id") or f"{doc_id}_e{i + 1}",
                "confidential_status": "NOT_CONFIDENTIAL",
            }
        )
        spans.append({"start": s["start"], "end": s["end"], "label": s["label"], "masked": masked})
    return {
        "doc_id": doc_id,
        "text": text,
        "annotations": {REVIEWER: {"entity_mentions": mentions}},
        "spans": spans,
    }


# -- answers without originals ----------------------------------------------------


#: The numbers of ``residual_risk`` (its other fields list terms of the text).
RESIDUAL_NUMBERS = ("k", "kanon_k", "n_background", "min_k", "reached")


def without_originals(result: dict[str, Any]) -> dict[str, Any]:
    """A result (:func:`result_json`) without any original string: no text,
    spans without their text and knowledge-base entry, reasons and errors
    reduced to their kind (their detail may quote the text: ``kanon: 'Oslo'
    appears in 2 records``), the residual risk reduced to its numbers. What
    stays: the sanitized text, offsets, labels, decisions, replacements,
    scores."""
    risk = result.get("residual_risk")
    return {
        **result,
        "text": None,
        "spans": [
            {
                **s,
                "text": None,
                "kb_id": None,
                "kb_chain": None,
                "reasons": kinds(s.get("reasons") or []),
            }
            for s in result["spans"]
        ],
        "residual_risk": None if risk is None else {k: risk[k] for k in RESIDUAL_NUMBERS if k in risk},
        "errors": kinds(result["errors"]),
    }


def kinds(messages: Iterable[str]) -> list[str]:
    """The kind of each reason or error: what comes before its first colon or
    quote (``kanon``, ``RuntimeError``); a message that begins with a quote has none."""
    found = (re.split(r"[:'\"]", m, maxsplit=1)[0].strip() for m in messages)
    return [kind for kind in found if kind]


# -- a report.jsonl read back -----------------------------------------------------

_ROW = TypeAdapter(ReportRow)


def report_documents(
    report_jsonl: str, sanitized: dict[str, str] | None = None, deadline: Deadline | None = None
) -> list[dict[str, Any]]:
    """The documents of a ``report.jsonl`` (one per line that has spans or a
    status; skipped input rows are listed with status ``skipped``). The
    original text is rebuilt where the sanitized copy of its file is given
    (``sanitized``: file name -> content) and the report's replacements are
    found in it in order; otherwise ``text`` is None (the report alone holds
    only the spans). Each line is read as a :class:`~.models.ReportRow`
    (types, finite numbers, spans that are ranges of their text);
    ``ValueError`` names a line that is not one."""
    documents = []
    copies = _CopyIndex(sanitized or {})
    for n, line in enumerate(report_jsonl.splitlines(), 1):
        if deadline is not None:
            deadline.check()
        if not line.strip():
            continue
        try:
            row = _ROW.validate_json(line)
        except ValidationError as e:
            raise ValueError(f"report line {n}: {_row_error(e)}") from None
        spans = [s.model_dump(exclude_unset=True) for s in row.spans]
        text = None
        if row.status not in ("failed", "skipped"):
            copy = copies.field(row.file, row)
            text = None if copy is None else original_text(copy, spans)
        documents.append(
            {
                "file": row.file,
                "doc_id": "" if row.doc_id is None else str(row.doc_id),
                "field": row.field,
                "text": text,
                "spans": spans,
                "status": row.status,
            }
        )
    return documents


def _row_error(e: ValidationError) -> str:
    first = e.errors(include_url=False, include_input=False)[0]
    if first["type"] == "json_invalid":
        return f"not JSON ({first['msg'].removeprefix('Invalid JSON: ')})"
    where = field_path(first["loc"], extra=first["type"] == "extra_forbidden", models=[ReportRow])
    more = f" (and {e.error_count() - 1} more)" if e.error_count() > 1 else ""
    return f"{where + ': ' if where else ''}{first['msg'].removeprefix('Value error, ')}{more}"


def original_text(sanitized: str, spans: Iterable[dict[str, Any]]) -> str | None:
    """The text a sanitized text was rendered from, given the spans of its
    report (their original ``text`` and ``replacement``); None when the
    replacements are not where the spans put them."""
    masked = [s for s in spans if s.get("masked") is not False and s.get("replacement") is not None]
    if any(s.get("text") is None for s in masked):
        return None
    merged = merge_replacements([(s["start"], s["end"], s["replacement"]) for s in masked])
    chars: dict[int, str] = {}
    for s in masked:
        for i, ch in enumerate(s["text"]):
            chars.setdefault(s["start"] + i, ch)
    out: list[str] = []
    pos = san = 0
    for start, end, rep in merged:
        kept = start - pos
        out.append(sanitized[san : san + kept])
        san += kept
        if sanitized[san : san + len(rep)] != rep or any(i not in chars for i in range(start, end)):
            return None
        out.append("".join(chars[i] for i in range(start, end)))
        san += len(rep)
        pos = end
    out.append(sanitized[san:])
    return "".join(out)


class _CopyIndex:
    """The sanitized copies of a report's files, by file name, read field by field."""

    def __init__(self, copies: dict[str, str]) -> None:
        self.copies = copies
        self._by_name = {PurePath(k).name: k for k in copies}
        self._tables: dict[str, list[dict[str, str]]] = {}
        self._lines: dict[str, list[str]] = {}

    def field(self, file: str, row: ReportRow) -> str | None:
        key = file if file in self.copies else self._by_name.get(PurePath(file).name)
        if key is None:
            return None
        content = self.copies[key]
        suffix = PurePath(file).suffix.lower()
        try:
            if suffix in (".jsonl", ".ndjson"):
                if row.line is None or row.line < 1:
                    return None
                if key not in self._lines:
                    self._lines[key] = content.splitlines()
                value = json.loads(self._lines[key][row.line - 1]).get(row.field)
                return value if isinstance(value, str) else None
            if suffix in (".csv", ".tsv"):
                if key not in self._tables:
                    delimiter = "\t" if suffix == ".tsv" else _sniff_delimiter(content)
                    self._tables[key] = list(csv.DictReader(io.StringIO(content, newline=""), delimiter=delimiter))
                if row.index is None:
                    return None
                value = self._tables[key][row.index].get(row.field)
                return value if isinstance(value, str) else None
            if suffix == ".json":
                return None  # TAB JSON: the sanitized copy is sanitized.jsonl, not the input's layout
            return content  # a text file is one document
        except (KeyError, IndexError, ValueError, TypeError, AttributeError, RecursionError, csv.Error):
            return None


def _sniff_delimiter(content: str) -> str:
    try:
        return csv.Sniffer().sniff(content[:4096], delimiters=",;|\t").delimiter
    except csv.Error:
        return ","
