"""The generalizer's strategies as operators, registered by name.

An operator (Presidio's operators are the model) turns one masked entity into
its replacement string: :meth:`Operator.replace` gets the entity's mentions
and the :class:`ReplacementContext` of the document (the component's settings,
the masked strings, the replacements already given and the mask numbers).
Operators live in the ``operators`` registry (a catalogue registry, also read
from the ``spacy_textsan_operators`` entry point group), and the component
picks them by name: ``strategy = "pseudonym"``. The built-in ones:

* ``mask``: ``mask_format`` filled with the label and a number that is the
  same for all mentions of one entity (``[PERSON 1]``);
* ``generalize`` (Olstad et al. 2023): PERSON is masked, everything else gets the most
  specific safe option of its mentions (:mod:`.options`) or ``***``; in a document of another language
  than English, written in its language (:mod:`.phrases`);
* ``pseudonym``: a fake but plausible surrogate of the same kind
  (:mod:`.surrogates`) that names no masked string and no other entity's
  replacement; without one a date, an amount, a place, an organisation, a DEM
  or MISC is generalized, a name or a code masked. Names, places and organisations come from Faker's
  locale of the document's language (:func:`.phrases.faker_locale`). With a surrogate key its
  surrogates are the same in every document; without one they are drawn from
  the document keyed with the per-user secret, so stable within a document;
* ``hash``: ``[PERSON 3f9a1c2b7d]``, a keyed HMAC of the entity's fullest mention.

A new strategy is a subclass of :class:`Operator` with a ``name``, decorated
with :func:`register_operator`.

An operator may also work on a span on its own, without its document
(:meth:`Operator.operate`, Presidio's operators: the ``/anonymize`` endpoint of
``textsan serve``): it then declares its :attr:`~Operator.params`, a pydantic
model that checks them. ``mask`` (``chars_to_mask`` characters become
``masking_char``) and ``hash`` (salted SHA-256 or SHA-512) have both forms;
``replace`` (``new_value`` or ``<ENTITY_TYPE>``), ``redact`` and ``keep`` work
on spans only and are no strategies of the generalizer (:func:`strategy_names`
leaves them out).
"""

import hashlib
import os
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar, Literal

import catalogue
from pydantic import BaseModel, ConfigDict, Field, field_validator
from spacy.tokens import Span

from ..entities import Entity
from ..extensions import TAB_LABELS
from ..text_folding import fold
from .keys import Secret
from .options import STAR, chain_options, datetime_options, quantity_options, safe_options
from .phrases import echoes, faker_locale, phrase_translator
from .surrogates import (
    canonical_text,
    document_shift,
    entity_seed,
    fake_value,
    hash_token,
    quantity_surrogate,
    scramble,
    shift_dates,
)

__all__ = [
    "Operator",
    "ReplacementContext",
    "operators",
    "register_operator",
    "get_operator",
    "strategy_names",
    "span_operator_names",
    "StrategyError",
    "OperatorParams",
    "STRATEGIES",
    "KB_LABELS",
    "options",
]

#: Labels generalized from the knowledge-base chain of their span.
KB_LABELS = ("LOC", "ORG", "DEM", "MISC")
#: Labels that ``pseudonym`` generalizes when it finds no safe surrogate (the others are masked). Not
#: DATETIME: its generalization keeps the original year, which among shifted dates would read as shifted
#: too; a date with no safe shift is masked.
GENERALIZED_LABELS = (*KB_LABELS, "QUANTITY")

#: The registry of operators, by strategy name.
operators = catalogue.create("spacy_textsan", "operators", entry_points=True)


