"""The ``mask_optimizer`` factory: the least information loss that removes the risk.

Reads the candidates (``doc.spans[spans_key]``, or ``doc.ents``), the risk
measures' output (``doc._.risky_sets``, ``span._.risk``) and the masking costs
(``span._.info_content``), and solves the CP-SAT problem of Papadopoulou et al. 2022a (§3.3) over entities
(all mentions of one entity share one decision):

* every direct identifier is masked: ``identifier_type == "DIRECT"`` or a
  label in ``direct_labels``;
* every span with a label in ``mask_labels``, or whose knowledge-base chain
  holds a class of ``mask_kb_classes``, is masked (a policy);
* every span whose score for a measure reaches ``risk_thresholds[measure]``
  is masked (any measure, e.g. a supervised classifier, plugs in by config);
* at least one entity of every risky set is masked;
* a span whose score for a measure falls below ``keep_thresholds[measure]`` is taken out of the
  decision and kept, with the reason ``kept: <measure> score <s> < <t>``, unless it is a direct
  identifier, of a special category or of a label in ``keep_exempt_labels`` (DEM) (a classifier
  trained on what annotators mask, e.g. supervised_risk, overrides the label policy and the risky
  sets both ways; the attack that runs after the decision, reid_risk, still masks what it needs);
* spans that no measure assessed are masked when ``unassessed = "mask"``
  (the default: no risk information is no evidence of safety);
* a mention of a kind named in ``keep_public`` (:mod:`.public_mentions`: a law's name, the respondent
  State where the text names it as such, a group role, a procedural date, a section of the court, a State
  before "Government", an institution's seat) is
  taken out of the decision and kept, with the reason ``kept: public (<kind>)``, unless it is a direct
  identifier or of a special category; a risky set loses it (a set of public mentions only is no risk).

Each span gets its decision and reasons; ``doc._.decision_info`` holds the
solver status. If the solver fails or times out, every span in a risky set is
masked and the failure is recorded (fail closed). In a pipeline without a
detector the rule layer of privacy_ner is added to ``doc.ents`` first
(``add_rules``, :class:`~spacy_textsan.stages.StageGuard`).
"""

import logging
import re
from collections.abc import Callable, Iterable

from spacy.language import Language
from spacy.tokens import Doc, Span

from ..entities import group_entities
from ..extensions import DIRECT, SPANS_KEY, add_error, add_reason, doc_text, entity_key, get_candidates
from ..stages import StageGuard
from .cp_sat import solve_masking, warm_up
from .public_mentions import PUBLIC_REASON, PublicText

logger = logging.getLogger("spacy_textsan")
_TOKEN = re.compile(r"\w+")


@Language.factory(
    "mask_optimizer",
    requires=["doc.spans"],
    assigns=["doc._.decision_info"],
    default_config={
        "spans_key": SPANS_KEY,
        "direct_labels": ["PERSON", "CODE"],
        "mask_labels": [],
        "mask_kb_classes": [],
        "risk_thresholds": {},
        "keep_thresholds": {},
        "keep_exempt_labels": ["DEM"],
        "measures": [],
        "unassessed": "mask",
        "keep_public": [],
        "time_limit_s": 1.0,
        "num_workers": 1,
        "seed": 0,
        "add_rules": True,
    },
)
def make_mask_optimizer(
    nlp: Language,
    name: str,
    spans_key: str,
    direct_labels: list[str],
    mask_labels: list[str],
    mask_kb_classes: list[str],
    risk_thresholds: dict[str, float],
    keep_thresholds: dict[str, float],
    keep_exempt_labels: list[str],
    measures: list[str],
    unassessed: str,
    keep_public: list[str],
    time_limit_s: float,
    num_workers: int,
    seed: int,
    add_rules: bool,
) -> "MaskOptimizer":
    return MaskOptimizer(
        name,
        spans_key=spans_key,
        direct_labels=direct_labels,
        mask_labels=mask_labels,
        mask_kb_classes=mask_kb_classes,
        risk_thresholds=risk_thresholds,
        keep_thresholds=keep_thresholds,
        keep_exempt_labels=keep_exempt_labels,
        measures=measures,
        unassessed=unassessed,
        keep_public=keep_public,
        time_limit_s=time_limit_s,
        num_workers=num_workers,
        seed=seed,
        nlp=nlp,
        add_rules=add_rules,
    )


def span_cost(span: Span) -> float:
    """Masking cost: the information content if a measure gave one, else the
    number of word tokens."""
    if span._.info_content is not None:
        return max(0.0, float(span._.info_content))
    return float(max(1, len(_TOKEN.findall(span.text))))


