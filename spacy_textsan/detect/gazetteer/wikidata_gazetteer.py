"""The ``wikidata_gazetteer`` factory: knowledge-base tagging and linking.

Papadopoulou et al. (2022a) tag DEM and MISC quasi-identifiers (nationalities,
occupations, diseases, religions, languages...) with a Wikidata-derived
gazetteer; Olstad et al. (2023) link entities to Wikidata's ontology to generalize them. This component
does both, over a :class:`~.kb.GazetteerKB` from any of three sources:

* the offline default, built from packages and shipped in the package
  (``data/kb``, rebuilt with ``make kb``; ``textsan gazetteer build`` builds
  your own, which ``kb_path = null`` then prefers: :func:`~.paths.default_kb_path`);
* a Wikidata JSON dump (``textsan gazetteer import-dump``);
* live Wikidata (``client = spacy_textsan.wikidata_client.v2``) for spans the
  KB does not know, on top of either.

For every doc:

1. **Tag**: surface forms of the KB entries whose type is in ``add_labels``
   (curated class entries excepted: ``law`` or ``section`` are no mentions)
   are matched (:class:`~.matcher.SurfaceMatcher`, longest match first). A
   match that does not overlap a candidate span becomes one (label = the
   entry's TAB type, ``source = "gazetteer:<entry source>"``); a match that
   covers candidates of its own type only (``Turkish`` → ``Turkish
   national``) replaces them. A match is widened to its whole hyphenated
   word (``Marxist-Leninist``) and, for lower-case surfaces, over up to
   ``modifiers`` preceding lower-case content words (``primary school
   teacher``, ``private security guard``; :func:`~.matcher.expand_match`;
   not a surface of another language than English: ``nationalité turque``).
   With ``conditions``, a health condition also takes the body part it is
   of and a degree before it (``fracture of the left kneecap``, ``37 % of
   loss of sight``); words with a clinical ending (``gonarthrosis``) and words
   for harm to the body tied to a body part (``burns to his hands``, chain
   ``injury``, ``ill health``: a special category) are DEM too; with ``institutions``, prisons, hospitals, schools, care homes
   and police stations (``HMP Wakefield``, ``St Mary's Hospital``) become
   ORG candidates (:mod:`.patterns`), replacing a place or name inside them.
2. **Link**: every candidate of a type in ``link_labels`` without a
   ``kb_id`` is linked with :func:`~.linking.link_surface` (exact →
   contained → fuzzy → live → none) to an entry of its own type. The span gets ``span._.kb_id`` and
   ``span._.kb_chain`` (the entry's ontology chain, most specific first;
   :func:`~.linking.linked_chain`). A span that *contains* a curated class's surface
   ("the Istanbul State Security Court" ⊃ "State Security Court") is an
   instance of the class: its chain starts with the class's own label
   (``["state security court", "criminal court", "court", ...]``), preceded
   by ``"<label> in <country>"`` when the span names a city or country the KB
   knows ("Ankara Administrative Court" → ``administrative court in
   Turkey``; the generalizer drops that option when it would reveal a
   masked name). An instance entry ("Oslo") or an exact link gets the
   entry's chain only. A failed live lookup keeps the span, adds a reason to it, an error to
   ``doc._.sanitize_errors`` and a risky set of the span alone (measure
   ``wikidata``), so that a decision component masks it (fail closed).
3. **Entity ids** are assigned again over the whole group
   (:func:`~..privacy_ner.entity_ids.assign_entity_ids`), mentions
   linked exactly to one entry counting as the same text (``Norwegians`` and
   ``Norwegian``).

Languages: the KB's entries and chains are English; it may hold surfaces in
other languages for some of them (the shipped KB: countries, cities and
nationalities in French, Spanish and German, :mod:`.languages`). The
component reads those of ``lang`` (None: the pipeline's language,
``nlp.lang``) besides the entries' own (:meth:`~.kb.GazetteerKB.in_language`):
``norvégien`` is tagged and ``Norvège`` linked in a French pipeline, the
chains staying English (``nationality of Norway``) for the generalizer to
write in the document's language. A live client whose language was not set
searches Wikidata in that language too (``WikidataClient.follow_language``).

Speed: the tagging matcher reads token arrays (:class:`~.matcher.SurfaceMatcher`);
the KB, its matcher and its fuzzy index are loaded once per process and
shared by every component reading the same file without a live client
(:func:`~.kb.load_shared_kb`); link results are cached per (text, label).

Without a knowledge base (a configured ``kb_path`` that holds none) the
component raises when it is called, so that a sanitizer never silently
runs with fewer detectors than configured; ``textsan sanitize`` then writes
the redaction notice for every document (fail closed).
"""

