"""The read-only page of ``textsan visualize``: the review page's view of each
document, written as one static HTML file.

Each document is shown exactly as written: its characters, in order, as text
between ``<mark>`` elements, one per candidate span (never a re-joined token
stream), with ``white-space: pre-wrap`` so that line and paragraph breaks stay.
A span's type is a badge drawn after it by the stylesheet (``::after`` with the
``data-label`` attribute), in the flow of the line: it never covers a character.
Beside it, the sanitized text with its replacements marked (from
``doc._.offset_map``), and a table of the spans with their decisions, reasons
and risk. The stylesheet is the review page's (``serve/static/review.css``),
embedded so that the file works offline and alone; the page has no script.
"""

import html
import json
from collections.abc import Iterable
from pathlib import Path

from spacy.tokens import Doc, Span

from .extensions import SPANS_KEY, get_candidates

#: The review page's stylesheet (read as a file: nothing here imports the service).
STYLESHEET = Path(__file__).parent / "serve" / "static" / "review.css"


def text_html(text: str) -> str:
    """``text`` as HTML character data that a browser reads back unchanged:
    ``&``, ``<`` and ``>`` escaped, and carriage returns as ``&#13;`` (an HTML
    parser turns a raw CR or CR LF into LF)."""
    return html.escape(text, quote=False).replace("\r", "&#13;")


def decision_of(span: Span) -> str:
    """``kept`` for a span the decision left in clear, else ``masked``
    (undecided spans are masked by the generalizer)."""
    return "kept" if span._.masked is False else "masked"


def span_title(span: Span) -> str:
    """The tooltip of a span's mark: type, decision, replacement, reasons."""
    title = f"{span.label_} {decision_of(span)}"
    if span._.masked is not False and span._.replacement:
        title += f" → {span._.replacement}"
    if span._.reasons:
        title += " — " + "; ".join(span._.reasons)
    return title


def marked_text(text: str, spans: list[Span], prefix: str) -> str:
    """The original text with one ``<mark>`` per span (sorted by start; a span
    overlapping the previous one is shown from where that one ends)."""
    parts: list[str] = []
    pos = 0
    for i, span in enumerate(spans):
        start, end = max(span.start_char, pos), span.end_char
        if end <= start:
            continue
        parts.append(text_html(text[pos:start]))
        attrs = {
            "class": "span",
            "id": f"{prefix}-m{i}",
            "data-i": str(i),
            "data-label": span.label_,
            "data-decision": decision_of(span),
            "title": span_title(span),
        }
        attributes = "".join(f' {k}="{html.escape(v, quote=True)}"' for k, v in attrs.items())
        parts.append(f"<mark{attributes}>{text_html(text[start:end])}</mark>")
        pos = end
    parts.append(text_html(text[pos:]))
    return "".join(parts)


def sanitized_html(doc: Doc) -> str:
    """The sanitized text, each replacement in ``<ins class="repl">`` (from
    ``doc._.offset_map``: segments ``[s_start, s_end, o_start, o_end]``)."""
    text, sanitized = doc.text, doc._.sanitized_text or ""
    segments = doc._.offset_map or [[0, len(sanitized), 0, len(text)]]
    parts: list[str] = []
    for s_start, s_end, o_start, o_end in segments:
        piece = sanitized[s_start:s_end]
        if piece == text[o_start:o_end]:
            parts.append(text_html(piece))
        else:
            parts.append(f'<ins class="repl">{text_html(piece)}</ins>')
    return "".join(parts)


