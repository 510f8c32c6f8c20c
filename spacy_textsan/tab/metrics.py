"""TAB's evaluation metrics (Pilán et al. 2022, §6), matching TAB's official script.

Inputs are the gold documents (as read by :func:`~spacy_textsan.tab.reader.read_tab`)
and the system output ``masked``: ``{doc_id: [(start, end), ...]}``, the
character spans the system masked (the input format of TAB's evaluation
script). Only the documents present in ``masked`` are scored; a document the
system left untouched must be present with an empty list.

Conventions of the official script reproduced here:

* Entities are built per document and per annotator by grouping mentions on
  ``entity_id``. An entity needs masking if any of its mentions is DIRECT or
  QUASI; it is a direct identifier if its *first* mention is DIRECT; its type
  is the type of its first mention. Each mention also keeps its own
  ``mention_level_masking`` flag (its identifier type is DIRECT or QUASI).
* Tokens are the ``\\w+`` matches inside a span.
* A mention (or token) is masked when the characters the system left
  uncovered are only skippable material: punctuation, spaces, some function
  words and titles (:data:`SKIP_REGEX`).
* Recall counts every mention of an entity that needs masking, NO_MASK
  mentions of that entity included; entity-level recall lets mentions that
  are themselves NO_MASK stay unmasked.
* Precision iterates over the system's spans, so a token inside two
  overlapping system spans counts twice; it is micro-averaged over the
  annotators of each document.
"""

from __future__ import annotations

import bisect
import operator
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from ..extensions import DIRECT, QUASI
from .reader import TabDocument

Offsets = tuple[int, int]
#: System output: doc_id -> masked character spans.
MaskedSpans = Mapping[str, Sequence[Sequence[int]]]
#: ``weights(text, spans) -> one weight per span`` (e.g. information content).
WeightFunction = Callable[[str, list[Offsets]], Sequence[float]]

_TOKEN_REGEX = re.compile(r"\w+")

#: Words ignored when left unmasked inside a mention (matched as whole words).
SKIP_WORDS = (
    "mr",
    "mrs",
    "ms",
    "and",
    "or",
    "from",
    "until",
    "to",
    "about",
    "after",
    "as",
    "at",
    "before",
    "between",
    "by",
    "during",
    "for",
    "in",
    "into",
    "of",
    "on",
    "over",
    "since",
    "with",
    "the",
    "a",
    "an",
    "no",
    "nr",
    "’s",
    "'s",
)
#: Single characters ignored when left unmasked inside a mention (space included).
SKIP_CHARS = (
    ",",
    ".",
    "-",
    ";",
    ":",
    "/",
    "&",
    "(",
    ")",
    "[",
    "]",
    "–",
    "'",
    '"',
    " ",
    "’",
    "“",
    "”",
)
#: What may stay uncovered in a mention that counts as masked.
SKIP_REGEX = re.compile(
    "|".join([rf"\b{re.escape(word)}\b" for word in SKIP_WORDS] + [re.escape(char) for char in SKIP_CHARS]),
    re.IGNORECASE,
)


@dataclass
class GoldEntity:
    """The mentions of one entity, as annotated by one annotator in one document."""

    entity_id: str
    annotator: str
    entity_type: str
    is_direct: bool
    need_masking: bool
    mentions: list[Offsets] = field(default_factory=list)
    mention_level_masking: list[bool] = field(default_factory=list)


class GoldDoc:
    """A gold document prepared for scoring: its entities and, per annotator,
    the spans of its mentions that need masking (for precision)."""

    def __init__(self, tab_doc: TabDocument) -> None:
        self.doc_id = tab_doc.doc_id
        self.text = tab_doc.text
        self.entities = build_entities(tab_doc)
        #: Annotators with at least one mention.
        self.annotators = sorted({entity.annotator for entity in self.entities})
        self._coverage = {
            annotator: _IntervalCover(
                mention
                for entity in self.entities
                if entity.annotator == annotator and entity.need_masking
                for mention, to_mask in zip(entity.mentions, entity.mention_level_masking, strict=False)
                if to_mask
            )
            for annotator in self.annotators
        }

    def entities_to_mask(self, include_direct: bool = True, include_quasi: bool = True) -> list[GoldEntity]:
        """The entities that need masking, filtered on direct / quasi identifiers."""
        return [
            entity
            for entity in self.entities
            if entity.need_masking and (include_direct if entity.is_direct else include_quasi)
        ]

    def annotators_for_span(self, start: int, end: int) -> set[str]:
        """Annotators having a mention that needs masking and contains ``[start, end)``.

        An empty span gets no annotator (as the interval query of TAB's script)."""
        if start >= end:
            return set()
        return {annotator for annotator, cover in self._coverage.items() if cover.contains(start, end)}


