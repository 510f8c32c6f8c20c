"""The ``kanon_risk`` factory: k-anonymity against background knowledge.

The adversary knows the records of an :class:`~.kanon_index.InvertedIndex`
(a term → record-ids index built from a knowledge graph, a user's records or
a document collection: ``textsan kanon build``). For every candidate span the
component looks up how many records share its normalised text and

* scores it: ``span._.risk["kanon"] = 1 / max(1, postings)``;
* records in ``doc._.risky_sets`` which entities reveal too much, alone or in
  combination (Papadopoulou et al. 2022b, §3.2 and
  Algorithm 1).

Entities are the candidate spans grouped by ``span._.entity_id`` (a span
without one is its own entity). An entity is risky alone if any of its
mentions' terms has fewer than ``k`` postings; for combinations each entity
is represented by its most specific term (fewest postings).

``selection``:

* ``"optimizer"`` (default): every risky-alone entity becomes a one-span set
  and every minimal risky combination of entities a multi-span set; the
  decision component (``mask_optimizer``) chooses what to mask.
* ``"greedy"`` / ``"random"``: the component takes the paper's own decisions
  (Algorithm 1) and emits a one-span set for each entity it selects.

It fails closed: without an index, when ``max_combinations`` is exhausted or
when anything raises, an error is added to ``doc._.sanitize_errors`` and
every entity not already in a one-span set gets one, so the decision masks
it. The pipeline never crashes because of this component.
"""

import itertools
import logging
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path

from spacy.language import Language
from spacy.tokens import Doc, Span

from ..entities import Entity, group_entities
from ..extensions import (
    SPANS_KEY,
    add_candidates,
    add_risky_set,
    covered_chars,
    doc_text,
    fail_closed,
    get_candidates,
    is_covered,
    new_candidate,
    set_risk,
)
from ..languages import word_frequency_language
from .background import Background
from .kanon_algorithm import CombinationBudgetExceeded, risky_combinations, select_terms
from .kanon_index import InvertedIndex, normalize_term
from .phrases import (
    english_word_count,
    find_phrases,
    find_words,
    is_cue_word,
    is_ordinary_form,
    is_rare_word,
    word_term,
)

logger = logging.getLogger("spacy_textsan")

__all__ = ["MEASURE", "KanonRisk", "make_kanon_risk", "index_from_docs", "doc_terms", "EntityTerms"]

#: Name of the measure in ``span._.risk`` and ``doc._.risky_sets``.
MEASURE = "kanon"
SELECTION_MODES = ("optimizer", "greedy", "random")
_INDEX_DIR = "index"

DEFAULT_CONFIG = {
    "k": 5,
    "max_arity": 2,
    "selection": "optimizer",
    "seed": 0,
    "max_combinations": 100_000,
    "spans_key": SPANS_KEY,
    "exclude_labels": [],
    "background": None,
    "phrases": False,
    "english_prior": False,
    "rare_words": False,
}


@Language.factory(
    "kanon_risk",
    requires=["doc.spans"],
    assigns=["doc._.risky_sets"],
    default_config=DEFAULT_CONFIG,
)
def make_kanon_risk(
    nlp: Language,
    name: str,
    k: int,
    max_arity: int,
    selection: str,
    seed: int,
    max_combinations: int,
    spans_key: str,
    exclude_labels: list[str],
    background: Background | None,
    phrases: bool,
    english_prior: bool,
    rare_words: bool,
) -> "KanonRisk":
    return KanonRisk(
        name,
        k=k,
        max_arity=max_arity,
        selection=selection,
        seed=seed,
        max_combinations=max_combinations,
        spans_key=spans_key,
        exclude_labels=exclude_labels,
        background=background,
        phrases=phrases,
        english_prior=english_prior,
        rare_words=rare_words,
        lang=word_frequency_language(nlp.lang),
    )


class EntityTerms:
    """An entity with the index term and the posting count of each mention."""

    __slots__ = ("entity", "terms", "counts")

    def __init__(self, entity: Entity, terms: list[str], counts: list[int]) -> None:
        self.entity = entity
        self.terms = terms
        self.counts = counts

    @property
    def spans(self) -> list[Span]:
        return self.entity.spans

    def most_specific(self) -> int:
        """Position of the mention with the fewest postings (ties: first)."""
        return min(range(len(self.spans)), key=lambda i: (self.counts[i], i))

    @property
    def term(self) -> str:
        return self.terms[self.most_specific()]

    @property
    def count(self) -> int:
        return self.counts[self.most_specific()]

    @property
    def span(self) -> Span:
        """The representative span: the most specific mention."""
        return self.spans[self.most_specific()]


