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

The words of both pages are data, one JSON file per language
(``serve/static/i18n/<code>.json``: ``{key: text}``, ``{name}`` placeholders,
``key.one`` / ``key.other`` for a count): :func:`ui_strings` reads them for this
page and for the service's (which renders the review page in the reader's
language), the review page's script fetches the same files. The span labels stay
TAB's codes (``PERSON``, ``LOC``: the data's labels); their names in the page's
language are a legend and part of each span's tooltip.
"""

import html
import json
import re
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from babel import Locale
from spacy.tokens import Doc, Span

from .extensions import SPANS_KEY, get_candidates

#: The review page's stylesheet (read as a file: nothing here imports the service).
STYLESHEET = Path(__file__).parent / "serve" / "static" / "review.css"
#: The words of the review page and of this page: ``<code>.json`` per language.
UI_STRINGS_DIR = Path(__file__).parent / "serve" / "static" / "i18n"
#: The language of a page when nothing chooses another, and of a word a language's file lacks.
UI_DEFAULT = "en"
#: The span labels the legend names, in its order (the review page's colours).
LEGEND_LABELS = ("PERSON", "CODE", "LOC", "ORG", "DEM", "DATETIME", "QUANTITY", "MISC")


# -- the pages' words -----------------------------------------------------------------------


@lru_cache(maxsize=1)
def ui_languages() -> tuple[str, ...]:
    """The languages the pages speak (a file each): English first, then the others by code."""
    codes = sorted(p.stem for p in UI_STRINGS_DIR.glob("*.json"))
    return (UI_DEFAULT, *(c for c in codes if c != UI_DEFAULT))


def ui_language(*candidates: str | None) -> str | None:
    """The first of ``candidates`` (language tags: ``fr``, ``fr-CH``, ``de_AT``;
    None skipped) that the pages speak, as its code; None when none is."""
    for tag in candidates:
        code = re.split(r"[-_]", tag.strip().lower(), maxsplit=1)[0] if tag else ""
        if code in ui_languages():
            return code
    return None


def _read_strings(code: str) -> dict[str, str]:
    path = UI_STRINGS_DIR / f"{code}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        raise ValueError(f"{path}: not an object of strings")
    return data


@lru_cache(maxsize=8)
def ui_strings(lang: str) -> dict[str, str]:
    """The words of the pages in ``lang`` (English's where its file lacks
    one). The same dict on every call: do not change it.

    RAISES (ValueError): a language the pages do not speak, listing those they do."""
    if lang not in ui_languages():
        raise ValueError(f"no page strings in {lang!r}: the pages speak {', '.join(ui_languages())}")
    words = _read_strings(UI_DEFAULT)
    return words if lang == UI_DEFAULT else {**words, **_read_strings(lang)}


_PLACEHOLDER = re.compile(r"\{(\w+)\}")


class UiText:
    """The pages' words in one language (``lang``: a tag; one they do not
    speak gives English): ``t(key, **values)`` fills ``{name}`` placeholders,
    ``plural(key, n, **values)`` picks ``key.one``, ``key.other``... by CLDR's
    plural rules of the language (babel; the review page: ``Intl.PluralRules``)."""

    def __init__(self, lang: str | None = UI_DEFAULT) -> None:
        self.lang = ui_language(lang) or UI_DEFAULT
        self.words = ui_strings(self.lang)

    def t(self, key: str, **values: object) -> str:
        template = self.words.get(key, key)
        return _PLACEHOLDER.sub(lambda m: str(values[m[1]]) if m[1] in values else m[0], template)

    def plural(self, key: str, n: int, **values: object) -> str:
        form = f"{key}.{Locale.parse(self.lang).plural_form(abs(n))}"
        return self.t(form if form in self.words else f"{key}.other", n=n, **values)

    def label_name(self, label: str) -> str:
        """The name of a span label (``lieu`` for ``LOC``); the label itself when the files have none."""
        return self.words.get(f"label.{label}", label)


ENGLISH = UiText()


def text_html(text: str) -> str:
    """``text`` as HTML character data that a browser reads back unchanged:
    ``&``, ``<`` and ``>`` escaped, and carriage returns as ``&#13;`` (an HTML
    parser turns a raw CR or CR LF into LF)."""
    return html.escape(text, quote=False).replace("\r", "&#13;")


def decision_of(span: Span) -> str:
    """``kept`` for a span the decision left in clear, else ``masked``
    (undecided spans are masked by the generalizer)."""
    return "kept" if span._.masked is False else "masked"


def span_title(span: Span, ui: UiText = ENGLISH) -> str:
    """The tooltip of a span's mark: type (and its name, but in English), decision, replacement, reasons."""
    decision = ui.t(f"decision.{decision_of(span)}")
    title = ui.t("span.title", label=span.label_, name=ui.label_name(span.label_), decision=decision)
    if span._.masked is not False and span._.replacement:
        title += f" → {span._.replacement}"
    if span._.reasons:
        title += " — " + "; ".join(span._.reasons)
    return title