class _IntervalCover:
    """Answers "is [start, end) inside one of these intervals?" in O(log n)."""

    def __init__(self, intervals: Iterable[Offsets]) -> None:
        ordered = sorted(intervals)
        self._starts = [start for start, _ in ordered]
        self._max_ends: list[int] = []
        max_end = -1
        for _, end in ordered:
            max_end = max(max_end, end)
            self._max_ends.append(max_end)

    def contains(self, start: int, end: int) -> bool:
        # Among the intervals starting at or before `start`, the one reaching
        # furthest decides.
        index = bisect.bisect_right(self._starts, start)
        return index > 0 and self._max_ends[index - 1] >= end


def build_entities(tab_doc: TabDocument) -> list[GoldEntity]:
    """Group each annotator's mentions into entities (see the module docstring).

    Raises ``ValueError`` if two annotators of the document use the same entity
    id (TAB's script refuses that too; :func:`~spacy_textsan.tab.reader.parse_tab`
    already rejects such files).
    """
    entities: dict[str, GoldEntity] = {}
    for annotator, mentions in tab_doc.annotations.items():
        for mention in mentions:
            to_mask = mention.identifier_type in (DIRECT, QUASI)
            entity = entities.get(mention.entity_id)
            if entity is None:
                entity = entities[mention.entity_id] = GoldEntity(
                    entity_id=mention.entity_id,
                    annotator=annotator,
                    entity_type=mention.entity_type,
                    is_direct=mention.identifier_type == DIRECT,
                    need_masking=False,
                )
            elif entity.annotator != annotator:
                raise ValueError(
                    "a gold document: an entity_id (not shown: it may be data) used by "
                    f"annotators {entity.annotator!r} and {annotator!r}"
                )
            entity.mentions.append((mention.start, mention.end))
            entity.mention_level_masking.append(to_mask)
            entity.need_masking = entity.need_masking or to_mask
    return list(entities.values())


def split_by_tokens(text: str, start: int, end: int) -> Iterator[Offsets]:
    """The ``\\w+`` tokens of ``text[start:end]``, as absolute offsets."""
    for match in _TOKEN_REGEX.finditer(text, start, end):
        yield match.start(), match.end()


def masked_offsets_set(spans: Iterable[Sequence[int]]) -> set[int]:
    """The set of character offsets covered by the masked spans."""
    offsets: set[int] = set()
    for start, end in spans:
        offsets.update(range(start, end))
    return offsets


def is_mention_masked(text: str, masked_offsets: set[int], start: int, end: int) -> bool:
    """Whether ``text[start:end]`` counts as masked: every character is covered
    by ``masked_offsets`` except skippable ones (:data:`SKIP_REGEX`, matched on
    the lower-cased span as TAB's script does). A lone uncovered "Mr" thus
    counts as masked."""
    uncovered = set(range(start, end)) - masked_offsets
    if uncovered:
        for match in SKIP_REGEX.finditer(text[start:end].lower()):
            uncovered.difference_update(range(start + match.start(), start + match.end()))
    return not uncovered


# --------------------------------------------------------------------------- #
# Preparation shared by all metrics
# --------------------------------------------------------------------------- #

GoldInput = Iterable[TabDocument] | Mapping[str, TabDocument | GoldDoc]


@dataclass
class _Scored:
    """One document being scored: gold, system spans, covered offsets."""

    gold: GoldDoc
    spans: list[Offsets]
    offsets: set[int]


def prepare_gold(gold_docs: GoldInput) -> dict[str, GoldDoc]:
    """Index gold documents by doc_id, building their entities once.

    Accepts a list of :class:`TabDocument`, or a mapping doc_id -> TabDocument
    or :class:`GoldDoc`. Pass the result to several metric functions to avoid
    rebuilding the entities each time.
    """
    values = gold_docs.values() if isinstance(gold_docs, Mapping) else gold_docs
    return {doc.doc_id: doc if isinstance(doc, GoldDoc) else GoldDoc(doc) for doc in values}