import logging
import time
import weakref
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, overload

from spacy.attrs import LENGTH, LOWER
from spacy.language import Language
from spacy.strings import get_string_id
from spacy.tokens import Doc, Span, SpanGroup

from ...extensions import QUASI, SPANS_KEY, UNKNOWN, add_error, add_reason, add_risky_set, doc_text, get_candidates
from ...word_lists import read_list
from ..privacy_ner.entity_ids import assign_entity_ids
from .kb import GazetteerKB, KBEntry, load_shared_kb
from .lexicon import CLASS_ID_PREFIX
from .linking import CONTAINED, EXACT, FUZZY, LinkResult, fuzzy_index, link_surface, linked_chain
from .matcher import SurfaceMatcher, expand_match, longest_non_overlapping
from .paths import default_kb_path
from .patterns import (
    BODY_PARTS_PATH,
    HARM_WORDS_PATH,
    INSTITUTIONS_PATH,
    InstitutionFinder,
    body_parts,
    condition_words,
    extend_condition,
    harm_heads,
    harm_words,
    is_condition,
)

logger = logging.getLogger("spacy_textsan")

__all__ = ["WikidataGazetteer", "make_wikidata_gazetteer", "KB_DIR"]

KB_DIR = "kb"


_MATCHERS: "weakref.WeakKeyDictionary[GazetteerKB, dict[tuple, SurfaceMatcher]]" = weakref.WeakKeyDictionary()


def _matcher(kb: GazetteerKB, types: tuple[str, ...], max_tokens: int) -> SurfaceMatcher:
    """The tagging matcher of ``kb`` (class entries such as ``law`` or ``court``
    are linked to, never tagged), built once per KB and settings."""
    by_kb = _MATCHERS.setdefault(kb, {})
    key = (types, max_tokens, len(kb))
    if key not in by_kb:
        by_kb[key] = SurfaceMatcher(
            kb, types=types, max_tokens=max_tokens, skip=kb.positions_with_prefix(CLASS_ID_PREFIX)
        )
    return by_kb[key]


#: adjectives of degree that a word for harm to the body takes when the text has no part-of-speech tags
HARM_DEGREES = frozenset(
    "severe serious minor slight mild multiple numerous extensive superficial deep internal chronic acute "
    "permanent grave massive visible fresh old first-degree second-degree third-degree".split()
)


def _adjectives_before(doc: Doc, start: int, most: int) -> int:
    """Start of up to ``most`` adjectives right before token ``start`` (``severe``, ``first-degree``):
    tagged ADJ, or of :data:`HARM_DEGREES`."""
    while most > 0 and start > 0 and (doc[start - 1].pos_ == "ADJ" or doc[start - 1].lower_ in HARM_DEGREES):
        start -= 1
        most -= 1
    return start


#: the ontology chain of a rule's harm to the body (``burns to his hands``): a health condition
HARM_CHAIN = ("injury", "ill health")


@lru_cache(maxsize=1)
def _rules() -> tuple[InstitutionFinder, set, frozenset]:
    """The institution finder, the body parts and the words for harm to the body, read once per process."""
    return (
        InstitutionFinder(read_list(INSTITUTIONS_PATH)),
        body_parts(BODY_PARTS_PATH),
        harm_heads(HARM_WORDS_PATH),
    )