class MaskOptimizer:
    """Masks the entities that remove every risk at the least cost (see the module doc)."""

    #: a decision component (see :mod:`spacy_textsan.stages`)
    textsan_stage = "decide"
    #: what it reads and writes (:mod:`spacy_textsan.stages`)
    textsan_reads = ("doc.spans", "span._.risk", "doc._.risky_sets")
    textsan_decides = ("span._.masked", "span._.reasons", "doc._.decision_info")

    def __init__(
        self,
        name: str = "mask_optimizer",
        *,
        spans_key: str = SPANS_KEY,
        direct_labels: Iterable[str] = ("PERSON", "CODE"),
        mask_labels: Iterable[str] = (),
        mask_kb_classes: Iterable[str] = (),
        risk_thresholds: dict[str, float] | None = None,
        keep_thresholds: dict[str, float] | None = None,
        keep_exempt_labels: Iterable[str] = ("DEM",),
        measures: Iterable[str] = (),
        unassessed: str = "mask",
        keep_public: Iterable[str] = (),
        time_limit_s: float = 1.0,
        num_workers: int = 1,
        seed: int = 0,
        nlp: Language | None = None,
        add_rules: bool = True,
    ):
        if unassessed not in ("mask", "keep"):
            raise ValueError(f"mask_optimizer: unassessed must be 'mask' or 'keep', not {unassessed!r}")
        self.name = name
        self.spans_key = spans_key
        self.direct_labels = set(direct_labels)
        #: quasi-identifier labels masked whatever the risk measures say (a masking policy: TAB's annotators
        #: mask every date, place and amount, however common)
        self.mask_labels = set(mask_labels)
        #: knowledge-base classes (``span._.kb_chain``) masked whatever their frequency: the special
        #: categories of personal data (religion, ethnicity, health, sexual orientation...)
        self.mask_kb_classes = set(mask_kb_classes)
        self.risk_thresholds = dict(risk_thresholds or {})
        #: a span scored below these by a measure is kept (see the module doc)
        self.keep_thresholds = dict(keep_thresholds or {})
        #: labels a keep threshold never keeps: a demographic attribute (a religious role, a nationality, a
        #: condition, a family status) stays under the label policy whatever a classifier trained on court
        #: rulings scores it
        self.keep_exempt_labels = set(keep_exempt_labels)
        for measure, keep in self.keep_thresholds.items():
            mask = self.risk_thresholds.get(measure)
            if mask is not None and keep > mask:
                raise ValueError(
                    f"mask_optimizer: keep_thresholds[{measure!r}] = {keep:g} is above "
                    f"risk_thresholds[{measure!r}] = {mask:g}"
                )
        self.measures = set(measures)
        self.unassessed = unassessed
        #: the kinds of public mentions kept out of the decision (:mod:`.public_mentions`)
        self.keep_public = tuple(keep_public)
        PublicText("", self.keep_public)  # an unknown kind fails here, when the pipeline is built
        self.time_limit_s = time_limit_s
        self.num_workers = num_workers
        self.seed = seed
        self.guard = StageGuard(self, nlp, spans_key=spans_key, add_rules=add_rules)
        warm_up()

    def initialize(self, get_examples: Callable | None = None, *, nlp: Language | None = None) -> None:
        """``nlp.initialize()``: check the pipeline's stage order."""
        self.guard.initialize(nlp)

    def __call__(self, doc: Doc) -> Doc:
        self.guard.prepare(doc)
        spans, public = self._public(doc, get_candidates(doc, self.spans_key))
        # in the candidates' order: the entity order is the solver's variable order
        entities = group_entities(spans, in_text_order=False)
        position = {entity.key: e for e, entity in enumerate(entities)}
        of_span = [position[entity_key(span)] for span in spans]
        by_offsets = {(s.start_char, s.end_char): i for i, s in enumerate(spans)}
        # the reasons of each forced entity, each once (a dict as an ordered set: an entity
        # mentioned n times gives its reason once, not n times to each of its n spans)
        forced: dict[int, dict[str, None]] = {}
        assessed = [False] * len(entities)

        for i, span in enumerate(spans):
            e = of_span[i]
            if span._.identifier_type == DIRECT:
                forced.setdefault(e, {})["direct identifier"] = None
            elif span.label_ in self.direct_labels:
                forced.setdefault(e, {})[f"direct identifier (label {span.label_})"] = None
            elif span.label_ in self.mask_labels:
                forced.setdefault(e, {})[f"policy: label {span.label_} is always masked"] = None
            elif self.mask_kb_classes and (special := self.mask_kb_classes.intersection(span._.kb_chain or ())):
                forced.setdefault(e, {})[f"policy: {sorted(special)[0]} is always masked"] = None
            for measure, score in (span._.risk or {}).items():
                assessed[e] = True
                threshold = self.risk_thresholds.get(measure)
                if threshold is not None and score >= threshold:
                    forced.setdefault(e, {})[f"{measure} risk {score:.3g} >= {threshold:g}"] = None

        risky_sets, set_reasons = [], []
        for rs in doc._.risky_sets or []:
            if any(tuple(o) in public for o in rs.get("spans", [])):
                # a minimal risky combination with a mention kept as public: the others alone are not risky
                # (they would be a set of their own), and the kept one tells nobody apart
                continue
            members = sorted({of_span[j] for j in self._span_indices(doc, rs, spans, by_offsets)})
            if not members:
                add_error(
                    doc, f"mask_optimizer: risky set {rs['spans']} ({rs.get('measure')}) matches no candidate span"
                )
                continue
            for e in members:
                assessed[e] = True
            risky_sets.append(members)
            set_reasons.append(f"{rs.get('measure', '?')}: {rs.get('reason', '')}".strip())
        for measure in self.measures:
            if not any(measure in (span._.risk or {}) for span in spans):
                add_error(doc, f"mask_optimizer: measure {measure!r} gave no scores; unassessed spans are masked")
        if self.unassessed == "mask":
            for e, ok in enumerate(assessed):
                if not ok and e not in forced:
                    forced[e] = {"not assessed by any risk measure (masked by default)": None}

        costs = [sum(span_cost(span) for span in entity.spans) for entity in entities]
        solution = solve_masking(
            costs,
            sorted(forced),
            risky_sets,
            time_limit_s=self.time_limit_s,
            num_workers=self.num_workers,
            seed=self.seed,
        )
        if solution.fallback:
            msg = f"mask_optimizer: solver {solution.status}; every span in a risky set is masked"
            logger.warning(msg)
            add_error(doc, msg)

        in_risky_set = {e for members in risky_sets for e in members}
        for e, entity in enumerate(entities):
            reasons = list(forced.get(e, {}))
            for k in solution.covering.get(e, []):
                prefix = "risky: " if len(risky_sets[k]) == 1 else "covers risky combination: "
                reasons.append(prefix + set_reasons[k])
            if solution.fallback and solution.masked[e] and e not in forced:
                reasons.append("solver failed: masked (fail closed)")
            for span in entity.spans:
                span._.masked = solution.masked[e]
                if solution.masked[e]:
                    for r in reasons:
                        add_reason(span, r)
                else:
                    add_reason(
                        span,
                        "kept: no risk found"
                        if e not in in_risky_set
                        else "kept: its risky combinations are covered by other spans",
                    )
        doc._.decision_info = {
            "component": self.name,
            "status": solution.status,
            "objective": round(solution.objective, 4),
            "solve_ms": round(solution.solve_ms, 3),
            "n_entities": len(entities),
            "n_masked": sum(solution.masked),
            "n_risky_sets": len(risky_sets),
            "fallback": solution.fallback,
        }
        return doc

    def _public(self, doc: Doc, candidates: list[Span]) -> tuple[list[Span], dict[tuple[int, int], str]]:
        """The candidates left to decide, and the offsets of the mentions kept out of the decision (public
        mentions and spans a measure scores below its keep threshold), each marked kept here with its reason."""
        if not self.keep_public and not self.keep_thresholds:
            return candidates, {}
        reader = PublicText(doc_text(doc), self.keep_public) if self.keep_public else None
        spans, public = [], {}
        for span in candidates:
            strict = (
                span._.identifier_type == DIRECT
                or span.label_ in self.direct_labels
                or self.mask_kb_classes.intersection(span._.kb_chain or ())
            )
            reason = None if strict else self._kept(reader, span)
            if reason is None:
                spans.append(span)
                continue
            public[span.start_char, span.end_char] = reason
            span._.masked = False
            add_reason(span, reason)
        return spans, public

    def _kept(self, reader: PublicText | None, span: Span) -> str | None:
        """Why a span that is neither direct nor of a special category is kept out of the decision, or None."""
        kind = reader.kind(span.start_char, span.end_char, span.label_) if reader is not None else None
        if kind is not None:
            return f"{PUBLIC_REASON} ({kind})"
        if span.label_ in self.keep_exempt_labels:
            return None
        scores = span._.risk or {}
        for measure, keep in self.keep_thresholds.items():
            score = scores.get(measure)
            if score is not None and score < keep:
                return f"kept: {measure} score {score:.3g} < {keep:g}"
        return None

    @staticmethod
    def _span_indices(doc: Doc, risky_set: dict, spans: list[Span], by_offsets: dict[tuple, int]) -> list[int]:
        """Candidates named by a risky set's offsets (or overlapping them)."""
        out = []
        for start, end in risky_set.get("spans", []):
            j = by_offsets.get((start, end))
            if j is not None:
                out.append(j)
            else:
                out.extend(k for k, s in enumerate(spans) if s.start_char < end and s.end_char > start)
        return out
