"""The ``generalizer`` factory: replacement strings and the sanitized text.

Runs after the decision component (``mask_all`` or ``mask_optimizer``) and
fills ``span._.replacement`` for every masked span, then renders
``doc._.sanitized_text`` with an offset map back to the original.

Strategies (``strategy``, overridable per label with ``strategy_by_label``):

* ``mask``: ``mask_format`` filled with the label and a number that is the
  same for all mentions of one entity (``[PERSON 1]``), or a fixed string
  such as ``***``;
* ``generalize`` (seed 000): PERSON → ``[PERSON 1]``; DATETIME → ``[2009]``,
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

``pseudonym`` and ``hash`` draw from a secret key (``key_file`` or
``$key_env``, :mod:`.keys`). ``hash`` needs one; ``pseudonym`` without one
derives its seed from the document itself, so its surrogates are then stable
within a document only. A surrogate never contains a masked string of the
document (nor is part of one) and two entities never share one; without a
safe surrogate a date, an amount, a place, an organisation, a DEM or MISC is
generalized, a name or a code gets the mask format.

All mentions of one entity get the same replacement (for ``generalize``, the
most specific one any of its mentions allows). The leak sweep
(:mod:`.leaks`) then masks every other occurrence of a masked string, also
inside other words, with its entity's replacement and the reason
``leak sweep``. Spans without a decision are masked (fail closed) and say so
in their reasons.
"""

import hashlib
from collections.abc import Iterable, Iterator

from spacy.language import Language
from spacy.tokens import Doc, Span, SpanGroup

from ..extensions import SPANS_KEY, add_reason, doc_text, entity_key, get_candidates
from .keys import SURROGATE_KEY_ENV, MissingKeyError, Secret, read_key
from .leaks import find_leaks
from .options import STAR, chain_options, datetime_options, quantity_options, safe_options
from .render import render
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

STRATEGIES = ("mask", "generalize", "pseudonym", "hash")
KB_LABELS = ("LOC", "ORG", "DEM", "MISC")
LEAK_REASON = "leak sweep: repeats a masked string"

EntityKey = tuple[str, str]


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
    )


