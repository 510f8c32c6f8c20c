"""``web_risk``: which entities, alone or combined, lead a web search to the person.

Papadopoulou et al. 2022a, §3.2.2 and Algorithm 1. The person to protect is searched on the web
and the result URLs kept. Then, for every combination of 1..``max_arity``
candidate entities, the combination is searched (terms quoted and joined by
``AND``), and so is person + combination, whose URLs are added to the person's.
A combination whose URLs meet the person's is risky: some page mentions both
the person and every entity of the combination.

Differences from the paper's loop, all on the safe side or for cost:

* each combination is checked against the person's URLs gathered after its
  whole arity level and checked again at the end, so the outcome does not
  depend on the order of the loop;
* combinations that contain a combination already risky are not searched
  (masking one entity of the smaller set covers them; ``prune_supersets``);
* every failure fails closed: a combination whose searches fail (error,
  timeout, ``max_queries`` or ``time_budget_s`` exhausted) counts as risky;
  when the person's own search fails, or no client is configured, every
  candidate entity counts as risky alone. Each failure is recorded with
  :func:`~spacy_textsan.extensions.add_error`.

Results: one ``doc._.risky_sets`` entry (measure ``"web"``) per risky
combination, with one representative span (the first mention) per entity,
and ``span._.risk["web"]`` on every mention of every candidate entity: 1.0 when
the entity is risky alone, else the fraction of the person's URLs that the
search for person + entity returned.
"""

import inspect
import itertools
import logging
import time
import urllib.parse
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from spacy.language import Language
from spacy.tokens import Doc, Span

from ..entities import Entity, clean_term, group_entities
from ..extensions import SPANS_KEY, add_error, add_risky_set, entity_key, fail_closed, get_candidates, set_risk
from .search_client import SearchClient, SearchError

logger = logging.getLogger(__name__)

MEASURE = "web"
PERSON_LABEL = "PERSON"


@Language.factory(
    "web_risk",
    requires=["doc.spans"],
    assigns=["doc._.risky_sets", "span._.risk"],
    default_config={
        "client": None,
        "max_arity": 2,
        "person": "auto",
        "labels": None,
        "max_queries": 200,
        "time_budget_s": 300.0,
        "operator": "AND",
        "prune_supersets": True,
        "spans_key": SPANS_KEY,
    },
)
def make_web_risk(
    nlp: Language,
    name: str,
    client: SearchClient | None,
    max_arity: int,
    person: str,
    labels: list[str] | None,
    max_queries: int,
    time_budget_s: float,
    operator: str,
    prune_supersets: bool,
    spans_key: str,
) -> "WebRisk":
    """client: a search client from the registry (``spacy_textsan.searxng_client.v2``,
        ``spacy_textsan.json_search_client.v2``); None: every candidate entity
        is counted as risky (fail closed) and a warning is logged once.
    max_arity: the largest combination searched.
    person: "auto" (the PERSON entity with the most mentions, ties: the first
        in the text) or the name to protect.
    labels: candidate labels that take part; None: every label but PERSON.
    max_queries, time_budget_s: per document; beyond them combinations count as risky.
    operator: what joins the quoted terms of a query.
    prune_supersets: skip combinations that contain a risky one.
    """
    return WebRisk(
        name,
        client=client,
        max_arity=max_arity,
        person=person,
        labels=labels,
        max_queries=max_queries,
        time_budget_s=time_budget_s,
        operator=operator,
        prune_supersets=prune_supersets,
        spans_key=spans_key,
    )


# --------------------------------------------------------------------------- #
# Pure functions
# --------------------------------------------------------------------------- #


def choose_person(spans: Iterable[Span], label: str = PERSON_LABEL) -> Entity | None:
    """The PERSON entity with the most mentions; ties go to the first in the text."""
    people = group_entities(s for s in spans if s.label_ == label)
    if not people:
        return None
    return max(people, key=lambda e: (len(e.spans), -e.representative.start_char))


def format_query(terms: Sequence[str], operator: str = "AND") -> str:
    """``"a" AND "b"``: each term quoted, joined by the operator."""
    return f" {operator} ".join(f'"{t}"' for t in terms)


