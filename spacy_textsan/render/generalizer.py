"""The ``generalizer`` factory: replacement strings and the sanitized text.

Runs after the decision component (``mask_all`` or ``mask_optimizer``) and
fills ``span._.replacement`` for every masked span, then renders
``doc._.sanitized_text`` with an offset map back to the original.

Strategies (``strategy``, overridable per label with ``strategy_by_label``)
are operators picked by name from a registry (:mod:`.operators`, where a new
one is added):

* ``mask``: ``mask_format`` filled with the label and a number that is the
  same for all mentions of one entity (``[PERSON 1]``), or a fixed string
  such as ``***``;
* ``generalize`` (Olstad et al. 2023): PERSON → ``[PERSON 1]``; DATETIME → ``[2009]``,
  ``[date in the 2000s]`` or ``[DATE]``; QUANTITY → ``[X EUR]``;
  LOC / ORG / DEM / MISC → the first ancestor of the span's knowledge-base
  chain (``span._.kb_chain``, from ``wikidata_gazetteer``) that is safe;
  CODE and anything without a safe option → ``***``. An option is dropped
  when it names a masked string of the document or is in ``risky_terms``
  (:func:`~.options.safe_options`), so a generalization never re-identifies
  what it hides;
* ``pseudonym``: a fake but plausible surrogate of the same kind (a name, a
  city, a company, the date shifted by a per-document secret offset, a code
  of the same shape: :mod:`.surrogates`); DEM and MISC are generalized;
* ``hash``: ``[PERSON 3f9a1c2b7d]``, a keyed HMAC of the entity, the same in
  every document hashed with the same key.

In the pipeline's language (``nlp.lang``): a French pipeline's generalizations are French
(``[ville, Norvège]``, ``[date des années 1990]``) and its pseudonyms French names, places and
companies (Faker's ``fr_FR``); Spanish and German likewise (:mod:`.phrases`). An English pipeline's
are as they always were. ``label_language`` is about the masks' labels only.

``pseudonym`` and ``hash`` draw from a secret key (``key_file`` or
``$key_env``, :mod:`.keys`). ``hash`` needs one; ``pseudonym`` without one
draws from the document keyed with the per-user secret (made on first use in
the user's config directory, :func:`~.keys.user_secret`), so its surrogates
are then stable within a document only, the same on every run of this user,
and nobody without the secret can test a guess at the original against them.
A surrogate never contains a masked string of the document (nor is part of
one), a name's surrogate shows no word of a masked name (:class:`NameContext`)
and two entities never share one; without a safe surrogate a date, an
amount, a place, an organisation, a DEM or MISC is generalized, a name or a
code gets the mask format.

All mentions of one entity get the same replacement (for ``generalize``, the
most specific one any of its mentions allows). The leak sweep
(:mod:`.leaks`) then masks every other occurrence of a masked string, also
inside other words (a common word written in lower case, ``widow``, only as a
whole word), with its entity's replacement and the reason
``leak sweep``. Spans without a decision are masked (fail closed) and say so
in their reasons. In a pipeline without a detector the rule layer of
privacy_ner is added to ``doc.ents`` first (``add_rules``,
:class:`~spacy_textsan.stages.StageGuard`).
"""

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from spacy.language import Language
from spacy.tokens import Doc, Span, SpanGroup

from ..decide.public_mentions import PUBLIC_REASON
from ..entities import Entity, group_entities
from ..extensions import SPANS_KEY, add_reason, doc_text, entity_key, get_candidates
from ..risk.phrases import is_common_lowercase
from ..stages import StageGuard
from .keys import SURROGATE_KEY_ENV, MissingKeyError, Secret, read_key, user_secret
from .label_names import label_names
from .leaks import find_leaks
from .mask_format import check_mask_format
from .operators import STRATEGIES, Operator, ReplacementContext, get_operator, strategy_names
from .render import render
from .surrogates import NAME_LABELS, name_words, shares_word

__all__ = ["Generalizer", "NameContext", "make_generalizer", "STRATEGIES", "LEAK_REASON"]

LEAK_REASON = "leak sweep: repeats a masked string"