@dataclass
class ReplacementContext:
    """What the operators share while the replacements of one document are chosen."""

    #: the document's text
    text: str
    #: the texts of its masked spans
    masked_texts: list[str]
    #: the component's settings
    mask_format: str = "[{label} {n}]"
    risky_terms: list[str] = field(default_factory=list)
    key: Secret | None = None
    #: the per-user secret (:func:`.keys.user_secret`), drawn from when there is no key
    user_secret: Secret | None = None
    hash_length: int = 10
    #: the mask numbers given so far, by label
    numbers: dict[str, int] = field(default_factory=dict)
    #: the replacements given so far, case-folded
    taken: set[str] = field(default_factory=set)
    #: the labels' names in the mask (:mod:`.label_names`; a label not in it is written as it is)
    label_names: dict[str, str] = field(default_factory=dict)
    #: the document's language (the pipeline's): of the generalizations and the pseudonyms (:mod:`.phrases`)
    language: str = "en"

    def mask(self, label: str) -> str:
        """The mask format with the next number of ``label``: ``[PERSON 2]``."""
        self.numbers[label] = self.numbers.get(label, 0) + 1
        return self.masked(label, self.numbers[label])

    def masked(self, label: str, n: int) -> str:
        """The mask format with number ``n`` of ``label``, the label in the mask's language."""
        return self.mask_format.format(label=self.label_names.get(label, label), n=n)

    @cached_property
    def forbidden(self) -> list[str]:
        """What a surrogate may not hold nor be part of: the masked strings, case-folded, whitespace collapsed."""
        return [fold(t, compat=False) for t in self.masked_texts if len(t.strip()) >= 2]

    @cached_property
    def doc_secret(self) -> bytes:
        """A secret of the document: its digest, keyed with the surrogate key, else
        with the per-user secret. Keyed, nobody who reads the output can recompute
        it from a guess at the original text (and so test the guess); the bare
        digest is left only to an operator that draws from no key (``uses_key``)."""
        digest = hashlib.sha256(self.text.encode("utf-8", "surrogatepass")).digest()
        secret = self.key if self.key is not None else self.user_secret
        if secret is None:
            return digest
        return entity_seed(secret.reveal(), "document", digest.hex()).to_bytes(8, "big")

    def allowed(self, rep: str) -> bool:
        """Not another entity's replacement; holds no masked string and is not part of one."""
        folded = fold(rep, compat=False)
        return folded not in self.taken and not any(f in folded or folded in f for f in self.forbidden)


class OperatorParams(BaseModel):
    """The parameters of an operator on a span on its own (Presidio's operator
    parameters): strict types, finite numbers; those it does not name are ignored."""

    model_config = ConfigDict(extra="ignore", strict=True, allow_inf_nan=False)


class Operator:
    """An operator, in one form or both: a strategy of the generalizer (the
    replacement of one masked entity, :meth:`replace`) and an operation on a
    span on its own (:meth:`operate`, with :attr:`params`)."""

    #: the name it is registered and configured under
    name: ClassVar[str]
    #: draws from the surrogate key when one is configured
    uses_key: ClassVar[bool] = False
    #: cannot work without a surrogate key
    needs_key: ClassVar[bool] = False
    #: a strategy of the generalizer (False: an operator of single spans only)
    strategy: ClassVar[bool] = True
    #: the parameters :meth:`operate` takes, checked by the model; None: no operation on a span on its own
    params: ClassVar[type[OperatorParams] | None] = None

    def replace(self, entity: Entity, context: ReplacementContext) -> str:
        """The replacement of ``entity`` (its mentions, in text order)."""
        raise NotImplementedError(f"{self.name} is not a strategy of the generalizer")

    def operate(self, text: str, label: str, params: Any) -> str:
        """The new text of a span on its own: ``text`` the span's text, ``label``
        its entity type, ``params`` an instance of :attr:`params`."""
        raise NotImplementedError(f"{self.name} does not operate on a span on its own")


def register_operator(cls: type[Operator]) -> type[Operator]:
    """Class decorator: register an operator under its ``name``."""
    operators.register(cls.name, func=cls)
    return cls


def get_operator(name: str) -> type[Operator]:
    """The operator class registered under ``name``."""
    return operators.get(name)


def strategy_names() -> tuple[str, ...]:
    """The names of the registered operators that are strategies of the generalizer (built-in ones first)."""
    return tuple(name for name, cls in operators.get_all().items() if getattr(cls, "strategy", True))


def span_operator_names() -> tuple[str, ...]:
    """The names of the registered operators that operate on a span on its own (those with ``params``)."""
    return tuple(name for name, cls in operators.get_all().items() if getattr(cls, "params", None) is not None)


class StrategyError(ValueError):
    """A strategy setting refused (:func:`strategy_settings`): the message
    quotes the value; ``item`` (its place among the comma-separated items,
    from 0) and ``reason`` say what is wrong without quoting it."""

    def __init__(self, message: str, item: int, reason: str) -> None:
        super().__init__(message)
        self.item = item
        self.reason = reason


