"""privacy_ner's recognizers: each detector one small registered unit.

A recognizer (:class:`Recognizer`) finds candidates in the detection copy of a
text and declares, as Presidio's recognizers declare ``supported_language``
and ``supported_entities``, the ``languages`` it reads (``("*",)``: any; a
list that follows ``data/<lang>/`` folders: :func:`.lang_data.languages`) and
the ``types`` (TAB labels) it emits. Each is registered in spaCy's ``misc``
registry as ``spacy_textsan.recognizer.<name>.v1`` and named in privacy_ner's
config, one block per recognizer::

    [components.privacy_ner.recognizers.iban]
    @misc = "spacy_textsan.recognizer.iban.v1"

The default blocks (:data:`DEFAULT_RECOGNIZERS`) are today's English
detectors; another language reads its own data through them (``nlp.lang``).
A recognizer whose ``languages`` do not hold ``nlp.lang`` is skipped (listed
by ``PrivacyNER.skipped_recognizers``), or refused with a one-line error when
privacy_ner's ``unsupported`` setting is ``"error"``.

:func:`run_recognizers` runs them on a text in two rounds: first those that
need nothing, then those that read the national and checksummed numbers found
in the first (:attr:`Recognizer.needs_numbers`: the holder of a number, a
place that is no holder). A candidate of the identifier layer (source
``id:``) that holds part of such a number and reaches out of it is dropped
(:func:`.identifiers.without_pieces_of`). The candidates keep the sources
they always had (``rule:iban``, ``id:phone``, ``name:cued_place``...), and
each carries the name of its recognizer (:attr:`.combine.Candidate.recognizer`,
``span._.recognizer``).
"""

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

import spacy

from .combine import CUE, PRIORITY_CODE, PRIORITY_DEFAULT, PRIORITY_PROPAGATED, Candidate
from .identifiers import WHOLE_NUMBERS, without_pieces_of

__all__ = [
    "ANY",
    "DEFAULT_RECOGNIZERS",
    "RECOGNIZER_PREFIX",
    "Context",
    "Recognizer",
    "registered_recognizers",
    "run_recognizers",
    "supports",
]

#: Any language.
ANY = "*"
#: The prefix of a recognizer's registered name: ``spacy_textsan.recognizer.<name>.v1``.
RECOGNIZER_PREFIX = "spacy_textsan.recognizer."
#: The layers of :class:`.rule_layer.RuleLayer` that switch recognizers off: ``rules`` (all of them),
#: ``identifiers``, ``names``.
LAYERS = ("rules", "identifiers", "names")