def _prepare(gold_docs: GoldInput, masked: MaskedSpans) -> list[_Scored]:
    """Pair every masked document with its gold; check the system spans."""
    gold = prepare_gold(gold_docs)
    scored = []
    for position, (doc_id, raw_spans) in enumerate(masked.items()):
        if doc_id not in gold:
            raise KeyError(f"masked document {position} (in the order given) is not in the gold documents")
        gold_doc = gold[doc_id]
        spans = []
        for raw in raw_spans:
            start, end = (operator.index(x) for x in raw)
            if not 0 <= start <= end <= len(gold_doc.text):
                raise ValueError(
                    f"masked document {position}: span [{start}, {end}] outside the text (length {len(gold_doc.text)})"
                )
            spans.append((start, end))
        scored.append(_Scored(gold_doc, spans, masked_offsets_set(spans)))
    return scored


def _ratio(numerator: float, denominator: float) -> float:
    """numerator / denominator, 0 when the denominator is 0 (as TAB's script)."""
    return numerator / denominator if denominator else 0.0


def _ratios_by_type(masked_by_type: dict[str, int], total_by_type: dict[str, int]) -> dict[str, float]:
    """Per-type recall from per-type counts, types sorted."""
    return {
        entity_type: _ratio(masked_by_type.get(entity_type, 0), total)
        for entity_type, total in sorted(total_by_type.items())
    }


# --------------------------------------------------------------------------- #
# Counting (the metrics below are ratios of these counts)
# --------------------------------------------------------------------------- #


def _recall_counts(
    scored: list[_Scored], include_direct: bool, include_quasi: bool, token_level: bool
) -> tuple[dict[str, int], dict[str, int]]:
    """(masked, total) numbers of tokens or mentions, by entity type."""
    masked_by_type: dict[str, int] = defaultdict(int)
    total_by_type: dict[str, int] = defaultdict(int)
    for item in scored:
        text = item.gold.text
        for entity in item.gold.entities_to_mask(include_direct, include_quasi):
            total_by_type[entity.entity_type] += 0  # types with no token still show up
            for mention_start, mention_end in entity.mentions:
                units = (
                    split_by_tokens(text, mention_start, mention_end) if token_level else [(mention_start, mention_end)]
                )
                for start, end in units:
                    total_by_type[entity.entity_type] += 1
                    if is_mention_masked(text, item.offsets, start, end):
                        masked_by_type[entity.entity_type] += 1
    return dict(masked_by_type), dict(total_by_type)


def _summed_recall_counts(
    scored: list[_Scored], include_direct: bool, include_quasi: bool, token_level: bool
) -> list[int]:
    """[masked, total] numbers of tokens or mentions, all types together."""
    masked_by_type, total_by_type = _recall_counts(scored, include_direct, include_quasi, token_level)
    return [sum(masked_by_type.values()), sum(total_by_type.values())]


def _is_entity_masked(text: str, offsets: set[int], entity: GoldEntity) -> bool:
    """All mentions masked, except mentions that are NO_MASK themselves."""
    return all(
        is_mention_masked(text, offsets, start, end) or not to_mask
        for (start, end), to_mask in zip(entity.mentions, entity.mention_level_masking, strict=False)
    )


def _entity_counts(scored: list[_Scored], include_direct: bool, include_quasi: bool) -> tuple[int, int]:
    """(masked, total) numbers of entities."""
    masked = total = 0
    for item in scored:
        for entity in item.gold.entities_to_mask(include_direct, include_quasi):
            total += 1
            masked += _is_entity_masked(item.gold.text, item.offsets, entity)
    return masked, total


def _precision_counts(scored: list[_Scored], weights: WeightFunction | None, token_level: bool) -> tuple[float, float]:
    """(weighted true positives, weighted system masks), micro-averaged over annotators."""
    true_positives = system_masks = 0.0
    for position, item in enumerate(scored):
        text = item.gold.text
        units: list[Offsets] = []
        for start, end in item.spans:
            if token_level:
                units.extend(split_by_tokens(text, start, end))
            else:
                units.append((start, end))
        unit_weights = [1.0] * len(units) if weights is None else list(weights(text, units))
        if len(unit_weights) != len(units):
            raise ValueError(
                f"masked document {position}: the weight function returned "
                f"{len(unit_weights)} weights for {len(units)} spans"
            )
        nb_annotators = len(item.gold.annotators)
        for (start, end), weight in zip(units, unit_weights, strict=False):
            true_positives += len(item.gold.annotators_for_span(start, end)) * weight
            system_masks += nb_annotators * weight
    return true_positives, system_masks


# --------------------------------------------------------------------------- #
# Public metrics
# --------------------------------------------------------------------------- #