def residual_line(residual: dict | None) -> str | None:
    """One line on what stays visible: ``residual risk: k = 12 of 219 background records; narrowest: ...``."""
    if not residual:
        return None
    if residual.get("measured") is False:
        return f"residual risk: not measured ({residual.get('why') or 'the background does not hold this person'})"
    if residual.get("k") is None:
        return f"residual risk: unknown ({residual.get('error', 'no background')})"
    line = f"residual risk: k = {residual['k']} of {residual['n_background']} background records"
    if residual.get("narrowing"):
        line += "; narrowest visible: " + ", ".join(f"'{t}' ({n})" for t, n in residual["narrowing"])
    if residual.get("unknown"):
        line += "; unknown to the background: " + ", ".join(f"'{t}'" for t in residual["unknown"])
    if residual.get("min_k"):
        reached = "reached" if residual.get("reached") else "NOT reached"
        line += f"; min_k {residual['min_k']} {reached}"
    return line


def _cell(value: object, cls: str | None = None) -> str:
    attr = f' class="{cls}"' if cls else ""
    return f"<td{attr}>{text_html(str(value))}</td>"


def spans_table(spans: list[Span], prefix: str) -> str:
    """One row per span: its text (linked to its mark), type, entity, source,
    decision, replacement, reasons and risk."""
    head = "".join(
        f"<th>{h}</th>" for h in ("#", "span", "type", "entity", "source", "decision", "replacement", "reasons", "risk")
    )
    rows = [f'<table class="spans"><tr>{head}</tr>']
    for i, span in enumerate(spans):
        risk = json.dumps(span._.risk, ensure_ascii=False, sort_keys=True) if span._.risk else ""
        replacement = span._.replacement if span._.masked is not False else ""
        rows.append(
            f'<tr id="{prefix}-s{i}"><td><a href="#{prefix}-m{i}">{i + 1}</a></td>'
            + _cell(span.text, "text")
            + _cell(span.label_)
            + _cell(span._.entity_id or "")
            + _cell(span._.source or "")
            + _cell(decision_of(span))
            + _cell(replacement or "")
            + _cell("; ".join(span._.reasons or []))
            + _cell(risk)
            + "</tr>"
        )
    rows.append("</table>")
    return "".join(rows)


def document_html(doc: Doc, title: str, n: int, spans_key: str = SPANS_KEY) -> str:
    """The section of one document (``n``: its position, for element ids)."""
    prefix = f"d{n}"
    spans = sorted(get_candidates(doc, spans_key), key=lambda s: (s.start_char, s.end_char))
    masked = sum(1 for s in spans if s._.masked is not False)
    parts = [f'<article class="document" id="{prefix}"><h2>{text_html(title)}</h2>']
    summary = f"{len(spans)} spans: {masked} masked, {len(spans) - masked} kept"
    if (residual := residual_line(doc._.residual_risk)) is not None:
        summary += f"; {residual}"
    parts.append(f'<p class="residual">{text_html(summary)}</p>')
    parts.append(
        '<div class="panes"><section><h3>Original</h3>'
        f'<div class="doc original">{marked_text(doc.text, spans, prefix)}</div></section>'
        f'<section><h3>Sanitized</h3><div class="doc sanitized">{sanitized_html(doc)}</div></section></div>'
    )
    parts.append(spans_table(spans, prefix))
    parts.append("</article>")
    return "".join(parts)


def render_page(docs: Iterable[Doc], titles: Iterable[str], spans_key: str = SPANS_KEY) -> str:
    """One self-contained HTML page (stylesheet embedded, no script): per
    document its title, the text with its spans, the sanitized text, and the
    spans with their decisions, reasons and risk."""
    css = STYLESHEET.read_text(encoding="utf-8")
    parts = [
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>spacy-textsan</title>\n<style>\n{css}</style>\n</head>\n"
        '<body><header class="top"><h1>spacy-textsan</h1><span class="status">read-only view '
        "(textsan visualize); review and change the decisions with textsan serve</span></header>\n"
        '<main class="review">'
    ]
    for n, (doc, title) in enumerate(zip(docs, titles, strict=False), start=1):
        parts.append(document_html(doc, title, n, spans_key))
    parts.append("</main></body></html>\n")
    return "\n".join(parts)