def doc_terms(
    doc: Doc, spans_key: str = SPANS_KEY, exclude_labels: Iterable[str] = (), phrases: bool = False
) -> list[str]:
    """The normalised texts of a doc's candidate spans and, with ``phrases``,
    of its cued phrases (:func:`.phrases.find_phrases`) and words (:func:`.phrases.word_term`),
    deduplicated, in order."""
    exclude = set(exclude_labels)
    terms = [normalize_term(s.text, s.label_) for s in get_candidates(doc, spans_key) if s.label_ not in exclude]
    if phrases:
        text = doc_text(doc)
        terms += [normalize_term(p.text, p.label) for p in find_phrases(text) if p.label not in exclude]
        terms += [word_term(w) for _, _, w in find_words(text)]
    return [t for t in dict.fromkeys(terms) if t]


def index_from_docs(
    docs: Iterable[Doc], spans_key: str = SPANS_KEY, exclude_labels: Iterable[str] = ()
) -> InvertedIndex:
    """An index with one record per Doc, whose terms are the normalised texts
    of its candidate spans (:func:`spacy_textsan.extensions.get_candidates`).

    Documents about the same person are different records: merge them first
    if the collection has several documents per individual.
    """
    exclude = tuple(exclude_labels)
    return InvertedIndex.from_records(doc_terms(doc, spans_key, exclude) for doc in docs)