@dataclass
class Context:
    """What the recognizers of one text share: the language, the rule layer's settings, what the first
    round found (:attr:`numbers`) and the results of the finders two recognizers read (:meth:`once`)."""

    lang: str = "en"
    phone_regions: tuple[str, ...] = ()
    identifiers: bool = True
    names: bool = True
    #: the national and checksummed numbers of the first round, ``(start, end)``
    numbers: list[tuple[int, int]] = field(default_factory=list)
    _memo: dict[str, Any] = field(default_factory=dict, repr=False)

    def once(self, key: str, compute: Callable[[], Any]) -> Any:
        """``compute()``, once per text: a finder whose matches two recognizers share (the checksummed
        numbers, of which IBANs go to ``iban`` and the others to ``standard_numbers``)."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]


class Recognizer:
    """One detector. A subclass sets :attr:`name`, :attr:`languages`, :attr:`types` and :attr:`layer`
    and implements :meth:`find`; the instance is what a registered function returns."""

    #: its name: the ``<name>`` of ``spacy_textsan.recognizer.<name>.v1`` and ``span._.recognizer``
    name: str = "recognizer"
    #: the languages it reads (``nlp.lang``), ``("*",)`` for any
    languages: tuple[str, ...] = (ANY,)
    #: the labels it emits (not counting :data:`.combine.CUE`, the cue words it marks)
    types: tuple[str, ...] = ()
    #: the switch of the rule layer it answers to (:data:`LAYERS`): off, it does not run
    layer: ClassVar[str] = "rules"
    #: it runs in the second round, after the national and checksummed numbers are known
    needs_numbers: ClassVar[bool] = False

    def find(self, text: str, context: Context) -> list[Candidate]:  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<recognizer {self.name} languages={','.join(self.languages)} types={','.join(self.types)}>"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and vars(other) == vars(self)

    def __hash__(self) -> int:
        return hash((type(self), self.name))


def supports(recognizer: Recognizer, lang: str) -> bool:
    """Whether ``recognizer`` reads language ``lang``."""
    return ANY in recognizer.languages or lang in recognizer.languages


def registered_recognizers() -> dict[str, Callable[..., Recognizer]]:
    """The registered recognizers: registered name -> its function (the package's and any other
    package's or test's registered under :data:`RECOGNIZER_PREFIX`)."""
    return {
        name: spacy.registry.misc.get(name)
        for name in sorted(spacy.registry.misc.get_all())
        if name.startswith(RECOGNIZER_PREFIX)
    }


def run_recognizers(text: str, recognizers: Iterable[Recognizer], context: Context) -> list[Candidate]:
    """The candidates of ``recognizers`` in ``text``, in two rounds (module docstring), each with its
    recognizer's name; those of a layer that ``context`` switches off do not run."""
    on = {"rules": True, "identifiers": context.identifiers, "names": context.names}
    active = [r for r in recognizers if on.get(r.layer, True)]
    first: list[Candidate] = []
    for r in active:
        if not r.needs_numbers:
            first.extend(_named(r.find(text, context), r.name))
    whole = [c for c in first if c.source.startswith("id:") and c.source[3:] in WHOLE_NUMBERS]
    context.numbers = [(c.start, c.end) for c in whole]
    out = _without_pieces(whole, first)
    for r in active:
        if r.needs_numbers:
            out.extend(_named(r.find(text, context), r.name))
    return out


def _named(cands: Sequence[Candidate], name: str) -> list[Candidate]:
    return [c if c.recognizer else replace(c, recognizer=name) for c in cands]


def _without_pieces(whole: Sequence[Candidate], cands: Sequence[Candidate]) -> list[Candidate]:
    """``cands`` less the identifier-layer candidates (``id:``) that hold part of a whole number and
    reach out of it (:func:`.identifiers.without_pieces_of`)."""
    ids = [c for c in cands if c.source.startswith("id:")]
    kept = set(without_pieces_of(whole, ids)) if whole else set(ids)
    return [c for c in cands if not c.source.startswith("id:") or c in kept]


def rule_candidates(matches: Iterable[Any], prefix: str, priority: Callable[[Any], int]) -> list[Candidate]:
    """Candidates of :class:`.rules.RuleMatch` objects, source ``<prefix>:<name>``."""
    return [Candidate(m.start, m.end, m.label, f"{prefix}:{m.name}", priority(m)) for m in matches]


def code_priority(m: Any) -> int:
    """A package rule's priority: a code wins over other candidates (:data:`.combine.PRIORITY_CODE`)."""
    return PRIORITY_CODE if m.label == "CODE" else PRIORITY_DEFAULT


def cue_candidates(spans: Iterable[tuple[int, int]], rule: str) -> list[Candidate]:
    """The cue words before what a recognizer found (label :data:`.combine.CUE`)."""
    return [Candidate(start, end, CUE, f"cue:{rule}", PRIORITY_PROPAGATED) for start, end in spans]


#: The default recognizers of privacy_ner, by config key: today's English detectors.
DEFAULT_RECOGNIZERS: Mapping[str, dict[str, str]] = {
    name: {"@misc": f"{RECOGNIZER_PREFIX}{name}.v1"}
    for name in (
        # the package's patterns (rules.DEFAULT_PATTERNS)
        "codes",
        "iban",
        "phone",
        "dates",
        "quantities",
        "family_status",
        # the identifier layer
        "national_ids",
        "standard_numbers",
        "network_ids",
        "addresses",
        "cued_codes",
        "mixed_codes",
        "long_numbers",
        "table_cells",
        "log_fields",
        # the name layer
        "script_names",
        "lexicon_names",
        "cued_names",
        "titled_names",
        "id_holders",
        "cued_places",
    )
}