@dataclass
class NameContext(ReplacementContext):
    """The replacement context of a document that also knows the words of its
    masked names: a surrogate of a name (:data:`~.surrogates.NAME_LABELS`)
    holds none of them, neither of the name it replaces nor of another
    ("Russell Li" for "D'Angelo Russell", "Port Golo" beside "N'Golo Kanté")."""

    #: the words of the masked PERSON, LOC and ORG strings (:func:`~.surrogates.name_words`)
    name_words: frozenset[str] = frozenset()
    #: the label of the entity whose replacement is being chosen
    label: str = ""

    def allowed(self, rep: str) -> bool:
        if self.label in NAME_LABELS and shares_word(rep, self.name_words):
            return False
        return super().allowed(rep)


@Language.factory(
    "generalizer",
    requires=["doc.spans"],
    assigns=["doc._.sanitized_text", "doc._.offset_map"],
    default_config={
        "spans_key": SPANS_KEY,
        "strategy": "mask",
        "mask_format": "[{label} {n}]",
        "strategy_by_label": {},
        "risky_terms": [],
        "key_env": SURROGATE_KEY_ENV,
        "key_file": None,
        "leak_sweep": True,
        "sweep_min_chars": 4,
        "hash_length": 10,
        "add_rules": True,
        "attack": "reid_risk",
        "label_language": None,
    },
)
def make_generalizer(
    nlp: Language,
    name: str,
    spans_key: str,
    strategy: str,
    mask_format: str,
    strategy_by_label: dict[str, str],
    risky_terms: list[str],
    key_env: str | None,
    key_file: str | None,
    leak_sweep: bool,
    sweep_min_chars: int,
    hash_length: int,
    add_rules: bool,
    attack: str,
    label_language: str | None,
) -> "Generalizer":
    return Generalizer(
        name,
        spans_key=spans_key,
        strategy=strategy,
        mask_format=mask_format,
        strategy_by_label=strategy_by_label,
        risky_terms=risky_terms,
        key_env=key_env,
        key_file=key_file,
        leak_sweep=leak_sweep,
        sweep_min_chars=sweep_min_chars,
        hash_length=hash_length,
        nlp=nlp,
        add_rules=add_rules,
        attack=attack,
        label_language=label_language,
    )