def strategy_settings(value: str | None) -> dict[str, object]:
    """The generalizer settings of a strategy as ``textsan sanitize --strategy``
    and ``textsan serve`` take it: ``pseudonym`` or
    ``pseudonym,DATETIME=generalize,CODE=mask`` (a default strategy and
    per-type exceptions) -> ``{"strategy": ..., "strategy_by_label": {...}}``.
    Raises :class:`StrategyError` with the problem."""
    if not value:
        return {}
    default, by_label = None, {}
    for i, item in enumerate(v.strip() for v in value.split(",") if v.strip()):
        label, sep, strategy = item.rpartition("=")
        if sep and label not in TAB_LABELS:
            labels = ", ".join(TAB_LABELS)
            raise StrategyError(f"strategy: {label!r} is not one of {labels}", i, f"the label is not one of {labels}")
        names = ", ".join(strategy_names())  # the registered strategies, those of other packages too
        if strategy not in strategy_names():
            raise StrategyError(
                f"strategy: {strategy!r} is not one of {names}", i, f"the strategy is not one of {names}"
            )
        if sep:
            by_label[label] = strategy
        elif default is None:
            default = strategy
        else:
            raise StrategyError(f"strategy names two default strategies: {value!r}", i, "a second default strategy")
    out: dict[str, object] = {}
    if default:
        out["strategy"] = default
    if by_label:
        out["strategy_by_label"] = by_label
    return out


def options(span: Span) -> list[str]:
    """Replacement options of one span, most specific first (see :mod:`.options`)."""
    label = span.label_
    if label == "DATETIME":
        return datetime_options(span.text)
    if label == "QUANTITY":
        return quantity_options(span.text)
    if label in KB_LABELS:
        return chain_options(span._.kb_chain)
    return []


def generalize(entity: Entity, context: ReplacementContext) -> str:
    """The most specific safe option any mention of the entity offers, else ``***``.

    In a document of another language (``context.language``, :func:`.phrases.translates`) an option is
    written in it (:func:`.phrases.translate_phrase`) and must be safe in English and as written; an option
    the phrase table cannot write is passed over for the next, more general, one. When none is left and
    one was passed over for want of a translation, the entity is masked (``[LOC 1]``) rather than starred."""
    translate = phrase_translator(context.language)
    best: tuple[int, str] | None = None
    untranslated = False
    for span in entity.spans:
        span_options = options(span)
        names = span.label_ in KB_LABELS
        safe = safe_options(span_options, context.masked_texts, context.risky_terms, original=span.text, names=names)
        written = [(option, option) for option in safe]
        if translate is not None:
            pairs = [(option, translate(option)) for option in safe]
            untranslated = untranslated or any(t is None for _, t in pairs)
            candidates = [(option, t) for option, t in pairs if t is not None]
            # as written too: a country's name in the language may be masked ("Norvège"), or echo the original
            ok = set(
                safe_options([t for _, t in candidates], context.masked_texts, context.risky_terms, span.text, names)
            )
            written = [(o, t) for o, t in candidates if t in ok and not (names and echoes(t, span.text))]
        if written:
            rank = span_options.index(written[0][0])
            if best is None or rank < best[0]:
                best = (rank, written[0][1])
    if best is not None:
        return f"[{best[1]}]"
    return context.mask(entity.label) if untranslated else STAR


#: The longest string parameter of an operator (a new value, a salt).
MAX_PARAM = 200


class MaskParams(OperatorParams):
    """``chars_to_mask`` characters of the span (from its end with ``from_end``) become ``masking_char``."""

    masking_char: str = Field(min_length=1, max_length=1)
    chars_to_mask: int
    from_end: bool


@register_operator
class Mask(Operator):
    """``[PERSON 1]``: the mask format, numbered per label. On a span on its
    own, Presidio's mask: ``chars_to_mask`` of its characters become ``masking_char``."""

    name = "mask"
    params = MaskParams

    def replace(self, entity: Entity, context: ReplacementContext) -> str:
        return context.mask(entity.label)

    def operate(self, text: str, label: str, params: MaskParams) -> str:
        n = min(len(text), params.chars_to_mask) if params.chars_to_mask > 0 else 0
        if params.from_end:
            return text[: len(text) - n] + params.masking_char * n
        return params.masking_char * n + text[n:]


@register_operator
class Generalize(Operator):
    """The most specific safe generalization (Olstad et al. 2023); PERSON is masked."""

    name = "generalize"

    def replace(self, entity: Entity, context: ReplacementContext) -> str:
        if entity.label == "PERSON":
            return context.mask(entity.label)
        return generalize(entity, context)


