"""What reid_risk may lift when its attack measures a document (``release``).

A masking policy masks every date, place, amount and demographic (``mask_labels``), and kanon_risk asks
for a mask in each rare combination of the *shipped* background: blanket rules, right for a reader who
knows nothing better. A user who gives the background an attacker holds (``paths.background``) gives
the evidence these rules stand in for. With ``release``, reid_risk first takes back those masks, lets
the attacker family decide which of the words need masking, and keeps the rest visible, only when the
document is measured and every attacker is brought to ``1 / k``; otherwise the masks stand as they
were and the ordinary plan runs (fail closed).

A mask is released only when every reason it has is one of these rules (a knowledge-base note says what
a span is, not why it is masked): never a direct identifier, a special category (``policy: religion is
always masked``), a score of another measure, an unassessed span or one the attack masked itself. Nor a
date to the day (``13 December 1971``, ``22/08/1935``): a date of birth links a person to any register,
whatever the background holds; a year or a month (``2016``, ``December 1971``) can be released.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from functools import cache

from spacy.tokens import Doc, Span

from ..calendar_names import DATE_LOCALES, english_month_forms, month_names
from ..extensions import DIRECT, get_candidates

__all__ = ["RELEASE_MODES", "Snapshot", "day_precise", "releasable"]

#: ``never``; ``own_background``: when the background is the user's, not one shipped with the package;
#: ``always``
RELEASE_MODES = ("never", "own_background", "always")
#: the reasons of the rules a measured attack may take back
_RULES = ("policy: label ", "risky: kanon:", "covers risky combination: kanon:")
#: reasons that say what a span is, not why it is masked (wikidata_gazetteer's match)
_NOTES = ("kb:",)
#: a date written in figures: 22/08/1935, 1935-08-22, 22.8.35
_NUMERIC_DATE = re.compile(r"(?<!\d)\d{1,4}[./-]\d{1,2}[./-]\d{1,4}(?!\d)")
#: a day of the month: 1 or 2 figures (22, 22nd, 22.), not part of a year
_DAY = re.compile(r"(?<!\d)\d{1,2}(?:st|nd|rd|th|\.)?(?!\d)")
_LETTERS = re.compile(r"[^\W\d_]+")


@cache
def _months() -> frozenset[str]:
    """Month names, folded: English (wide, abbreviated) and the languages privacy_ner reads dates in."""
    names = [*english_month_forms(), *(m for locale in DATE_LOCALES for m in month_names(locale))]
    return frozenset(name.casefold().rstrip(".") for name in names)


def day_precise(text: str) -> bool:
    """Whether ``text`` holds a date to the day: in figures, or a month's name with a day's number."""
    if _NUMERIC_DATE.search(text):
        return True
    return not _months().isdisjoint(_LETTERS.findall(text.casefold())) and _DAY.search(text) is not None


def releasable(span: Span, direct_labels: Collection[str]) -> bool:
    """Whether ``span`` is masked by the label policy or kanon_risk's risky sets and nothing else."""
    reasons = list(span._.reasons or ())
    return (
        span._.masked is True
        and span._.identifier_type != DIRECT
        and span.label_ not in direct_labels
        and not (span.label_ == "DATETIME" and day_precise(span.text))
        and any(r.startswith(_RULES) for r in reasons)
        and all(r.startswith(_RULES + _NOTES) for r in reasons)
    )


class Snapshot:
    """The candidates of a doc, their decisions and the doc's errors, to put back as they were."""

    def __init__(self, doc: Doc, spans_key: str) -> None:
        self.doc = doc
        self.spans_key = spans_key
        self.had_group = spans_key in doc.spans
        self.spans = get_candidates(doc, spans_key)
        self.state = [(span._.masked, list(span._.reasons or ())) for span in self.spans]
        self.errors = doc._.sanitize_errors

    def restore(self) -> None:
        """The candidates, their ``masked`` and ``reasons``, and ``doc._.sanitize_errors`` as when the snapshot
        was taken (an attempt that is given up leaves no error behind)."""
        if self.had_group:
            self.doc.spans[self.spans_key] = self.spans
        elif self.spans_key in self.doc.spans:
            del self.doc.spans[self.spans_key]
        for span, (masked, reasons) in zip(self.spans, self.state, strict=True):
            span._.masked = masked
            span._.reasons = reasons
        self.doc._.sanitize_errors = self.errors