class _Texts(Sequence[Any]):
    """``doc[i].text`` / ``doc[i].is_stop`` as a read-only sequence, building
    a ``Token`` only for the few positions asked for."""

    def __init__(self, doc: Doc, attr: str):
        self.doc, self.attr = doc, attr

    def __len__(self) -> int:
        return len(self.doc)

    @overload
    def __getitem__(self, i: int) -> Any: ...

    @overload
    def __getitem__(self, i: slice) -> Any: ...

    def __getitem__(self, i: int | slice) -> Any:
        # a slice gives the attribute of the Span (``doc[i:j].text``), as it always has
        return getattr(self.doc[i], self.attr)


DEFAULT_CONFIG = {
    "kb_path": None,
    "add_labels": ["DEM", "MISC"],
    "link_labels": ["LOC", "ORG", "DEM", "MISC"],
    "link": True,
    "max_edit_ratio": 0.15,
    "max_tokens": 8,
    "modifiers": 2,
    "institutions": True,
    "conditions": True,
    "client": None,
    "lang": None,
    "spans_key": SPANS_KEY,
}


@Language.factory(
    "wikidata_gazetteer",
    requires=["doc.spans"],
    assigns=["doc.spans", "span._.kb_id", "span._.kb_chain"],
    default_config=DEFAULT_CONFIG,
)
def make_wikidata_gazetteer(
    nlp: Language,
    name: str,
    kb_path: str | None,
    add_labels: list[str],
    link_labels: list[str],
    link: bool,
    max_edit_ratio: float,
    max_tokens: int,
    modifiers: int,
    institutions: bool,
    conditions: bool,
    client: object | None,
    lang: str | None,
    spans_key: str,
) -> "WikidataGazetteer":
    """kb_path: a KB directory (``kb.msgpack`` or ``kb.msgpack.gz``); None: :func:`~.paths.default_kb_path`
    (a KB the user built, else the shipped one).
    institutions: propose prisons, hospitals, schools... as ORG (:class:`~.patterns.InstitutionFinder`).
    conditions: widen health conditions over their body part and degree, tag clinical word endings.
    client: a live Wikidata client (``spacy_textsan.wikidata_client.v2``) or None (offline).
    lang: the language whose KB surfaces are read besides the entries' own (None: ``nlp.lang``)."""
    return WikidataGazetteer(
        name,
        kb_path=kb_path,
        add_labels=add_labels,
        link_labels=link_labels,
        link=link,
        max_edit_ratio=max_edit_ratio,
        max_tokens=max_tokens,
        modifiers=modifiers,
        institutions=institutions,
        conditions=conditions,
        client=client,
        lang=nlp.lang if lang is None else lang,
        spans_key=spans_key,
    )