class Generalizer:
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
    ):
        for label, value in [("strategy", strategy), *(strategy_by_label or {}).items()]:
            if value not in STRATEGIES:
                raise ValueError(f"generalizer: strategy ({label}) must be one of {STRATEGIES}, not {value!r}")
        try:
            mask_format.format(label="PERSON", n=1)
        except (KeyError, IndexError, ValueError) as e:
            raise ValueError(
                f"generalizer: bad mask_format {mask_format!r}: only {{label}} and {{n}} may be used ({e})"
            ) from None
        if not 4 <= hash_length <= 64:
            raise ValueError(f"generalizer: hash_length must be 4 to 64, not {hash_length}")
        self.name = name
        self.spans_key = spans_key
        self.strategy = strategy
        self.strategy_by_label = dict(strategy_by_label or {})
        self.mask_format = mask_format
        self.risky_terms = list(risky_terms)
        self.leak_sweep = leak_sweep
        self.sweep_min_chars = sweep_min_chars
        self.hash_length = hash_length
        used = {strategy, *self.strategy_by_label.values()}
        self.key: Secret | None = None
        if used & {"hash", "pseudonym"}:
            try:
                self.key = read_key(key_file, key_env, what="surrogate key", required="hash" in used)
            except MissingKeyError as e:
                raise ValueError(f"generalizer: the hash strategy needs a key: {e}") from None
        self._faker = None

    def strategy_for(self, label: str) -> str:
        return self.strategy_by_label.get(label, self.strategy)

    # ------------------------------------------------------------------ #
    def __call__(self, doc: Doc) -> Doc:
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
        by_entity: dict[EntityKey, list[Span]] = {}
        for span in masked:
            by_entity.setdefault(self._key(span), []).append(span)
        chosen = self._replacements(text, by_entity, [s.text for s in masked])
        for span in masked:
            span._.replacement = chosen[self._key(span)]
        doc._.sanitized_text, doc._.offset_map = render(
            text, [(s.start_char, s.end_char, s._.replacement) for s in masked]
        )
        return doc

    @staticmethod
    def _key(span: Span) -> EntityKey:
        return (span.label_, entity_key(span))

    def _sweep(self, doc: Doc, masked: list[Span], text: str) -> list[Span]:
        """Mask the other occurrences of masked strings (see :mod:`.leaks`)."""
        leaks = find_leaks(text, [(s.start_char, s.end_char) for s in masked], self.sweep_min_chars)
        if not leaks:
            return masked
        candidates = get_candidates(doc, self.spans_key)
        by_offsets = {(s.start_char, s.end_char): s for s in candidates}
        added: list[Span] = []
        for start, end, i in leaks:
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

    # ------------------------------------------------------------------ #
    def _replacements(
        self, text: str, by_entity: dict[EntityKey, list[Span]], masked_texts: list[str]
    ) -> dict[EntityKey, str]:
        numbers: dict[str, int] = {}
        chosen: dict[EntityKey, str] = {}
        taken = set()
        doc_secret: bytes | None = None
        forbidden: list[str] | None = None  # what a pseudonym may not hold (masked strings)
        for key, mentions in by_entity.items():  # in order of first mention
            # the replacement comes from the entity's own mentions, not from the words the
            # leak sweep found it inside ("TR-06-196112.03.1994" for "1961")
            spans = [s for s in mentions if s._.source != "leak_sweep"] or mentions
            label = spans[0].label_
            strategy = self.strategy_for(label)
            rep: str | None = None
            if strategy == "hash":
                assert self.key is not None
                rep = f"[{label} {hash_token(self.key.reveal(), label, _longest(spans), self.hash_length)}]"
            elif strategy == "pseudonym":
                doc_secret = doc_secret or self._doc_secret(text)
                if forbidden is None:
                    forbidden = [" ".join(t.split()).casefold() for t in masked_texts if len(t.strip()) >= 2]
                rep = self._pseudonym(spans, forbidden, taken, doc_secret)
                if rep is None and label in (*KB_LABELS, "DATETIME", "QUANTITY"):
                    rep = self._generalize(spans, masked_texts)  # no safe surrogate: generalized
            elif strategy == "generalize" and label != "PERSON":
                rep = self._generalize(spans, masked_texts)
            if rep is None:
                numbers[label] = numbers.get(label, 0) + 1
                rep = self.mask_format.format(label=label, n=numbers[label])
            taken.add(rep.casefold())
            chosen[key] = rep
        return chosen

    def _generalize(self, spans: list[Span], masked_texts: list[str]) -> str:
        """The most specific safe option any mention of the entity offers."""
        best: tuple[int, str] | None = None
        for span in spans:
            options = self.options(span)
            safe = safe_options(
                options, masked_texts, self.risky_terms, original=span.text, names=span.label_ in KB_LABELS
            )
            if safe:
                rank = options.index(safe[0])
                if best is None or rank < best[0]:
                    best = (rank, safe[0])
        return f"[{best[1]}]" if best is not None else STAR

    @staticmethod
    def options(span: Span) -> list[str]:
        """Replacement options of one span, most specific first (see the module doc)."""
        label = span.label_
        if label == "DATETIME":
            return datetime_options(span.text)
        if label == "QUANTITY":
            return quantity_options(span.text)
        if label in KB_LABELS:
            return chain_options(span._.kb_chain)
        return []

    def _doc_secret(self, text: str) -> bytes:
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()
        if self.key is None:
            return digest
        return entity_seed(self.key.reveal(), "document", digest.hex()).to_bytes(8, "big")

    def _pseudonym(self, spans: list[Span], forbidden: list[str], taken: set, doc_secret: bytes) -> str | None:
        """A surrogate that names no masked string (``forbidden``: normalised
        masked strings) and no other entity's surrogate."""
        label = spans[0].label_
        canonical = canonical_text(_longest(spans))
        secret = self.key.reveal() if self.key is not None else doc_secret
        if label == "DATETIME":
            # one shift for the whole document keeps the intervals between its dates; a shifted
            # date that would hold a masked string (its own year left as it was, another date's
            # text) is refused and the entity generalized instead
            days, years = document_shift(entity_seed(doc_secret, "shift"))
            rep = next((r for r in (shift_dates(s.text, days, years) for s in spans) if r), None)
            return rep if rep is not None and self._allowed(rep, forbidden, taken) else None
        if self._faker is None and label in ("PERSON", "LOC", "ORG"):
            from faker import Faker

            self._faker = Faker("en_US")
        is_country = label == "LOC" and any(c.split()[0] == "country" for s in spans for c in (s._.kb_chain or []) if c)
        for attempt in range(20):
            seed = entity_seed(secret, label, canonical, str(attempt))
            if label == "CODE":
                rep = scramble(spans[0].text, seed)
            elif label == "QUANTITY":
                rep = quantity_surrogate(spans[0].text, seed)
            else:
                rep = fake_value(label, seed, self._faker, country=is_country)
            if rep is None:
                return None
            if self._allowed(rep, forbidden, taken):
                return rep
        return None

    @staticmethod
    def _allowed(rep: str, forbidden: list[str], taken: set) -> bool:
        """Not another entity's replacement; holds no masked string and is not part of one."""
        folded = " ".join(rep.split()).casefold()
        return folded not in taken and not any(f in folded or folded in f for f in forbidden)

    def pipe(self, stream: Iterable[Doc], batch_size: int | None = None) -> Iterator[Doc]:
        for doc in stream:
            yield self(doc)


def _longest(spans: list[Span]) -> str:
    """The entity's fullest mention (longest, then first in sort order): what its hash and
    pseudonym are derived from."""
    return max((s.text for s in spans), key=lambda t: (len(t), t))