def normalize_url(url: str) -> str:
    """A URL for comparison: scheme and host lower-cased, fragment and trailing slash dropped."""
    try:
        parts = urllib.parse.urlsplit(url.strip())
    except ValueError:
        return url.strip()
    path = parts.path.rstrip("/")
    return urllib.parse.urlunsplit((parts.scheme.lower(), parts.netloc.lower(), path, parts.query, ""))


@dataclass
class ComboResult:
    """The outcome for one combination (indices into the entity list)."""

    combo: tuple[int, ...]
    query: str
    risky: bool
    shared: int = 0
    failure: str | None = None


@dataclass
class WebRiskResult:
    combos: list[ComboResult] = field(default_factory=list)
    person_urls: set[str] = field(default_factory=set)
    #: URLs of the person + entity search, per entity index (arity 1).
    person_entity_urls: dict[int, set[str]] = field(default_factory=dict)
    #: Failure reasons with the number of combinations each made risky, in first-seen order.
    failures: dict[str, int] = field(default_factory=dict)
    queries: int = 0

    def risky_alone(self) -> set[int]:
        return {c.combo[0] for c in self.combos if c.risky and len(c.combo) == 1}


class BoundedSearch:
    """A search function for one document: memoised (a repeated query, failed or
    not, is not sent again), at most ``max_queries`` distinct queries, and a
    deadline passed to the client. Raises SearchError; any other exception of
    the client becomes one (its type only: messages may hold secrets)."""

    def __init__(
        self, client: SearchClient, max_queries: int, deadline: float | None, time_budget_s: float | None = None
    ):
        self.client = client
        self.max_queries = max_queries
        self.deadline = deadline
        self.time_budget_s = time_budget_s
        self.queries = 0
        self._memo: dict[str, object] = {}
        try:
            self._pass_deadline = "deadline" in inspect.signature(client.search).parameters
        except (TypeError, ValueError):
            self._pass_deadline = False

    def __call__(self, query: str) -> set[str]:
        if query in self._memo:
            result = self._memo[query]
            if isinstance(result, SearchError):
                raise result
            return result  # type: ignore[return-value]
        if self.queries >= self.max_queries:
            raise SearchError(f"query budget of {self.max_queries} per document exhausted")
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise SearchError(f"time budget of {self.time_budget_s:g} s per document exhausted")
        self.queries += 1
        try:
            if self._pass_deadline:
                urls = self.client.search(query, deadline=self.deadline)
            else:
                urls = self.client.search(query)
            if not isinstance(urls, (list, tuple)) or not all(isinstance(u, str) for u in urls):
                raise SearchError("client returned something other than a list of URLs")
            result = {normalize_url(u) for u in urls}
        except SearchError as e:
            result = e
        except Exception as e:  # a custom client's bug must not crash the pipeline
            result = SearchError(f"client error ({type(e).__name__})")
        self._memo[query] = result
        if isinstance(result, SearchError):
            if self.deadline is not None and time.monotonic() >= self.deadline and "time budget" not in result.reason:
                result = SearchError(f"{result.reason}; time budget of {self.time_budget_s:g} s per document exhausted")
                self._memo[query] = result
            raise result
        return result  # type: ignore[return-value]