class WikidataGazetteer:
    #: a detector (see :mod:`spacy_textsan.stages`)
    textsan_stage = "detect"
    #: what it reads and writes (:mod:`spacy_textsan.stages`)
    textsan_reads = ("doc.text", "doc.spans")
    textsan_proposes = ("doc.spans", "span._.kb_id", "span._.kb_chain")

    def __init__(
        self,
        name: str = "wikidata_gazetteer",
        *,
        kb_path: str | Path | None = None,
        kb: GazetteerKB | None = None,
        add_labels: Sequence[str] = ("DEM", "MISC"),
        link_labels: Sequence[str] = ("LOC", "ORG", "DEM", "MISC"),
        link: bool = True,
        max_edit_ratio: float = 0.15,
        max_tokens: int = 8,
        modifiers: int = 2,
        institutions: bool = True,
        conditions: bool = True,
        client: object | None = None,
        lang: str | None = None,
        spans_key: str = SPANS_KEY,
    ):
        if client is not None and not callable(getattr(client, "lookup", None)):
            raise ValueError(f"wikidata_gazetteer: client must have a lookup(text) method, not {type(client).__name__}")
        self.name = name
        self.kb_path = str(kb_path) if kb_path else None
        self.add_labels = list(add_labels)
        self.link_labels = set(link_labels)
        self.link = link
        self.max_edit_ratio = max_edit_ratio
        self.max_tokens = max_tokens
        self.modifiers = modifiers
        self.institutions = institutions
        self.conditions = conditions
        self._institutions, self._parts, self._harm = _rules()
        self._harm_ids = frozenset(get_string_id(w) for w in self._harm)
        self.client = client
        self.lang = lang
        follow = getattr(client, "follow_language", None)
        if lang and callable(follow):
            follow(lang)  # a client whose language was not set searches in the pipeline's
        self.spans_key = spans_key
        self.kb: GazetteerKB | None = None
        self.matcher: SurfaceMatcher | None = None
        self._kb_error: str | None = None
        if kb is not None:
            self.set_kb(kb)
        else:
            path = Path(kb_path) if kb_path else default_kb_path()
            try:
                self.set_kb(self._load(path))
            except (OSError, ValueError) as error:
                # A saved pipeline brings its own KB (from_disk); until then, fail when called.
                self._kb_error = f"cannot load the knowledge base at {path}: {error}"

    # -- knowledge base --------------------------------------------------------
    def _load(self, path: Path) -> GazetteerKB:
        # a live client adds the entries it finds: such a component gets a KB of its own
        return GazetteerKB.from_disk(path) if self.client is not None else load_shared_kb(path)

    def set_kb(self, kb: GazetteerKB) -> None:
        """Use ``kb``, with its surfaces in :attr:`lang` (:meth:`~.kb.GazetteerKB.in_language`)."""
        kb = kb.in_language(self.lang)
        self.kb = kb
        self.matcher = _matcher(kb, tuple(self.add_labels), self.max_tokens)
        # the fuzzy step's index, built now (once per KB and process) while the pipeline loads, not at the
        # first document with a surface the exact steps do not link
        fuzzy_index(kb)
        self._links: dict[tuple[str, str], LinkResult] = {}
        self._kb_error = None

    def initialize(self, get_examples=None, nlp: Language | None = None, *, kb_path: str | Path | None = None) -> None:
        """Load the KB from ``kb_path`` (or the configured / default one); raises if it cannot."""
        path = Path(kb_path or self.kb_path or default_kb_path())
        self.set_kb(self._load(path))
        self.kb_path = str(path)

    def _require_kb(self) -> tuple[GazetteerKB, SurfaceMatcher]:
        """The KB and its tagging matcher (set together by :meth:`set_kb`); RuntimeError without a KB."""
        if self.kb is None or self.matcher is None:
            raise RuntimeError(
                f"wikidata_gazetteer: {self._kb_error}. Build the offline knowledge base "
                f"with `textsan gazetteer build` or set [components.{self.name}.kb_path]"
            )
        return self.kb, self.matcher

    # -- spaCy API -------------------------------------------------------------
    def __call__(self, doc: Doc) -> Doc:
        kb, _ = self._require_kb()
        exact: dict[tuple, str] = {}  # (start, end) -> id of the entry the span names exactly
        spans = self.tag(doc, get_candidates(doc, self.spans_key), exact)
        if self.link:
            for span in spans:
                if span.label_ in self.link_labels and span._.kb_id is None:
                    result = self._link(doc, span, kb)
                    if result.method == EXACT and result.entry is not None:
                        exact[(span.start, span.end)] = result.entry.id
        # mentions naming one entry exactly are one entity ("Norwegians", "Norwegian")
        ids = assign_entity_ids(
            [(("\x00" + exact[(s.start, s.end)]) if (s.start, s.end) in exact else s.text, s.label_) for s in spans]
        )
        group = SpanGroup(doc, name=self.spans_key)
        for span, entity_id in zip(spans, ids, strict=False):
            span._.entity_id = entity_id
            group.append(span)
        doc.spans[self.spans_key] = group
        return doc

    # -- steps -----------------------------------------------------------------
    def tag(self, doc: Doc, candidates: Sequence[Span], exact: dict[tuple, str] | None = None) -> list[Span]:
        """Candidates plus the KB matches, clinical words and institutions (see
        the module docstring), in text order; ``exact`` receives ``(start, end)
        -> entry id`` of the new spans named exactly by a KB entry."""
        kept = list(candidates)
        by_token: dict[int, int] = {}
        for idx, span in enumerate(kept):
            for t in range(span.start, span.end):
                by_token[t] = idx
        removed = set()
        added = []
        words, stops = _Texts(doc, "text"), _Texts(doc, "is_stop")
        spaces = [bool(x) for x in doc.to_array("SPACY").tolist()] if len(doc) else []
        taken: set = set()

        def place(start: int, end: int, wide: tuple[int, int], label: str, absorbs: Sequence[str]) -> tuple | None:
            """The token range a proposal gets (``wide`` if it is free, else
            ``(start, end)``) and the candidates it replaces, or None when it
            would overlap a candidate it may not replace (one of a type not in
            ``absorbs``, or crossing its bounds) or is the same span and label
            as a candidate."""
            for s, e in (wide, (start, end)) if wide != (start, end) else ((start, end),):
                if any(t in taken for t in range(s, e)):
                    continue
                covered = {by_token[t] for t in range(s, e) if t in by_token}
                if covered and not all(
                    kept[c].start >= s and kept[c].end <= e and kept[c].label_ in absorbs for c in covered
                ):
                    continue
                same = kept[min(covered)] if len(covered) == 1 else None
                if same is not None and (same.start, same.end, same.label_) == (s, e, label):
                    return None  # the candidate already says it
                return s, e, covered
            return None

        kb, matcher = self._require_kb()
        proposals: list[tuple[int, int, KBEntry | None, str]] = [
            (start, end, entries[0], surface) for start, end, entries, surface in matcher(doc)
        ]
        harm: set[int] = set()
        if self.conditions and "DEM" in self.add_labels:
            proposals += [(i, i + 1, None, words[i]) for i in condition_words(words, self._ending_candidates(doc))]
            harm.update(harm_words(words, self._parts, self._harm, self._harm_candidates(doc)))
            proposals += [(i, i + 1, None, words[i]) for i in sorted(harm)]
        for start, end, entry, surface in longest_non_overlapping(proposals):
            label = entry.tab_type if entry is not None else "DEM"
            condition = entry is None or (label == "DEM" and is_condition(entry.chain))
            bodily_harm = entry is None and start in harm
            # modifiers before the head: an English noun phrase's ("primary school teacher"), not a French
            # or Spanish one's ("nationalité turque": the adjective follows) nor a German compound's
            head_only = entry is not None and (kb.is_cased(surface) or kb.is_language_surface(surface))
            if bodily_harm:  # its adjectives only (``severe burns``), not the verb before (``suffered``)
                wide = (_adjectives_before(doc, start, self.modifiers), end)
            else:
                wide = expand_match(words, spaces, stops, start, end, modifiers=0 if head_only else self.modifiers)
            absorbs: tuple[str, ...] = (label,)
            if condition and self.conditions:
                wide = extend_condition(words, *wide, self._parts)
                absorbs = (label, "QUANTITY")
            placed = place(start, end, wide, label, absorbs)
            if placed is None:
                continue
            start, end, covered = placed
            taken.update(range(start, end))
            removed |= covered
            span = Span(doc, start, end, label=label)
            span._.identifier_type = QUASI if label in ("DEM", "MISC") else UNKNOWN
            if bodily_harm:
                span._.source = "gazetteer:bodily-harm"
                span._.kb_chain = list(HARM_CHAIN)  # health: a special category (mask_kb_classes)
            elif entry is None:
                span._.source = "gazetteer:clinical-ending"
            else:
                span._.source = f"gazetteer:{entry.source}" if entry.source else "gazetteer"
                self._set_link(span, LinkResult(entry, EXACT))
                if exact is not None:
                    exact[(start, end)] = entry.id
            added.append(span)
        if self.institutions:
            for start_char, end_char in self._institutions(doc_text(doc)):
                inst = doc.char_span(start_char, end_char, alignment_mode="expand")
                if inst is None:
                    continue
                placed = place(inst.start, inst.end, (inst.start, inst.end), "ORG", ("ORG", "LOC", "PERSON"))
                if placed is None:
                    continue
                start, end, covered = placed
                taken.update(range(start, end))
                removed |= covered
                span = Span(doc, start, end, label="ORG")
                span._.source = "gazetteer:institution"
                span._.identifier_type = QUASI  # where a person is held, treated, taught
                added.append(span)
        out = [s for i, s in enumerate(kept) if i not in removed] + added
        return sorted(out, key=lambda s: (s.start, s.end))

    def _harm_candidates(self, doc: Doc) -> list[int]:
        """Token positions whose lower-case text is a word for harm to the body (on the arrays)."""
        if not len(doc):
            return []
        ids = self._harm_ids
        return [i for i, n in enumerate(doc.to_array(LOWER).tolist()) if n in ids]

    def _ending_candidates(self, doc: Doc) -> list[int]:
        """Token positions whose text could have a clinical ending (cheap pre-filter on the arrays)."""
        if not len(doc):
            return []
        return [i for i, n in enumerate(doc.to_array(LENGTH).tolist()) if n >= 8]

    #: link results cached per (text, label), at most this many (cleared when full: memory
    #: stays flat over a long run of documents full of new names)
    MAX_CACHED_LINKS = 8_192

    def _link(self, doc: Doc, span: Span, kb: GazetteerKB) -> LinkResult:
        started = time.perf_counter()
        key = (span.text, span.label_)
        result = self._links.get(key)
        if result is None:
            try:
                result = link_surface(
                    span.text, kb, client=self.client, max_edit_ratio=self.max_edit_ratio, tab_type=span.label_
                )
            except Exception as e:  # a custom client's bug must not crash the pipeline; the span stays
                result = LinkResult(None, "none", error=f"wikidata lookup failed: {type(e).__name__}")
            # what the KB says is cached; what live Wikidata says or fails to say is asked again
            # (the client has its own cache)
            if result.method in (EXACT, CONTAINED, FUZZY) or self.client is None:
                if len(self._links) >= self.MAX_CACHED_LINKS:
                    self._links.clear()
                self._links[key] = result
        if result.error:
            add_error(doc, f"{self.name}: {result.error} for [{span.start_char}:{span.end_char}]")
            add_reason(span, f"{self.name}: {result.error}")
            # what the span is stays unknown: counted as risky alone, so a decision masks it
            add_risky_set(doc, "wikidata", [span], f"{result.error}, counted as risky")
        if result.entry is not None and result.method == "live":
            kb.add(result.entry)
        self._set_link(span, result, kb)
        elapsed = time.perf_counter() - started
        if elapsed > 1.0:
            logger.info("%s: linking %r took %.1fs (%s)", self.name, span.text, elapsed, result.method)
        return result

    @staticmethod
    def _set_link(span: Span, result: LinkResult, kb: GazetteerKB | None = None) -> None:
        entry: KBEntry | None = result.entry
        if entry is None:
            return
        span._.kb_id = entry.id
        span._.kb_chain = linked_chain(entry, result.method, span.text, kb)
        add_reason(span, f"kb:{result.method}:{entry.label}")

    # -- serialisation ---------------------------------------------------------
    def to_disk(self, path: str | Path, *, exclude: Iterable[str] = ()) -> None:
        """Save the KB in ``path/kb`` so that a packaged pipeline carries it."""
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        if self.kb is not None:
            self.kb.to_disk(path / KB_DIR)

    def from_disk(self, path: str | Path, *, exclude: Iterable[str] = ()) -> "WikidataGazetteer":
        kb_dir = Path(path) / KB_DIR
        if GazetteerKB.file_in(kb_dir) is not None:
            self.set_kb(GazetteerKB.from_disk(kb_dir))
        return self
