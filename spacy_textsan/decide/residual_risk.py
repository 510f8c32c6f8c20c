"""The ``residual_risk`` factory: what a reader who knows the background can still
do with what stays visible, after the decision.

It runs after the decision component (``mask_optimizer`` or ``mask_all``) and,
for the quasi-identifiers left in clear (kept candidates and, with ``phrases``,
the cued phrases of :mod:`.phrases` outside masked spans), counts the records of
the background index that share all of them: ``k``. The smaller ``k``, the
fewer people the visible combination fits. ``doc._.residual_risk`` holds::

    {"k": 3, "n_background": 219, "min_k": 5, "reached": false,
     "visible": ["ministry of justice", "taxi driver"],
     "narrowing": [["taxi driver", 3], ["ministry of justice", 41]],
     "unknown": [], "masked_for_min_k": []}

``narrowing`` lists the visible terms that narrow the set most (fewest
records first). A visible term the background does not know and that is not
common English (``english_prior``) is ``unknown``: nobody in the background
matches it, so ``k`` is 0. With ``min_k`` the component masks, one entity at a
time and narrowest first, until ``k`` reaches ``min_k`` (a visible phrase is
added to the candidates to be masked), and says where it could not
(``reached: false``). Without an index (or if anything raises) ``k`` is
``None``, an error is reported and, with ``min_k``, every kept candidate is
masked: fail closed.
"""

import logging
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from spacy.language import Language
from spacy.tokens import Doc, Span

from ..entities import group_entities
from ..extensions import (
    SPANS_KEY,
    add_candidates,
    add_error,
    add_reason,
    covered_chars,
    doc_text,
    get_candidates,
    is_covered,
    new_candidate,
)
from ..languages import word_frequency_language
from ..risk.background import Background
from ..risk.kanon_index import InvertedIndex, normalize_term
from ..risk.phrases import english_word_count, find_phrases

logger = logging.getLogger("spacy_textsan")

__all__ = ["ResidualRisk", "make_residual_risk", "residual_k"]


@Language.factory(
    "residual_risk",
    requires=["doc.spans"],
    assigns=["doc._.residual_risk"],
    default_config={
        "spans_key": SPANS_KEY,
        "background": None,
        "min_k": 0,
        "phrases": False,
        "english_prior": False,
        "top": 3,
        "attack": "reid_risk",
    },
)
def make_residual_risk(
    nlp: Language,
    name: str,
    spans_key: str,
    background: Background | None,
    min_k: int,
    phrases: bool,
    english_prior: bool,
    top: int,
    attack: str,
) -> "ResidualRisk":
    return ResidualRisk(
        name,
        spans_key=spans_key,
        background=background,
        min_k=min_k,
        phrases=phrases,
        english_prior=english_prior,
        top=top,
        attack=attack,
        nlp=nlp,
    )


def residual_k(terms: Iterable[str], index: InvertedIndex) -> int:
    """The records of ``index`` that hold every one of ``terms`` (all records for none)."""
    terms = list(dict.fromkeys(terms))
    return index.intersection_count(terms) if terms else index.n_records


