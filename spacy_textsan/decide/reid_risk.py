"""The ``reid_risk`` factory: a re-identification attack inside the pipeline
decides what else to mask.

It runs after the decision on the candidates (``mask_optimizer``): every word
still visible (kept candidates and the plain text around them) is read by a
family of attackers, searches over the background records that tokenise,
stem, pair and weigh differently (:mod:`.reid_family`, :mod:`.reid_attack`),
and the whole original text, its names weighing most, says who the person
likely is (:mod:`.reid_prior`). While the chance that the worst attacker names
the person is above ``1 / k``, it masks the visible word that lowers that
chance most and searches again. A word inside a kept candidate masks the
candidate's whole entity; a word outside any candidate becomes a new masked
span (``label``, source ``reid:<name>``), with every other occurrence of the
same word, and masked words next to each other become one span. Each mask
says which attacker asked for it::

    reid (pair): 'seals' separates 1 of 548 background records

Words that no record holds but that are rare in the language are masked too
(``unknown_zipf``). With a background built with ``--dense`` the same is done
against a sentence encoder (:mod:`.reid_dense`, ``dense``, ``dense_margin``).
``doc._.reid_risk`` holds the family's view after the masks (``k``, the
``risk``, the worst ``attacker``, whether ``target_k`` was reached, the best
records, the words that narrow most, the records left out and why). When the
background does not hold the person, the risk is *not measured* (``k: null``,
``measured: false``, ``why``) and nothing is masked for it. A data owner who
knows the person's background record sets ``doc._.reid_target`` to its id for
the stricter check. ``max_share`` caps the share of a document the attack may
mask (beyond it the document is reported unreached); words that do not reach
``1 / k`` are undone unless ``unreached = "keep"``; in a guarded document (not measured) they stay unless
``guard_unreached = "undo"``.

With ``release`` (:mod:`.reid_release`) the masks of the label policy and of kanon_risk's risky sets are
taken back first where the attack measures the document and brings it to ``1 / k``.

A record is left out only when the user names it (``exclude_ids``,
``doc._.reid_exclude``) or when its text is exactly the document's
(``exclude_same_text``); the report lists each one. :meth:`ReidRisk.rendered_view`
judges the text that will be published (the generalizer's replacements
visible).

Without a background (or if anything raises) every kept candidate is masked
and the error is reported: fail closed.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

from spacy.language import Language
from spacy.tokens import Doc, Span

from ..extensions import (
    QUASI,
    SPANS_KEY,
    add_candidates,
    add_error,
    add_reason,
    covered_chars,
    get_candidates,
    masked_offsets,
)
from ..risk.background import Background
from ..risk.reid_attack import UNREACHED, DocWords, Plan, plan_masks
from ..risk.reid_dense import DenseBackground, Encoder, TransformerEncoder, dense_risk, plan_dense
from ..risk.reid_family import ANALYSERS, words_of
from ..risk.reid_index import BackgroundIndex
from ..risk.reid_scores import RANK_FLOOR
from ..text_folding import fold
from .reid_layout import Layout, merge_words, uncovered, word_around
from .reid_once import warm_up, word_zipf
from .reid_release import RELEASE_MODES, Snapshot, releasable

#: the settings of ``unmeasured``: what a document the background does not measure gets
UNMEASURED_MODES = ("report", "guard", "own_background")

logger = logging.getLogger("spacy_textsan")

__all__ = ["ReidRisk", "make_reid_risk"]

#: where a doc keeps what was masked when reid_risk reported (doc.user_data)
_STATE_KEY = ("spacy_textsan", "reid_masked")


def masked_state(doc: Doc, spans_key: str) -> int:
    """A fingerprint of what is masked in ``doc`` (the masked or undecided candidates' offsets)."""
    return hash(tuple(map(tuple, masked_offsets(doc, spans_key))))


def background_language(index: object) -> str | None:
    """The language the background's records were read in: its manifest's analyser (``en``, ``fr``, ``es``,
    ``de``: ``textsan background build --lang``), else the index's own; None if neither says."""
    read_by = getattr(index, "analyser", None)
    manifest = getattr(index, "manifest", None) or {"analyser": {"stopwords": getattr(read_by, "lang", None)}}
    language = (manifest.get("analyser") or {}).get("stopwords")
    return language if isinstance(language, str) and language else None


@lru_cache(maxsize=2)
def _encoder(model: str | None) -> Encoder:
    """The dense attack's encoder, loaded once per process (``None``: the packaged all-MiniLM-L6-v2)."""
    return TransformerEncoder(model)


@Language.factory(
    "reid_risk",
    requires=["doc.spans"],
    assigns=["doc._.reid_risk"],
    default_config={
        "spans_key": SPANS_KEY,
        "background": {"@misc": "spacy_textsan.background.v1", "path": None},
        "k": 10,
        "margin": 0.12,
        "max_steps": 200,
        "top_records": 64,
        "cost_power": 0.0,
        "exclude_same_text": True,
        "exclude_ids": [],
        "unknown_zipf": 3.5,
        "distinct_zipf": 3.0,
        "common_share": 0.5,
        "attackers": ["stem", "word", "prefix", "pair"],
        "unreached": "undo",
        "guard_unreached": "keep",
        "rank_floor": 0.6,
        "label": "MISC",
        "direct_labels": ["PERSON", "CODE"],
        "max_share": 1.0,
        "dense": "auto",
        "dense_margin": 0.05,
        "dense_model": None,
        "release": "never",
        "unmeasured": "own_background",
    },
)
def make_reid_risk(
    nlp: Language,
    name: str,
    spans_key: str,
    background: Background | None,
    k: int,
    margin: float,
    max_steps: int,
    top_records: int,
    cost_power: float,
    exclude_same_text: bool,
    exclude_ids: list[str],
    unknown_zipf: float | None,
    distinct_zipf: float,
    common_share: float,
    attackers: list[str],
    unreached: str,
    guard_unreached: str,
    rank_floor: float | None,
    label: str,
    direct_labels: list[str],
    max_share: float,
    dense: str,
    dense_margin: float,
    dense_model: str | None,
    release: str,
    unmeasured: str,
) -> ReidRisk:
    return ReidRisk(
        name,
        spans_key=spans_key,
        background=background,
        k=k,
        margin=margin,
        max_steps=max_steps,
        top_records=top_records,
        cost_power=cost_power,
        exclude_same_text=exclude_same_text,
        exclude_ids=exclude_ids,
        unknown_zipf=unknown_zipf,
        distinct_zipf=distinct_zipf,
        common_share=common_share,
        attackers=attackers,
        unreached=unreached,
        guard_unreached=guard_unreached,
        rank_floor=rank_floor,
        lang=nlp.lang or "en",
        label=label,
        direct_labels=direct_labels,
        max_share=max_share,
        dense=dense,
        dense_margin=dense_margin,
        dense_model=dense_model,
        release=release,
        unmeasured=unmeasured,
    )


class ReidRisk:
    """Masks what the attacker's search needs until the person hides among ``k`` records."""

    #: it masks: a decision (see :mod:`spacy_textsan.stages`), after the one on the candidates
    textsan_stage = "decide"
    #: what it reads and writes (:mod:`spacy_textsan.stages`)
    textsan_reads = ("doc.spans", "span._.masked")
    textsan_decides = ("doc.spans", "span._.masked", "span._.reasons", "doc._.reid_risk")

    def __init__(
        self,
        name: str = "reid_risk",
        *,
        spans_key: str = SPANS_KEY,
        background: Background | None = None,
        k: int = 10,
        margin: float = 0.12,
        max_steps: int = 200,
        top_records: int = 64,
        cost_power: float = 0.0,
        exclude_same_text: bool = True,
        exclude_ids: Iterable[str] = (),
        unknown_zipf: float | None = 3.5,
        distinct_zipf: float = 3.0,
        common_share: float = 0.5,
        attackers: Iterable[str] = ("stem", "word", "prefix", "pair"),
        unreached: str = "undo",
        guard_unreached: str = "keep",
        rank_floor: float | None = RANK_FLOOR,
        lang: str = "en",
        label: str = "MISC",
        direct_labels: Iterable[str] = ("PERSON", "CODE"),
        max_share: float = 1.0,
        dense: str = "auto",
        dense_margin: float = 0.05,
        dense_model: str | None = None,
        release: str = "never",
        unmeasured: str = "own_background",
        index: BackgroundIndex | None = None,
        dense_parts: tuple[Encoder, DenseBackground] | None = None,
    ) -> None:
        if k < 1:
            raise ValueError(f"reid_risk: k must be >= 1, got {k}")
        if not 0.0 < margin < 1.0:
            raise ValueError(f"reid_risk: margin must be in (0, 1), got {margin}")
        if max_steps < 0 or top_records < 1:
            raise ValueError("reid_risk: max_steps must be >= 0 and top_records >= 1")
        self.name = name
        self.spans_key = spans_key
        self.k = k
        self.margin = margin
        self.max_steps = max_steps
        self.top_records = top_records
        self.cost_power = cost_power
        self.exclude_same_text = exclude_same_text
        self.exclude_ids = tuple(exclude_ids)
        self.unknown_zipf = unknown_zipf
        self.distinct_zipf = distinct_zipf
        if not 0.0 < common_share <= 1.0:
            raise ValueError(f"reid_risk: common_share must be in (0, 1], got {common_share}")
        self.common_share = common_share
        self.attackers = tuple(attackers)
        for setting, value in (("unreached", unreached), ("guard_unreached", guard_unreached)):
            if value not in UNREACHED:
                raise ValueError(f"reid_risk: {setting} must be one of {', '.join(UNREACHED)}, not {value!r}")
        self.unreached = unreached
        self.guard_unreached = guard_unreached
        if rank_floor is not None and not 0.0 < rank_floor <= 1.0:
            raise ValueError(f"reid_risk: rank_floor must be in (0, 1] or null, got {rank_floor}")
        self.rank_floor = rank_floor
        unknown = sorted(set(self.attackers) - set(ANALYSERS))
        if unknown or not self.attackers:
            raise ValueError(f"reid_risk: attackers must be some of {', '.join(ANALYSERS)}, not {unknown or 'none'}")
        self.lang = lang
        self.label = label
        self.direct_labels = tuple(direct_labels)
        if not 0.0 < max_share <= 1.0:
            raise ValueError(f"reid_risk: max_share must be in (0, 1], got {max_share}")
        self.max_share = max_share
        if dense not in ("auto", "on", "off"):
            raise ValueError(f"reid_risk: dense must be 'auto', 'on' or 'off', not {dense!r}")
        if not 0.0 < dense_margin < 1.0:
            raise ValueError(f"reid_risk: dense_margin must be in (0, 1), got {dense_margin}")
        self.dense = dense
        self.dense_margin = dense_margin
        self.dense_model = dense_model
        if release not in RELEASE_MODES:
            raise ValueError(f"reid_risk: release must be one of {', '.join(RELEASE_MODES)}, not {release!r}")
        self.release = release
        if unmeasured not in UNMEASURED_MODES:
            raise ValueError(f"reid_risk: unmeasured must be one of {', '.join(UNMEASURED_MODES)}, not {unmeasured!r}")
        self.unmeasured = unmeasured
        self._dense_state: tuple[Encoder, DenseBackground] | bool | None = dense_parts
        self.background = background if index is None else None
        self.index = index
        self._index_error: str | None = None
        if index is None:
            if background is None:
                self._index_error = "no background (set background, paths.background or --background)"
            else:
                try:
                    self.index = background.search()
                except (OSError, ValueError, LookupError) as error:
                    self._index_error = f"cannot load the background: {error}"
        if self.index is not None:
            warm_up(self.index, self.k, self.margin)
        # whether to release (:meth:`_released`), decided once: the background is fixed
        own = self.background is not None and not self.background.shipped
        self._releases = release == "always" or (release == "own_background" and own)
        self._guards = unmeasured == "guard" or (unmeasured == "own_background" and own)

    def __call__(self, doc: Doc) -> Doc:
        try:
            if self.index is None:
                raise LookupError(self._index_error)
            plan = self._released(doc, self.index) or self.assess(doc, self.index, max_steps=self.max_steps)
            doc._.reid_risk = self._report(plan)
            user_data: dict[Any, Any] = doc.user_data  # spaCy's own keys are tuples too
            user_data[_STATE_KEY] = masked_state(doc, self.spans_key)
        except Exception as error:  # fail closed: every kept candidate is masked
            logger.warning("reid_risk failed: %s", error)
            add_error(doc, f"{self.name}: {type(error).__name__}: {error}")
            masked = self._mask_all_kept(doc)
            doc._.reid_risk = {"k": None, "target_k": self.k, "reached": False, "masked": masked, "error": str(error)}
        return doc

    def _released(self, doc: Doc, index: BackgroundIndex) -> Plan | None:
        """The plan with the rules' masks taken back (:mod:`.reid_release`), when it is measured and reaches
        ``1 / k``; else None, and the doc as it was."""
        if not self._releases:
            return None
        spans = [s for s in get_candidates(doc, self.spans_key) if releasable(s, self.direct_labels)]
        if not spans:
            return None
        snapshot = Snapshot(doc, self.spans_key)
        for span in spans:
            span._.masked = False
        plan = self.assess(doc, index, max_steps=self.max_steps)
        report = self._report(plan)
        if not (report.get("measured") and report.get("reached")):
            snapshot.restore()
            return None
        for span in spans:
            if span._.masked is False:
                rules = "; ".join(r for r in span._.reasons or () if not r.startswith("kb:"))
                span._.reasons = [
                    f"kept: {self.name} released it, the attack reaches k >= {self.k} without it ({rules})"
                ]
        return plan

    def _exclusions(self, doc: Doc, index: BackgroundIndex, text: str) -> dict[str, str]:
        """The records left out for ``doc`` (the user's ids, and its very text), and why."""
        why = {rid: "excluded by id" for rid in [*self.exclude_ids, *(doc._.reid_exclude or ())]}
        if self.exclude_same_text:
            for rid in index.same_text(text):
                why.setdefault(rid, "the same text as this document")
        return why

    def _plan(self, index: BackgroundIndex, words: DocWords, doc: Doc, why: dict[str, str], **settings) -> Plan:
        return plan_masks(
            index,
            words,
            k=self.k,
            margin=self.margin,
            exclude=list(why),
            target=doc._.reid_target,
            top_records=self.top_records,
            cost_power=self.cost_power,
            zipf=word_zipf(self.lang),
            distinct_zipf=self.distinct_zipf,
            common_share=self.common_share,
            analysers=self.attackers,
            unreached=self.unreached,
            guard_unreached=self.guard_unreached,
            lang=self.lang,
            background_lang=background_language(index),
            rank_floor=self.rank_floor,
            guard=self._guards,
            **settings,
        )

    def rendered_view(self, doc: Doc, text: str) -> dict:
        """The attacker family's view of ``text``, what will be published for ``doc`` (the words its
        replacements show are visible), who the person is read from ``doc``'s original text; with the
        dense attacker too when the background has its part. ``{"k": None, "error"}`` if it fails."""
        try:
            if self.index is None:
                raise LookupError(self._index_error)
            original = Layout(doc, self.spans_key, self.direct_labels, self.index.analyser).words
            words = words_of(text, self.index.analyser)
            group = list(range(len(words)))
            published = DocWords(text, words, group, [w.end - w.start for w in words])
            why = self._exclusions(doc, self.index, original.text)
            plan = self._plan(self.index, published, doc, why, max_steps=0, unknown_zipf=None, prior_doc=original)
            dense = self._dense()
            if dense is not None and plan.prior is not None and plan.view is not None and plan.view.measured:
                encoder, background = dense
                scores = background.record_scores(encoder.encode([text]))
                risk = float(dense_risk(scores, plan.prior, self.dense_margin)[0])
                plan.dense = {"risk": round(risk, 6), "k": int(1.0 / max(risk, 1e-12)), "reached": risk <= 1 / self.k}
            plan.excluded_why = why
            return self._report(plan)
        except Exception as error:
            return {"k": None, "target_k": self.k, "reached": False, "error": f"{type(error).__name__}: {error}"}

    def assess(self, doc: Doc, index: BackgroundIndex, *, max_steps: int) -> Plan:
        """Plan (up to ``max_steps`` masks) and apply the masks to ``doc``."""
        layout = Layout(doc, self.spans_key, self.direct_labels, index.analyser)
        why = self._exclusions(doc, index, layout.text)
        plan = self._plan(
            index,
            layout.words,
            doc,
            why,
            max_steps=max_steps,
            budget=self._budget(layout.text),
            unknown_zipf=self.unknown_zipf,
        )
        if plan.steps:
            self._apply(doc, layout, plan)
        dense = self._dense()
        measured = plan.view is not None and (plan.view.measured or plan.guarded)
        if dense is not None and plan.prior is not None and measured:
            encoder, background = dense
            layout = Layout(doc, self.spans_key, self.direct_labels, index.analyser) if plan.steps else layout
            steps, view = plan_dense(
                encoder,
                background,
                layout.text,
                layout.words.occurrences(),
                layout.words.spans(),
                layout.words.group_cost,
                plan.prior,
                k=self.k,
                margin=self.dense_margin,
                hidden=layout.hidden,
                max_steps=max_steps,
                budget=self._budget(layout.text),
                n_background=index.n_records,
            )
            view["top"] = [[index.ids[r], score] for r, score in view["top"]]
            plan.dense = view
            if steps:
                plan.steps.extend(steps)
                self._apply(doc, layout, Plan(steps=steps))
        plan.excluded_why = {rid: why[rid] for rid in plan.excluded}
        return plan

    def _budget(self, text: str) -> int | None:
        """The most characters the attack may mask in ``text`` (None: no limit)."""
        return None if self.max_share >= 1 else int(self.max_share * len(text))

    def _dense(self) -> tuple[Encoder, DenseBackground] | None:
        """The dense attacker and its passages (None: off, or the background has no dense part)."""
        if self.dense == "off" or self.background is None:
            return None
        if self._dense_state is None:
            background = self.background.dense()
            if background is None:
                if self.dense == "on":
                    raise LookupError(f"{self.background.path} has no dense part (textsan background build --dense)")
                self._dense_state = False
            else:
                self._dense_state = (_encoder(self.dense_model), background)
        return self._dense_state if isinstance(self._dense_state, tuple) else None

    def view(self, doc: Doc) -> dict:
        """The attacker's view of ``doc`` as it stands (nothing is masked); ``{"k": None, "error"}`` if it fails.
        The view this component reported is reused while nothing was masked since, measured or not (a
        document the background does not cover was planned once, not once more for residual_risk)."""
        reported = doc._.reid_risk
        user_data: dict[Any, Any] = doc.user_data
        if reported and "error" not in reported and user_data.get(_STATE_KEY) == masked_state(doc, self.spans_key):
            return dict(reported)
        try:
            if self.index is None:
                raise LookupError(self._index_error)
            return self._report(self.assess(doc, self.index, max_steps=0))
        except Exception as error:
            return {"k": None, "target_k": self.k, "reached": False, "error": f"{type(error).__name__}: {error}"}

    def _report(self, plan: Plan) -> dict:
        assert plan.view is not None
        report = plan.view.as_dict()
        report["masked"] = [step.text for step in plan.steps]
        report["excluded"] = [{"id": rid, "why": plan.excluded_why.get(rid, "")} for rid in plan.excluded]
        if plan.guarded:
            report["guarded"] = True
        if plan.unreachable:
            report["why"] = plan.unreachable
        dense = plan.dense
        if dense is not None:
            report["dense"] = dense
            # the document is as safe as the worse of the two attacks
            report["risk"] = max(report["risk"], dense["risk"])
            if report["k"] is not None:
                report["k"] = min(report["k"], dense["k"])
            report["reached"] = report["reached"] and dense["reached"]
        return report

    def _apply(self, doc: Doc, layout: Layout, plan: Plan) -> None:
        reason_of: dict[int, str] = {}
        for step in plan.steps:
            for g in step.groups:
                reason_of.setdefault(g, step.reason)
        for g, reason in reason_of.items():
            if g < len(layout.entities):
                for mention in layout.entities[g].spans:
                    mention._.masked = True
                    add_reason(mention, reason)
        words: list[tuple[int, int, str]] = []
        for g, reason in sorted(reason_of.items(), key=lambda it: layout.free.get(it[0], (0, 0))):
            if g in layout.free:
                start, end = word_around(layout.text, *layout.free[g])
                words.append((start, end, reason))
        covered = covered_chars(doc, get_candidates(doc, self.spans_key))
        new: list[Span] = []
        stretches = [
            (a, b, reasons)
            for start, end, reasons in merge_words(layout.text, words)
            for a, b in uncovered(layout.text, covered, start, end)
        ]
        for start, end, reasons in stretches:
            found = doc.char_span(start, end, label=self.label, alignment_mode="expand")
            if found is None or covered.find(1, found.start_char, found.end_char) != -1:
                found = doc.char_span(start, end, label=self.label, alignment_mode="contract")
            if found is None or not len(found) or covered.find(1, found.start_char, found.end_char) != -1:
                add_error(doc, f"{self.name}: could not mask {layout.text[start:end]!r} (no token boundary)")
                continue
            span = found
            covered[span.start_char : span.end_char] = b"\x01" * (span.end_char - span.start_char)
            span._.source = f"reid:{self.name}"
            span._.identifier_type = QUASI
            span._.entity_id = f"reid:{fold(span.text, compat=False)}"
            span._.masked = True
            for reason in reasons:
                add_reason(span, reason)
            new.append(span)
        add_candidates(doc, new, self.spans_key)

    def _mask_all_kept(self, doc: Doc) -> list[str]:
        kept = [s for s in get_candidates(doc, self.spans_key) if s._.masked is False]
        for span in kept:
            span._.masked = True
            add_reason(span, f"{self.name} failed: masked (fail closed)")
        return [s.text for s in kept]

    def to_disk(self, path: str | Path, *, exclude: Iterable[str] = ()) -> None:
        Path(path).mkdir(parents=True, exist_ok=True)

    def from_disk(self, path: str | Path, *, exclude: Iterable[str] = ()) -> ReidRisk:
        return self