def marked_text(text: str, spans: list[Span], prefix: str, ui: UiText = ENGLISH) -> str:
    """The original text with one ``<mark>`` per span (sorted by start; a span
    overlapping the previous one is shown from where that one ends). A kept
    span's ``data-kept`` is the word its badge adds to the label."""
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
            **({"data-kept": ui.t("decision.kept")} if decision_of(span) == "kept" else {}),
            "title": span_title(span, ui),
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


def residual_line(residual: dict | None, ui: UiText = ENGLISH) -> str | None:
    """One line on what stays visible: ``residual risk: k = 12 of 219 background records; narrowest: ...``."""
    if not residual:
        return None
    if residual.get("measured") is False:
        return ui.t("residual.not_measured_why", why=residual.get("why") or ui.t("residual.no_person"))
    if residual.get("k") is None:
        return ui.t("residual.unknown", error=residual.get("error", ui.t("residual.no_background")))
    line = ui.t("residual.k", k=residual["k"], n=residual["n_background"])
    if residual.get("narrowing"):
        line += ui.t("residual.narrowest", terms=", ".join(f"'{t}' ({n})" for t, n in residual["narrowing"]))
    if residual.get("unknown"):
        line += ui.t("residual.unknown_terms", terms=", ".join(f"'{t}'" for t in residual["unknown"]))
    if residual.get("min_k"):
        reached = "residual.min_k_reached" if residual.get("reached") else "residual.min_k_not_reached"
        line += ui.t(reached, min_k=residual["min_k"])
    return line


def _cell(value: object, cls: str | None = None) -> str:
    attr = f' class="{cls}"' if cls else ""
    return f"<td{attr}>{text_html(str(value))}</td>"


#: The columns of the spans' table: their words' keys ("#" is not a word).
COLUMNS = (
    "#",
    "column.span",
    "field.type",
    "field.entity",
    "field.source",
    "field.decision",
    "field.replacement",
    "column.reasons",
    "column.risk",
)


def spans_table(spans: list[Span], prefix: str, ui: UiText = ENGLISH) -> str:
    """One row per span: its text (linked to its mark), type, entity, source,
    decision, replacement, reasons and risk."""
    head = "".join(f"<th>{text_html(ui.t(h))}</th>" for h in COLUMNS)
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
            + _cell(ui.t(f"decision.{decision_of(span)}"))
            + _cell(replacement or "")
            + _cell("; ".join(span._.reasons or []))
            + _cell(risk)
            + "</tr>"
        )
    rows.append("</table>")
    return "".join(rows)


def document_html(doc: Doc, title: str, n: int, spans_key: str = SPANS_KEY, ui: UiText = ENGLISH) -> str:
    """The section of one document (``n``: its position, for element ids)."""
    prefix = f"d{n}"
    spans = sorted(get_candidates(doc, spans_key), key=lambda s: (s.start_char, s.end_char))
    masked = sum(1 for s in spans if s._.masked is not False)
    parts = [f'<article class="document" id="{prefix}"><h2>{text_html(title)}</h2>']
    summary = ui.plural("visualize.summary", len(spans), masked=masked, kept=len(spans) - masked)
    if (residual := residual_line(doc._.residual_risk, ui)) is not None:
        summary += f"; {residual}"
    parts.append(f'<p class="residual">{text_html(summary)}</p>')
    parts.append(
        f'<div class="panes"><section><h3>{text_html(ui.t("visualize.original"))}</h3>'
        f'<div class="doc original">{marked_text(doc.text, spans, prefix, ui)}</div></section>'
        f"<section><h3>{text_html(ui.t('view.sanitized'))}</h3>"
        f'<div class="doc sanitized">{sanitized_html(doc)}</div></section></div>'
    )
    parts.append(spans_table(spans, prefix, ui))
    parts.append("</article>")
    return "".join(parts)


def legend_html(ui: UiText = ENGLISH) -> str:
    """The span labels and their names in the page's language (the review page has the same legend)."""
    items = "".join(
        f'<span class="item"><span class="swatch" data-label="{label}">{label}</span> '
        f"{text_html(ui.label_name(label))}</span> "
        for label in LEGEND_LABELS
    )
    return f'<p class="legend"><strong>{text_html(ui.t("legend.title"))}</strong> {items.rstrip()}</p>'


def render_page(
    docs: Iterable[Doc], titles: Iterable[str], spans_key: str = SPANS_KEY, lang: str | None = UI_DEFAULT
) -> str:
    """One self-contained HTML page (stylesheet embedded, no script): per
    document its title, the text with its spans, the sanitized text, and the
    spans with their decisions, reasons and risk. ``lang``: the language of
    its words and of ``<html lang>`` (one the pages do not speak: English)."""
    css = STYLESHEET.read_text(encoding="utf-8")
    ui = UiText(lang)
    parts = [
        f'<!DOCTYPE html>\n<html lang="{ui.lang}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>spacy-textsan</title>\n<style>\n{css}</style>\n</head>\n"
        '<body><header class="top"><h1>spacy-textsan</h1><span class="status">'
        f"{text_html(ui.t('visualize.status'))}</span></header>\n"
        f'<main class="review">{legend_html(ui)}'
    ]
    for n, (doc, title) in enumerate(zip(docs, titles, strict=False), start=1):
        parts.append(document_html(doc, title, n, spans_key, ui))
    parts.append("</main></body></html>\n")
    return "\n".join(parts)