@register_operator
class Pseudonym(Operator):
    """A plausible surrogate of the same kind, else generalized or masked."""

    name = "pseudonym"
    uses_key = True

    def __init__(self) -> None:
        self._fakers: dict[str, Any] = {}  # Faker by locale, each created on first use (a slow import)

    def replace(self, entity: Entity, context: ReplacementContext) -> str:
        rep = self.surrogate(entity, context)
        if rep is None and entity.label in GENERALIZED_LABELS:
            rep = generalize(entity, context)  # no safe surrogate: generalized
        return rep if rep is not None else context.mask(entity.label)

    def surrogate(self, entity: Entity, context: ReplacementContext) -> str | None:
        """A surrogate that names no masked string and no other entity's
        replacement (:meth:`ReplacementContext.allowed`), or None."""
        spans, label = entity.spans, entity.label
        canonical = canonical_text(entity.fullest(stable=True))
        secret = context.key.reveal() if context.key is not None else context.doc_secret
        if label == "DATETIME":
            # one shift for the whole document keeps the intervals between its dates; a shifted
            # date that would hold a masked string (its own year left as it was, another date's
            # text) is refused and the entity masked instead
            days, years = document_shift(entity_seed(context.doc_secret, "shift"))
            rep = next((r for r in (shift_dates(s.text, days, years) for s in spans) if r), None)
            return rep if rep is not None and context.allowed(rep) else None
        faker = None
        if label in ("PERSON", "LOC", "ORG"):
            locale = faker_locale(context.language)
            faker = self._fakers.get(locale)
            if faker is None:
                from faker import Faker

                faker = self._fakers[locale] = Faker(locale)
        is_country = label == "LOC" and any(c.split()[0] == "country" for s in spans for c in (s._.kb_chain or []) if c)
        for attempt in range(20):
            seed = entity_seed(secret, label, canonical, str(attempt))
            candidate: str | None
            if label == "CODE":
                candidate = scramble(spans[0].text, seed)
            elif label == "QUANTITY":
                candidate = quantity_surrogate(spans[0].text, seed)
            else:
                candidate = fake_value(label, seed, faker, country=is_country)
            if candidate is None:
                return None
            if context.allowed(candidate):
                return candidate
        return None


class HashParams(OperatorParams):
    """Presidio's hash: the algorithm and the salt (a random one per span without it)."""

    hash_type: Literal["sha256", "sha512"] = "sha256"
    salt: str | None = Field(None, max_length=MAX_PARAM, description="at least 16 bytes in UTF-8")

    @field_validator("salt")
    @classmethod
    def _long_enough(cls, salt: str | None) -> str | None:
        if salt is not None and len(salt.encode()) < 16:
            raise ValueError(f"Salt must be at least 16 bytes (128 bits). Provided salt is {len(salt.encode())} bytes.")
        return salt


@register_operator
class Hash(Operator):
    """``[PERSON 3f9a1c2b7d]``: a keyed HMAC of the entity, the same in every
    document. On a span on its own, Presidio's hash: the hex digest of the
    span's text and the salt (a random salt per span without one)."""

    name = "hash"
    uses_key = needs_key = True
    params = HashParams

    def replace(self, entity: Entity, context: ReplacementContext) -> str:
        assert context.key is not None  # the component refuses hash without a key
        token = hash_token(context.key.reveal(), entity.label, entity.fullest(stable=True), context.hash_length)
        return f"[{entity.label} {token}]"

    def operate(self, text: str, label: str, params: HashParams) -> str:
        salt = params.salt.encode() if params.salt is not None else os.urandom(32)
        return hashlib.new(params.hash_type, text.encode() + salt).hexdigest()


class ReplaceParams(OperatorParams):
    """The new text of the span (``<ENTITY_TYPE>`` without one)."""

    new_value: str | None = Field(None, max_length=MAX_PARAM)


@register_operator
class Replace(Operator):
    """The span becomes ``new_value``, or ``<ENTITY_TYPE>`` without one (a span on its own only)."""

    name = "replace"
    strategy = False
    params = ReplaceParams

    def operate(self, text: str, label: str, params: ReplaceParams) -> str:
        return params.new_value or f"<{label}>"


@register_operator
class Redact(Operator):
    """The span is removed (a span on its own only)."""

    name = "redact"
    strategy = False
    params = OperatorParams

    def operate(self, text: str, label: str, params: OperatorParams) -> str:
        return ""


@register_operator
class Keep(Operator):
    """The span stays as it is (a span on its own only: never a strategy, it would leave an original in clear)."""

    name = "keep"
    strategy = False
    params = OperatorParams

    def operate(self, text: str, label: str, params: OperatorParams) -> str:
        return text


#: The built-in strategies, in order.
STRATEGIES = strategy_names()