def token_recall(
    gold_docs: GoldInput,
    masked: MaskedSpans,
    include_direct: bool = True,
    include_quasi: bool = True,
) -> float:
    """Token-level recall R (R_di+qi by default), micro-averaged over annotators."""
    return _ratio(*_summed_recall_counts(_prepare(gold_docs, masked), include_direct, include_quasi, token_level=True))


def mention_recall(
    gold_docs: GoldInput,
    masked: MaskedSpans,
    include_direct: bool = True,
    include_quasi: bool = True,
) -> float:
    """Mention-level recall: whole mentions instead of tokens."""
    return _ratio(*_summed_recall_counts(_prepare(gold_docs, masked), include_direct, include_quasi, token_level=False))


def per_type_recall(
    gold_docs: GoldInput,
    masked: MaskedSpans,
    include_direct: bool = True,
    include_quasi: bool = True,
    token_level: bool = True,
) -> dict[str, float]:
    """Recall by entity type (token level by default); 0 for a type without token."""
    masked_n, total_n = _recall_counts(_prepare(gold_docs, masked), include_direct, include_quasi, token_level)
    return _ratios_by_type(masked_n, total_n)


def entity_recall(
    gold_docs: GoldInput,
    masked: MaskedSpans,
    include_direct: bool = True,
    include_quasi: bool = True,
) -> float:
    """Entity-level recall: ER_di with ``include_quasi=False``, ER_qi with
    ``include_direct=False``. An entity is masked iff all of its mentions are,
    except the mentions that are NO_MASK themselves."""
    return _ratio(*_entity_counts(_prepare(gold_docs, masked), include_direct, include_quasi))


def precision(
    gold_docs: GoldInput,
    masked: MaskedSpans,
    weights: WeightFunction | None = None,
    token_level: bool = True,
) -> float:
    """Token-level precision P_di+qi, micro-averaged over annotators.

    With a ``weights(text, spans) -> weights`` function (e.g. information
    content), this is the weighted precision WP_di+qi; by default every token
    weighs 1.
    """
    return _ratio(*_precision_counts(_prepare(gold_docs, masked), weights, token_level))


def evaluate(
    gold_docs: GoldInput,
    masked: MaskedSpans,
    weights: WeightFunction | None = None,
) -> dict:
    """All TAB metrics at once, with the raw counts behind them.

    Returns ``{"n_docs", "recall" (token level, di+qi), "recall_direct",
    "recall_quasi", "mention_recall", "er_di", "er_qi", "precision" (uniform
    weights), "mention_precision" (uniform weights, whole system spans, as also
    printed by TAB's script), "weighted_precision" (None without ``weights``),
    "per_type_recall": {type: recall}, "counts": {...}}``. Raises ``KeyError``
    if ``masked`` names a document that is not in the gold documents.
    """
    scored = _prepare(gold_docs, masked)

    by_type_masked, by_type_total = _recall_counts(scored, True, True, True)
    token_all = [sum(by_type_masked.values()), sum(by_type_total.values())]
    token_direct = _summed_recall_counts(scored, True, False, True)
    token_quasi = _summed_recall_counts(scored, False, True, True)
    mention_all = _summed_recall_counts(scored, True, True, False)
    entity_direct = list(_entity_counts(scored, True, False))
    entity_quasi = list(_entity_counts(scored, False, True))
    uniform = list(_precision_counts(scored, None, True))
    mention_uniform = list(_precision_counts(scored, None, False))
    weighted = None if weights is None else list(_precision_counts(scored, weights, True))

    return {
        "n_docs": len(scored),
        "recall": _ratio(*token_all),
        "recall_direct": _ratio(*token_direct),
        "recall_quasi": _ratio(*token_quasi),
        "mention_recall": _ratio(*mention_all),
        "er_di": _ratio(*entity_direct),
        "er_qi": _ratio(*entity_quasi),
        "precision": _ratio(*uniform),
        "mention_precision": _ratio(*mention_uniform),
        "weighted_precision": None if weighted is None else _ratio(*weighted),
        "per_type_recall": _ratios_by_type(by_type_masked, by_type_total),
        # [numerator, denominator] of each ratio above.
        "counts": {
            "recall": token_all,
            "recall_direct": token_direct,
            "recall_quasi": token_quasi,
            "mention_recall": mention_all,
            "er_di": entity_direct,
            "er_qi": entity_quasi,
            "precision": uniform,
            "mention_precision": mention_uniform,
            "weighted_precision": weighted,
            "per_type_recall": {
                entity_type: [by_type_masked.get(entity_type, 0), total]
                for entity_type, total in sorted(by_type_total.items())
            },
        },
    }