class Generalizer:
    """Replacements of the masked spans and the sanitized text (see the module doc)."""

    #: renders the sanitized text (see :mod:`spacy_textsan.stages`)
    textsan_stage = "render"
    #: what it reads and writes (:mod:`spacy_textsan.stages`)
    textsan_reads = ("doc.spans", "span._.masked")
    textsan_renders = ("span._.replacement", "doc._.sanitized_text", "doc._.offset_map")

    def __init__(
        self,
        name: str = "generalizer",
        *,
        spans_key: str = SPANS_KEY,
        strategy: str = "mask",
        mask_format: str = "[{label} {n}]",
        strategy_by_label: dict[str, str] | None = None,
        risky_terms: Iterable[str] = (),
        key_env: str | None = SURROGATE_KEY_ENV,
        key_file: str | None = None,
        leak_sweep: bool = True,
        sweep_min_chars: int = 4,
        hash_length: int = 10,
        nlp: Language | None = None,
        add_rules: bool = True,
        attack: str = "reid_risk",
        label_language: str | None = None,
    ):
        names = strategy_names()
        for label, value in [("strategy", strategy), *(strategy_by_label or {}).items()]:
            if value not in names:
                raise ValueError(f"generalizer: strategy ({label}) must be one of {names}, not {value!r}")
        try:
            check_mask_format(mask_format)
        except ValueError as e:
            raise ValueError(f"generalizer: bad mask_format: {e}") from None
        if not 4 <= hash_length <= 64:
            raise ValueError(f"generalizer: hash_length must be 4 to 64, not {hash_length}")
        language = (nlp.lang if nlp is not None else "en") if label_language == "auto" else label_language
        try:
            #: the masks' labels in the document's language ([PERSONNE 1]); "auto": the pipeline's language
            self.label_names = label_names(language)
        except ValueError as e:
            raise ValueError(f"generalizer: {e} or auto") from None
        self.label_language = label_language
        self.name = name
        self.spans_key = spans_key
        self.strategy = strategy
        self.strategy_by_label = dict(strategy_by_label or {})
        self.mask_format = mask_format
        self.risky_terms = list(risky_terms)
        self.leak_sweep = leak_sweep
        self.sweep_min_chars = sweep_min_chars
        self.hash_length = hash_length
        self.guard = StageGuard(self, nlp, spans_key=spans_key, add_rules=add_rules)
        self.attack = attack
        self._nlp = nlp
        #: the language of the generalizations and pseudonyms (None: the document's, ``doc.lang_``)
        self.language = nlp.lang if nlp is not None else None
        #: one operator instance per strategy used
        self.operators: dict[str, Operator] = {
            n: get_operator(n)() for n in (strategy, *self.strategy_by_label.values())
        }
        self.key: Secret | None = None
        #: drawn from instead of the key when there is none (never the bytes in a pickle)
        self.user_secret: Secret | None = None
        using = [n for n, op in self.operators.items() if op.uses_key]
        if using:
            needing = [n for n, op in self.operators.items() if op.needs_key]
            try:
                self.key = read_key(key_file, key_env, what="surrogate key", required=bool(needing))
            except MissingKeyError as e:
                raise ValueError(f"generalizer: the {', '.join(needing)} strategy needs a key: {e}") from None
            if self.key is None:
                try:
                    self.user_secret = user_secret()
                except MissingKeyError as e:
                    raise ValueError(f"generalizer: the {', '.join(using)} strategy without a key: {e}") from None

    def strategy_for(self, label: str) -> str:
        return self.strategy_by_label.get(label, self.strategy)

    # ------------------------------------------------------------------ #
    def initialize(self, get_examples: Callable | None = None, *, nlp: Language | None = None) -> None:
        """``nlp.initialize()``: check the pipeline's stage order."""
        self.guard.initialize(nlp)

    def __call__(self, doc: Doc) -> Doc:
        self.guard.prepare(doc)
        masked: list[Span] = []
        for span in sorted(get_candidates(doc, self.spans_key), key=lambda s: (s.start_char, s.end_char)):
            if span._.masked is None:
                span._.masked = True
                add_reason(span, "undecided: masked (fail closed)")
            if not span._.masked:
                span._.replacement = None
                continue
            masked.append(span)
        text = doc_text(doc)
        if self.leak_sweep and masked:
            masked = self._sweep(doc, masked, text)
        context = NameContext(
            text,
            [s.text for s in masked],
            name_words=frozenset(w for s in masked if s.label_ in NAME_LABELS for w in name_words(s.text)),
            mask_format=self.mask_format,
            risky_terms=self.risky_terms,
            key=self.key,
            user_secret=self.user_secret,
            hash_length=self.hash_length,
            label_names=self.label_names,
            language=self.language or doc.lang_,
        )
        worded: list[Entity] = []  # entities whose replacement shows words of its own
        for entity in group_entities(masked, by_label=True):  # in order of first mention
            rep = self.replacement(entity, context)
            context.taken.add(rep.casefold())
            if rep != context.masked(entity.label, context.numbers.get(entity.label, 0)):
                worded.append(entity)
            for span in entity.spans:
                span._.replacement = rep
        if worded:
            self._coarsen(doc, text, masked, worded, context)
        doc._.sanitized_text, doc._.offset_map = render(
            text, [(s.start_char, s.end_char, s._.replacement) for s in masked]
        )
        return doc

    def _attacker(self) -> Any:
        """The pipeline's re-identification component named ``attack`` (None: there is none)."""
        nlp = self._nlp
        if not self.attack or nlp is None or self.attack not in nlp.pipe_names:
            return None
        component = nlp.get_pipe(self.attack)
        return component if hasattr(component, "rendered_view") else None

    def _coarsen(
        self, doc: Doc, text: str, masked: list[Span], worded: list[Entity], context: ReplacementContext
    ) -> None:
        """The attack judges what will be published: while the words that replacements show (``[city in
        Norway]``, ``born [1963]``, a pseudonym) leave the attacker family a chance above 1 / k of naming
        the person, the replacement whose masking lowers that chance most is masked; when none lowers it,
        all of them are."""
        attacker = self._attacker()
        if attacker is None:
            return

        def view(entity: Entity | None = None) -> dict:
            trial = {(s.start_char, s.end_char) for s in entity.spans} if entity is not None else set()
            reps = [
                (s.start_char, s.end_char, f"[{s.label_}]" if (s.start_char, s.end_char) in trial else s._.replacement)
                for s in masked
            ]
            return attacker.rendered_view(doc, render(text, reps)[0])

        current = view()
        left = list(worded)
        while left and current.get("measured", True) and current.get("k") is not None and not current["reached"]:
            trials = [(view(e), e) for e in left]
            best, entity = min(trials, key=lambda t: t[0].get("risk", 1.0))
            # no single replacement lowers the chance (a near copy of the person's record, which no mask
            # brings to 1 / k): the words they show only add to what is left, and they are all masked
            chosen = list(left) if best.get("risk", 1.0) >= current.get("risk", 1.0) else [entity]
            for entity in chosen:
                rep = context.mask(entity.label)
                for span in entity.spans:
                    add_reason(
                        span,
                        f"reid: the replacement {span._.replacement!r} left the attack's chance at "
                        f"{current['risk']:.2f} > 1/{current['target_k']}: masked",
                    )
                    span._.replacement = rep
                left.remove(entity)
            current = view()

    def replacement(self, entity: Entity, context: ReplacementContext) -> str:
        """The replacement of all mentions of ``entity``, from its strategy's operator."""
        # the replacement comes from the entity's own mentions, not from the words the
        # leak sweep found it inside ("TR-06-196112.03.1994" for "1961")
        mentions = [s for s in entity.spans if s._.source != "leak_sweep"] or entity.spans
        operator = self.operators[self.strategy_for(entity.label)]
        if isinstance(context, NameContext):
            context.label = entity.label
        return operator.replace(Entity(entity.key, mentions), context)

    def _sweep(self, doc: Doc, masked: list[Span], text: str) -> list[Span]:
        """Mask the other occurrences of masked strings (see :mod:`.leaks`)."""
        # a common word in lower case (``widow``) repeats only as itself, not inside ``widowers``
        lang = doc.lang_
        leaks = find_leaks(
            text,
            [(s.start_char, s.end_char) for s in masked],
            self.sweep_min_chars,
            whole_word=lambda string: is_common_lowercase(string, lang),
        )
        if not leaks:
            return masked
        candidates = get_candidates(doc, self.spans_key)
        by_offsets = {(s.start_char, s.end_char): s for s in candidates}
        # a mention the decision kept as public (mask_optimizer's keep_public: the respondent State in the
        # case's own words) names what every reader knows: masking its other mentions does not make it a leak
        public = [
            (s.start_char, s.end_char)
            for s in candidates
            if any(r.startswith(PUBLIC_REASON) for r in s._.reasons or ())
        ]
        added: list[Span] = []
        for start, end, i in leaks:
            if any(a < end and start < b for a, b in public):
                continue
            source = masked[i]
            span = doc.char_span(start, end, alignment_mode="expand")
            if span is None:
                continue
            existing = by_offsets.get((span.start_char, span.end_char))
            if existing is not None:
                if existing._.masked:
                    continue
                span = existing  # a kept candidate repeats a masked string: now masked
            else:
                span = Span(doc, span.start, span.end, label=source.label_)
                span._.entity_id = entity_key(source)
                span._.identifier_type = source._.identifier_type
                span._.source = "leak_sweep"
                by_offsets[(span.start_char, span.end_char)] = span
                added.append(span)
            span._.masked = True
            add_reason(span, LEAK_REASON)
            masked.append(span)
        if added:
            group = (
                doc.spans[self.spans_key]
                if self.spans_key in doc.spans
                else SpanGroup(doc, name=self.spans_key, spans=candidates)
            )
            for span in added:
                group.append(span)
            doc.spans[self.spans_key] = group
        return sorted(masked, key=lambda s: (s.start_char, s.end_char))