class ResidualRisk:
    """The k of the visible combination, and masking until it reaches ``min_k``."""

    #: it may still mask (``min_k``): a decision (see :mod:`spacy_textsan.stages`)
    textsan_stage = "decide"
    #: what it reads and writes (:mod:`spacy_textsan.stages`)
    textsan_reads = ("doc.spans", "span._.masked", "doc._.reid_risk")
    textsan_decides = ("span._.masked", "span._.reasons", "doc._.residual_risk")

    def __init__(
        self,
        name: str = "residual_risk",
        *,
        spans_key: str = SPANS_KEY,
        background: Background | None = None,
        min_k: int = 0,
        phrases: bool = False,
        english_prior: bool = False,
        top: int = 3,
        index: InvertedIndex | None = None,
        attack: str = "",
        nlp: Language | None = None,
    ) -> None:
        if min_k < 0:
            raise ValueError(f"residual_risk: min_k must be >= 0, got {min_k}")
        self.name = name
        self.spans_key = spans_key
        self.min_k = min_k
        self.phrases = phrases
        self.english_prior = english_prior
        self.top = top
        self.attack = attack
        self._nlp = nlp
        #: the language of ``english_prior``'s word frequencies: the pipeline's (English without one)
        self.lang = word_frequency_language(nlp.lang if nlp is not None else None)
        self.index = index
        self.background = background if index is None else None
        self._index_error: str | None = None
        if index is None:
            if background is None:
                self._index_error = "no background (set background, paths.background or --background)"
            else:
                try:
                    self.index = background.terms()
                except (OSError, ValueError, LookupError) as error:
                    self._index_error = f"cannot load the background: {error}"

    def __call__(self, doc: Doc) -> Doc:
        try:
            if self.index is None:
                raise LookupError(self._index_error)
            doc._.residual_risk = self.assess(doc, self.index)
            self._add_attack(doc)
        except Exception as error:  # fail closed: unknown k, and with min_k everything kept is masked
            logger.warning("residual_risk failed: %s", error)
            add_error(doc, f"{self.name}: {type(error).__name__}: {error}")
            masked = self._mask_all_kept(doc) if self.min_k else []
            doc._.residual_risk = {
                "k": None,
                "n_background": self.index.n_records if self.index is not None else 0,
                "min_k": self.min_k,
                "reached": False if self.min_k else None,
                "visible": [],
                "narrowing": [],
                "unknown": [],
                "masked_for_min_k": masked,
                "error": str(error),
            }
        return doc

    def _attacker(self):
        """The pipeline's re-identification component named ``attack`` (None: there is none)."""
        if not self.attack or self._nlp is None or self.attack not in self._nlp.pipe_names:
            return None
        component = self._nlp.get_pipe(self.attack)
        return component if hasattr(component, "view") else None

    def _add_attack(self, doc: Doc) -> None:
        """The attacker's view of what stays visible now: ``k`` becomes the records the attack
        cannot tell the person from (the term count's k stays as ``kanon_k``)."""
        attacker = self._attacker()
        if attacker is None:
            return
        report = dict(doc._.residual_risk)
        view = attacker.view(doc)
        report["kanon_k"] = report["k"]
        report["k"] = view.get("k")
        # False: the background does not hold this person, and there is no k to report
        report["measured"] = view.get("measured", view.get("k") is not None)
        if not report["measured"]:
            report["why"] = view.get("why") or view.get("error", "")
        report["attack"] = view
        if self.min_k and view.get("k") is not None:
            report["reached"] = bool(report["reached"]) and view["k"] >= self.min_k
        doc._.residual_risk = report

    # -- steps ------------------------------------------------------------------

    def _uninformative(self, term: str, index: InvertedIndex) -> bool:
        """A term the background does not know but that is common in ordinary English (``english_prior``),
        as kanon_risk judges it: it narrows nothing down."""
        return (
            self.english_prior
            and index.count(term) == 0
            and english_word_count(term, index.n_records, self.lang) >= max(2, self.min_k)
        )

    def _visible(self, doc: Doc) -> list[tuple[str, list[Span] | None, tuple[int, int, str] | None]]:
        """(term, the kept entity's spans or None, the phrase (start, end, label) or None) in text order."""
        candidates = get_candidates(doc, self.spans_key)
        items: list[tuple[str, list[Span] | None, tuple[int, int, str] | None]] = []
        for entity in group_entities(candidates):
            if all(s._.masked is False for s in entity.spans):
                term = normalize_term(entity.representative.text, entity.label)
                if term:
                    items.append((term, entity.spans, None))
        if self.phrases:  # phrases outside every candidate (a kept candidate is counted above)
            covered = covered_chars(doc, candidates)
            for phrase in find_phrases(doc_text(doc)):
                if not is_covered(covered, phrase.start, phrase.end):
                    term = normalize_term(phrase.text, phrase.label)
                    if term:
                        items.append((term, None, (phrase.start, phrase.end, phrase.label)))
        return items

    def assess(self, doc: Doc, index: InvertedIndex) -> dict[str, Any]:
        """The residual risk of ``doc`` (masking more first when ``min_k`` asks for it)."""
        masked_for_min_k: list[str] = []
        while True:
            items = self._visible(doc)
            informative = [it for it in items if not self._uninformative(it[0], index)]
            terms = list(dict.fromkeys(t for t, _, _ in informative))
            counts = {t: index.count(t) for t in terms}
            unknown = [t for t in terms if counts[t] == 0]
            k = 0 if unknown else residual_k(terms, index)
            if not self.min_k or k >= self.min_k or not informative:
                break
            term, spans, phrase = min(informative, key=lambda it: (counts[it[0]], it[0]))
            self._mask(doc, spans, phrase, f"min_k: '{term}' left {k} < {self.min_k} background records")
            masked_for_min_k.append(term)
        narrowing = sorted(terms, key=lambda t: (counts[t], t))[: self.top]
        return {
            "k": k,
            "n_background": index.n_records,
            "min_k": self.min_k,
            "reached": (k >= self.min_k) if self.min_k else None,
            "visible": terms,
            "narrowing": [[t, counts[t]] for t in narrowing],
            "unknown": unknown,
            "masked_for_min_k": masked_for_min_k,
        }

    def _mask(self, doc: Doc, spans: list[Span] | None, phrase: tuple[int, int, str] | None, reason: str) -> None:
        if spans is None and phrase is not None:
            start, end, label = phrase
            span = new_candidate(doc, start, end, label, "phrase:residual_risk", bytearray(len(doc_text(doc))))
            if span is None:
                return
            add_candidates(doc, [span], self.spans_key)
            spans = [span]
        for span in spans or []:
            span._.masked = True
            add_reason(span, reason)

    def _mask_all_kept(self, doc: Doc) -> list[str]:
        kept = [s for s in get_candidates(doc, self.spans_key) if s._.masked is False]
        for span in kept:
            span._.masked = True
            add_reason(span, "residual_risk failed: masked (fail closed)")
        return [s.text for s in kept]

    # -- serialization: the index is loaded from its path ---------------------------

    def to_disk(self, path: str | Path, *, exclude: Iterable[str] = ()) -> None:
        Path(path).mkdir(parents=True, exist_ok=True)

    def from_disk(self, path: str | Path, *, exclude: Iterable[str] = ()) -> "ResidualRisk":
        return self