def find_risky_combinations(
    terms: Sequence[str],
    person: str,
    search: Callable[[str], set[str]],
    max_arity: int = 2,
    operator: str = "AND",
    prune_supersets: bool = True,
) -> WebRiskResult:
    """Algorithm 1 of Papadopoulou et al. 2022a over ``terms`` (one per entity). ``search``
    returns a set of normalised URLs or raises SearchError. The person's own
    search must succeed (the caller handles its failure)."""
    out = WebRiskResult()
    person_urls = set(search(format_query([person], operator)))
    risky: set[frozenset[int]] = set()
    results: dict[tuple[int, ...], ComboResult] = {}
    pending: dict[tuple[int, ...], set[str]] = {}

    def contains_risky(combo: tuple[int, ...]) -> bool:
        return any(frozenset(sub) in risky for k in range(1, len(combo)) for sub in itertools.combinations(combo, k))

    for n in range(1, max(1, max_arity) + 1):
        level: list[tuple[tuple[int, ...], str, set[str]]] = []
        for combo in itertools.combinations(range(len(terms)), n):
            if prune_supersets and contains_risky(combo):
                continue
            combo_terms = [terms[i] for i in combo]
            query = format_query(combo_terms, operator)
            try:
                urls = search(query)
                with_person = search(format_query([person] + combo_terms, operator))
            except SearchError as e:
                results[combo] = ComboResult(combo, query, True, failure=e.reason)
                out.failures[e.reason] = out.failures.get(e.reason, 0) + 1
                risky.add(frozenset(combo))
                continue
            person_urls |= with_person
            if n == 1:
                out.person_entity_urls[combo[0]] = set(with_person)
            level.append((combo, query, urls))
        for combo, query, urls in level:
            shared = urls & person_urls
            results[combo] = ComboResult(combo, query, bool(shared), shared=len(shared))
            if shared:
                risky.add(frozenset(combo))
            else:
                pending[combo] = urls
    # The person's URLs grew after the early levels: check those combinations again.
    for combo, urls in pending.items():
        shared = urls & person_urls
        if shared:
            results[combo].risky, results[combo].shared = True, len(shared)
    out.combos = [results[c] for c in sorted(results, key=lambda c: (len(c), c))]
    out.person_urls = person_urls
    return out


def web_score(result: WebRiskResult, index: int) -> float:
    """``span._.risk["web"]`` of entity ``index``: 1.0 when risky alone, else the
    fraction of the person's URLs found by the search for person + entity."""
    if index in result.risky_alone() or index not in result.person_entity_urls:
        return 1.0
    if not result.person_urls:
        return 0.0
    return len(result.person_entity_urls[index] & result.person_urls) / len(result.person_urls)


def risky_reason(combo: ComboResult) -> str:
    if combo.failure is not None:
        return f"web search failed: {combo.failure}, counted as risky"
    plural = "" if combo.shared == 1 else "s"
    return f"web search: {combo.shared} result URL{plural} for {combo.query} shared with the person to protect"


# --------------------------------------------------------------------------- #
# The component
# --------------------------------------------------------------------------- #