class KanonRisk:
    """k-anonymity risk of candidate spans against an inverted index."""

    #: a risk measure (see :mod:`spacy_textsan.stages`)
    textsan_stage = "risk"
    #: what it reads and writes (:mod:`spacy_textsan.stages`)
    textsan_reads = ("doc.spans",)
    textsan_measures = ("doc._.risky_sets", "span._.risk", "doc.spans")

    def __init__(
        self,
        name: str = "kanon_risk",
        *,
        k: int = 5,
        max_arity: int = 2,
        selection: str = "optimizer",
        seed: int = 0,
        max_combinations: int = 100_000,
        spans_key: str = SPANS_KEY,
        exclude_labels: Iterable[str] = (),
        index: InvertedIndex | None = None,
        background: Background | None = None,
        phrases: bool = False,
        english_prior: bool = False,
        rare_words: bool = False,
        lang: str = "en",
    ) -> None:
        if selection not in SELECTION_MODES:
            raise ValueError(f"kanon_risk: selection must be one of {SELECTION_MODES}, got {selection!r}")
        if k < 1:
            raise ValueError(f"kanon_risk: k must be at least 1, got {k}")
        if max_arity < 1:
            raise ValueError(f"kanon_risk: max_arity must be at least 1, got {max_arity}")
        self.name = name
        self.k = k
        self.max_arity = max_arity
        self.selection = selection
        self.seed = seed
        self.max_combinations = max_combinations
        self.spans_key = spans_key
        self.background = background
        self.exclude_labels = set(exclude_labels)
        #: look up the cued phrases of the text too (occupations, conditions, counts: :mod:`.phrases`)
        self.phrases = phrases
        #: a single word the background does not know is judged by its frequency in ordinary English (wordfreq)
        self.english_prior = english_prior
        #: with ``phrases``: words rare in ordinary English and in the background are risky too
        self.rare_words = rare_words
        #: the language of those word frequencies (wordfreq's code): the pipeline's, English by default
        self.lang = lang
        self.index: InvertedIndex | None = index
        self._index_error: str | None = None
        if index is None and background is not None:
            try:
                self.index = background.terms()
            except (OSError, ValueError) as error:
                self._index_error = f"cannot load the background {background.path}: {error}"
            if self._index_error:
                # A saved pipeline moved to another machine loads its own copy
                # in from_disk; until then the component fails closed.
                warnings.warn(
                    f"kanon_risk: {self._index_error}; every candidate will be treated as risky", stacklevel=2
                )

    # -- spaCy API ------------------------------------------------------------

    def initialize(
        self, get_examples=None, nlp: Language | None = None, *, background: Background | str | Path | None = None
    ) -> None:
        """Load the term index of ``background`` (a folder, or the configured one).

        Unlike construction, a missing or broken index raises here.
        """
        if background is not None and not isinstance(background, Background):
            background = Background(background)
        background = background or self.background
        if background is not None:
            self.index = background.terms()
            self.background = background
            self._index_error = None

    def set_index(self, index: InvertedIndex) -> None:
        """Use ``index`` (e.g. from :func:`index_from_docs`)."""
        self.index = index
        self._index_error = None

    def __call__(self, doc: Doc) -> Doc:
        entities: list[EntityTerms] = []
        try:
            if self.phrases and self.index is not None:
                self.add_rare_phrases(doc)
            entities = self.entities(doc)
            if self.index is None:
                reason = self._index_error or "no background (set background or call initialize)"
                self._fail_closed(doc, entities, f"{reason}; every candidate treated as risky", "no index")
                return doc
            self.score(entities)
            if self.selection == "optimizer":
                complete = self._emit_optimizer(doc, entities)
            else:
                complete = self._emit_algorithm1(doc, entities)
            if not complete:
                self._fail_closed(
                    doc,
                    entities,
                    f"combination budget of {self.max_combinations} exhausted; "
                    "entities not found risky so far treated as risky",
                    "combination budget exhausted",
                )
        except Exception as error:  # never crash the pipeline: fail closed
            logger.exception("kanon_risk failed")
            if not entities:  # grouping failed: every candidate on its own
                entities = [
                    EntityTerms(Entity(f"@{span.start_char}:{span.end_char}", [span]), [""], [0])
                    for span in get_candidates(doc, self.spans_key)
                ]
            self._fail_closed(doc, entities, f"{type(error).__name__}: {error}", "error")
        return doc

    # -- steps ------------------------------------------------------------------

    def entities(self, doc: Doc) -> list[EntityTerms]:
        """Candidate spans grouped by entity id, in order of first mention;
        spans with an ``exclude_labels`` label are left out."""
        candidates = get_candidates(doc, self.spans_key)
        return [
            EntityTerms(entity, [normalize_term(s.text, s.label_) for s in entity.spans], [0] * len(entity.spans))
            for entity in group_entities(s for s in candidates if s.label_ not in self.exclude_labels)
        ]

    def count(self, term: str) -> int:
        """The records ``term`` occurs in: the background's count or, with
        ``english_prior`` and a single word the background does not know (text
        from another domain), its expected count in ordinary English."""
        assert self.index is not None
        if not term:
            return 0
        count = self.index.count(term)
        if self.english_prior and count == 0:  # a word the background does not know: ordinary English decides
            count = english_word_count(term, self.index.n_records, self.lang)
        return count

    def score(self, entities: Sequence[EntityTerms]) -> None:
        """Posting counts of every mention, and ``span._.risk["kanon"]``."""
        for entity in entities:
            for i, (span, term) in enumerate(zip(entity.spans, entity.terms, strict=False)):
                count = self.count(term)
                entity.counts[i] = count
                set_risk(span, MEASURE, 1.0 / max(1, count))

    def add_rare_phrases(self, doc: Doc) -> None:
        """Add the cued phrases of the text (:func:`.phrases.find_phrases`)
        that overlap no candidate and occur in fewer than ``k`` records to the
        candidates, as quasi-identifiers (source ``phrase:<kind>``); common
        phrases stay out of the decision (visible)."""
        covered = covered_chars(doc, get_candidates(doc, self.spans_key))
        added = []
        for phrase in find_phrases(doc_text(doc)):
            if is_covered(covered, phrase.start, phrase.end):
                continue
            if self.count(normalize_term(phrase.text, phrase.label)) >= self.k:
                continue
            span = new_candidate(doc, phrase.start, phrase.end, phrase.label, f"phrase:{phrase.kind}", covered)
            if span is not None:
                added.append(span)
        if self.rare_words:
            added += self._rare_words(doc, covered)
        add_candidates(doc, added, self.spans_key)

    def _rare_words(self, doc: Doc, covered: bytearray) -> list[Span]:
        """Words outside every candidate that are rare in ordinary English
        (:func:`.phrases.is_rare_word`) and in fewer than ``k`` background records (source
        ``phrase:rare_word``, label MISC): a drug, a foreign job title, a name the detectors missed. An
        English word in an ordinary form (:func:`.phrases.is_ordinary_form`: ``annulled``, ``summarily``,
        ``reinstatement``) is none."""
        assert self.index is not None
        added = []
        for start, end, word in find_words(doc_text(doc)):
            if (
                is_covered(covered, start, end)
                or not is_rare_word(word.casefold(), self.lang)
                or is_cue_word(word)
                or is_ordinary_form(word, self.lang)
            ):
                continue
            if self.index.count(word_term(word)) >= self.k:
                continue
            span = new_candidate(doc, start, end, "MISC", "phrase:rare_word", covered)
            if span is not None:
                added.append(span)
        return added

    def _alone_reason(self, entity: EntityTerms) -> str:
        return f"'{entity.term}' appears in {entity.count} < {self.k} records"

    def _combo_reason(self, terms: Sequence[str], count: int) -> str:
        return " + ".join(f"'{t}'" for t in terms) + f" shared by {count} < {self.k} records"

    def _emit_optimizer(self, doc: Doc, entities: Sequence[EntityTerms]) -> bool:
        """Every risky-alone entity and every minimal risky combination."""
        assert self.index is not None
        safe: list[EntityTerms] = []
        for entity in entities:
            if entity.count < self.k:
                add_risky_set(doc, MEASURE, [entity.span], self._alone_reason(entity))
            elif self.index.count(entity.term) >= self.k:  # common in English only: no evidence to combine
                safe.append(entity)
        if self.max_arity < 2 or len(safe) < 2:
            return True
        by_term: dict[str, list[EntityTerms]] = {}
        for entity in safe:
            by_term.setdefault(entity.term, []).append(entity)
        combos, complete = risky_combinations(list(by_term), self.index, self.k, self.max_arity, self.max_combinations)
        for combo in combos:
            reason = self._combo_reason(combo, self.index.intersection_count(combo))
            # two entities with the same term: each pairing must be broken
            for group in itertools.product(*(by_term[t] for t in combo)):
                add_risky_set(doc, MEASURE, [e.span for e in group], reason)
        return complete

    def _emit_algorithm1(self, doc: Doc, entities: Sequence[EntityTerms]) -> bool:
        """One-span sets for the entities whose terms Algorithm 1 selects."""
        assert self.index is not None
        by_term: dict[str, list[EntityTerms]] = {}
        for entity in entities:
            by_term.setdefault(entity.term, []).append(entity)
        try:
            chosen = select_terms(
                list(by_term), self.index, self.k, self.max_arity, self.selection, self.seed, self.max_combinations
            )
            complete = True
        except CombinationBudgetExceeded as error:
            chosen = error.chosen
            complete = False
        for term, combo, count in chosen:
            if combo is None:
                reason = f"'{term}' appears in {count} < {self.k} records"
            else:
                reason = f"{self.selection} choice from {self._combo_reason(combo, count)}"
            for entity in by_term[term]:
                add_risky_set(doc, MEASURE, [entity.span], reason)
        return complete

    def _fail_closed(self, doc: Doc, entities: Sequence[EntityTerms], error: str, why: str) -> None:
        """Add the error and a one-span set for every entity without one
        (its most specific mention); unscored mentions are scored from their counts."""
        covered = {
            tuple(s["spans"][0])
            for s in (doc._.risky_sets or [])
            if s.get("measure") == MEASURE and len(s.get("spans", [])) == 1
        }
        uncovered = [e for e in entities if not {(s.start_char, s.end_char) for s in e.spans} & covered]
        for entity in uncovered:
            for span, count in zip(entity.spans, entity.counts, strict=False):
                if MEASURE not in (span._.risk or {}):
                    set_risk(span, MEASURE, 1.0 / max(1, count))
        fail_closed(doc, MEASURE, [e.span for e in uncovered], f"{why} (fail closed)", f"{self.name}: {error}")

    # -- serialization ------------------------------------------------------------

    def to_bytes(self, *, exclude: Iterable[str] = ()) -> bytes:
        return self.index.to_bytes() if self.index is not None else b""

    def from_bytes(self, data: bytes, *, exclude: Iterable[str] = ()) -> "KanonRisk":
        if data:
            self.set_index(InvertedIndex.from_bytes(data))
        return self

    def to_disk(self, path: str | Path, *, exclude: Iterable[str] = ()) -> None:
        """Save the index (if any) in ``path/index``."""
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        if self.index is not None:
            self.index.to_disk(path / _INDEX_DIR)

    def from_disk(self, path: str | Path, *, exclude: Iterable[str] = ()) -> "KanonRisk":
        """Load the index saved by :meth:`to_disk` (none saved: keep the
        current one; without any, the component fails closed)."""
        index_dir = Path(path) / _INDEX_DIR
        if index_dir.exists():
            self.set_index(InvertedIndex.from_disk(index_dir))
        return self
