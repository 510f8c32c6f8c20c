"""HTML view of candidate spans and masking decisions (displaCy span style)."""

import html
from collections.abc import Iterable

from spacy import displacy
from spacy.tokens import Doc, Span, SpanGroup

from .extensions import SPANS_KEY, get_candidates

DISPLAY_KEY = "textsan_display"


def decision_label(span: Span) -> str:
    """ "PERSON → [PERSON 1]" for a masked span, "ORG (kept)" for a kept one."""
    if span._.masked is False:
        return f"{span.label_} (kept)"
    if span._.replacement:
        return f"{span.label_} → {span._.replacement}"
    return f"{span.label_} (masked)"


def add_display_spans(doc: Doc, spans_key: str = SPANS_KEY) -> Doc:
    group = SpanGroup(doc, name=DISPLAY_KEY)
    for span in get_candidates(doc, spans_key):
        group.append(Span(doc, span.start, span.end, label=decision_label(span)))
    doc.spans[DISPLAY_KEY] = group
    return doc


def side_by_side(doc: Doc) -> str:
    """A two-column HTML table, one row per line of the original: the
    original with its masked stretches marked, and the sanitized line with
    the replacements marked (from ``doc._.offset_map``)."""
    text, sanitized = doc.text, doc._.sanitized_text or ""
    segments = doc._.offset_map or [[0, len(sanitized), 0, len(text)]]
    left: list[str] = []
    right: list[str] = []
    for s_start, s_end, o_start, o_end in segments:
        original, replacement = text[o_start:o_end], sanitized[s_start:s_end]
        if original == replacement:
            left.append(html.escape(original))
            right.append(html.escape(replacement))
        else:
            left.append(f"<del class='orig'>{html.escape(original)}</del>")
            right.append(f"<ins class='repl'>{html.escape(replacement)}</ins>")
    left_rows, right_rows = _split_lines("".join(left)), _split_lines("".join(right))
    if len(left_rows) != len(right_rows):  # a masked span across paragraphs: one row
        left_rows, right_rows = ["".join(left)], ["".join(right)]
    rows = zip(left_rows, right_rows, strict=False)
    return (
        "<table class='sbs'><tr><th>original</th><th>sanitized</th></tr>"
        + "".join(f"<tr><td>{a}</td><td>{b}</td></tr>" for a, b in rows)
        + "</table>"
    )


def _split_lines(marked: str) -> list[str]:
    """Paragraphs of the marked-up text (blank lines separate them)."""
    return marked.split("\n\n")


def residual_line(residual: dict | None) -> str | None:
    """One line on what stays visible: ``residual risk: k = 12 of 219 background records; narrowest: ...``."""
    if not residual:
        return None
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


def render_page(docs: Iterable[Doc], titles: Iterable[str], spans_key: str = SPANS_KEY) -> str:
    """One HTML page: per document its title, the spans with decisions and
    reasons, and the sanitized text."""
    parts: list[str] = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>spacy-textsan</title>"
        "<style>body{font-family:sans-serif;max-width:70em;margin:auto}"
        "pre{white-space:pre-wrap;background:#f6f6f6;padding:1em}"
        "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;font-size:90%;vertical-align:top}"
        ".sbs td{width:50%;white-space:pre-wrap}del.orig{background:#fdd;text-decoration:none}"
        "ins.repl{background:#dfd;text-decoration:none}</style>"
        "</head><body><h1>spacy-textsan</h1>"
    ]
    for doc, title in zip(docs, titles, strict=False):
        add_display_spans(doc, spans_key)
        parts.append(f"<h2>{html.escape(title)}</h2>")
        if (summary := residual_line(doc._.residual_risk)) is not None:
            parts.append(f"<p class='residual'>{html.escape(summary)}</p>")
        parts.append(displacy.render(doc, style="span", options={"spans_key": DISPLAY_KEY}, page=False))
        parts.append(
            "<table><tr><th>span</th><th>type</th><th>entity</th><th>source</th>"
            "<th>decision</th><th>replacement</th><th>reasons</th></tr>"
        )
        for span in get_candidates(doc, spans_key):
            decision = "kept" if span._.masked is False else "masked"
            parts.append(
                "<tr>"
                + "".join(
                    f"<td>{html.escape(str(v))}</td>"
                    for v in (
                        span.text,
                        span.label_,
                        span._.entity_id or "",
                        span._.source or "",
                        decision,
                        span._.replacement or "",
                        "; ".join(span._.reasons or []),
                    )
                )
                + "</tr>"
            )
        parts.append("</table><h3>Original and sanitized, side by side</h3>")
        parts.append(side_by_side(doc))
    parts.append("</body></html>")
    return "\n".join(parts)