class WebRisk:
    """Marks entities and combinations of entities whose web search results
    also mention the person to protect (see the module docstring)."""

    #: a risk measure (see :mod:`spacy_textsan.stages`)
    textsan_stage = "risk"
    #: what it reads and writes (:mod:`spacy_textsan.stages`)
    textsan_reads = ("doc.spans",)
    textsan_measures = ("doc._.risky_sets", "span._.risk")

    def __init__(
        self,
        name: str = "web_risk",
        *,
        client: SearchClient | None = None,
        max_arity: int = 2,
        person: str = "auto",
        labels: Iterable[str] | None = None,
        max_queries: int = 200,
        time_budget_s: float | None = 300.0,
        operator: str = "AND",
        prune_supersets: bool = True,
        spans_key: str = SPANS_KEY,
    ):
        if max_arity < 1:
            raise ValueError(f"web_risk: max_arity must be at least 1, not {max_arity}")
        if max_queries < 1:
            raise ValueError(f"web_risk: max_queries must be at least 1, not {max_queries}")
        if time_budget_s is not None and time_budget_s <= 0:
            raise ValueError(f"web_risk: time_budget_s must be positive, not {time_budget_s}")
        if not isinstance(person, str) or not person.strip():
            raise ValueError("web_risk: person must be 'auto' or a name")
        if client is not None and not callable(getattr(client, "search", None)):
            raise ValueError(f"web_risk: client must have a search(query) method, not {type(client).__name__}")
        self.name = name
        self.client = client
        self.max_arity = int(max_arity)
        self.person = person
        self.labels = None if labels is None else set(labels)
        self.max_queries = int(max_queries)
        self.time_budget_s = time_budget_s
        self.operator = operator
        self.prune_supersets = prune_supersets
        self.spans_key = spans_key
        self._warned_no_client = False

    # -- selection ---------------------------------------------------------- #
    def _takes_part(self, span: Span) -> bool:
        if self.labels is None:
            return span.label_ != PERSON_LABEL
        return span.label_ in self.labels

    def select(self, doc: Doc) -> tuple[str | None, list[Entity]]:
        """The name to protect (None: no person) and the candidate entities."""
        spans = get_candidates(doc, self.spans_key)
        if self.person == "auto":
            person_entity = choose_person(spans)
            name = person_entity.surface if person_entity else None
            excluded = {person_entity.key} if person_entity else set()
        else:
            name = clean_term(self.person)
            folded = name.casefold()
            excluded = {entity_key(s) for s in spans if clean_term(s.text).casefold() == folded}
        entities = [
            e for e in group_entities(s for s in spans if self._takes_part(s)) if e.key not in excluded and e.surface
        ]
        return name or None, entities

    # -- processing --------------------------------------------------------- #
    def __call__(self, doc: Doc) -> Doc:
        try:
            person, entities = self.select(doc)
        except Exception as e:  # never crash the pipeline
            add_error(doc, f"{self.name}: could not select candidates ({type(e).__name__}); web risk not measured")
            return doc
        if self.client is None:
            if not self._warned_no_client:
                logger.warning(
                    "%s: no web search backend configured ([components.%s.client]); every "
                    "candidate entity is counted as risky",
                    self.name,
                    self.name,
                )
                self._warned_no_client = True
            if entities:
                self._all_risky(
                    doc,
                    entities,
                    "no web search backend configured, counted as risky",
                    f"{self.name}: no web search backend configured; all {len(entities)} "
                    f"candidate entities counted as risky",
                )
            return doc
        if not entities:
            return doc
        if person is None:
            # Nothing to search for: the spans stay unassessed by this measure, which
            # mask_optimizer masks by default (unassessed = "mask") unless another measure
            # assessed them. Say so in the report.
            logger.debug("%s: no person to protect in the document; nothing searched", self.name)
            add_error(doc, f"{self.name}: no person to protect found; web risk not assessed")
            return doc
        deadline = None if self.time_budget_s is None else time.monotonic() + self.time_budget_s
        search = BoundedSearch(self.client, self.max_queries, deadline, self.time_budget_s)
        terms = [e.surface for e in entities]
        try:
            result = find_risky_combinations(terms, person, search, self.max_arity, self.operator, self.prune_supersets)
        except SearchError as e:  # the person's own search
            self._all_risky(
                doc,
                entities,
                f"web search failed: {e.reason}, counted as risky",
                f"{self.name}: web search for the person to protect failed ({e.reason}); "
                f"all {len(entities)} candidate entities counted as risky",
            )
            return doc
        except Exception as e:
            self._all_risky(
                doc,
                entities,
                f"web search failed: internal error ({type(e).__name__}), counted as risky",
                f"{self.name}: internal error ({type(e).__name__}); all {len(entities)} "
                f"candidate entities counted as risky",
            )
            return doc
        self._apply(doc, entities, result)
        return doc

    def _all_risky(self, doc: Doc, entities: list[Entity], reason: str, error: str) -> None:
        """Fail closed: every candidate entity risky alone (its first mention), every mention scored 1.0."""
        for entity in entities:
            for span in entity.spans:
                set_risk(span, MEASURE, 1.0)
        fail_closed(doc, MEASURE, [e.representative for e in entities], reason, error)

    def _apply(self, doc: Doc, entities: list[Entity], result: WebRiskResult) -> None:
        for combo in result.combos:
            if combo.risky:
                add_risky_set(doc, MEASURE, [entities[i].representative for i in combo.combo], risky_reason(combo))
        for index, entity in enumerate(entities):
            score = web_score(result, index)
            for span in entity.spans:
                set_risk(span, MEASURE, score)
        total = len(result.combos)
        for reason, count in result.failures.items():
            add_error(
                doc,
                f"{self.name}: web search failed for {count} of {total} combination"
                f"{'s' if total != 1 else ''} ({reason}); counted as risky",
            )
