"""``POST /analyze`` and ``GET /supportedentities`` in the shape of Presidio's
REST API (presidio-analyzer), so that a Presidio client switches to
spacy-textsan by changing the URL; ``/anonymize`` is :mod:`.anonymizer`.

``/analyze`` runs the whole pipeline and answers the spans it masks (not
those it keeps), each with its Presidio entity type (:func:`entity_type`) and
score 1.0; a document that could not be sanitized is one result over the
whole text (``TEXTSAN_FAILED``), whatever ``entities`` and
``score_threshold`` ask: it is never left in clear. Presidio's ``ad_hoc_recognizers`` (patterns and deny lists,
with their scores, and their ``context`` words raising a score by 0.35 to at
least 0.4 as Presidio's default context enhancer does), ``entities``,
``score_threshold``, ``allow_list`` and ``return_decision_process`` are
honoured; ``context`` and ``correlation_id`` are accepted and ignored.
Patterns and regex allow lists are compiled by RE2 (:mod:`.patterns`): linear
in the text, no backreferences or lookarounds.

Asking for an identifier type that textsan does not name (``US_DRIVER_LICENSE``)
also returns its codes of no named type (``ID``): one of them may be it.

An answer holds offsets, entity types and scores, never a string of the text;
with ``return_decision_process`` each result's ``textual_explanation`` gives
the pipeline's reasons (or a failed document's errors), which may quote it.
"""

import re
from bisect import bisect_left
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, Field, WithJsonSchema, field_validator
from pydantic_core import PydanticCustomError

from ..run.results import DocResult
from ..user_regex import FLAG_VALUES, check_flags
from .fields import Document, InvalidField, Key, Language, Name, PresidioModel
from .patterns import (
    DEFAULT_FLAGS,
    Utf8Text,
    compile_pattern,
    deny_list_matches,
    deny_list_pattern,
    matches,
)
from .work import Deadline

#: Presidio's entity type of each TAB label (CODE is refined by the rule that found it, :data:`CODE_TYPES`).
LABEL_TYPES = {
    "PERSON": "PERSON",
    "LOC": "LOCATION",
    "DATETIME": "DATE_TIME",
    "DEM": "NRP",  # nationality, religion, political group: Presidio's NRP
    "ORG": "ORGANIZATION",  # Presidio's spaCy mapping of ORG
    "QUANTITY": "QUANTITY",  # no Presidio type: textsan's names
    "MISC": "MISC",
    "CODE": "ID",  # a code no rule names more precisely
}
#: Presidio's entity type of a CODE span by the name of the rule or detector in its ``source``.
CODE_TYPES = {
    "email": "EMAIL_ADDRESS",
    "obfuscated_email": "EMAIL_ADDRESS",
    "phone": "PHONE_NUMBER",
    "url": "URL",
    "ipv4": "IP_ADDRESS",
    "ipv6": "IP_ADDRESS",
    "mac_address": "MAC_ADDRESS",
    "iban": "IBAN_CODE",
    "payment_card": "CREDIT_CARD",
    "us_ssn": "US_SSN",
    "uk_nino": "UK_NINO",
    "nhs_number": "UK_NHS",
    "aadhaar": "IN_AADHAAR",
    "in_pan": "IN_PAN",
    "pl_pesel": "PL_PESEL",
    "it_codice_fiscale": "IT_FISCAL_CODE",
    "es_dni": "ES_NIF",
    "es_nie": "ES_NIE",
    "tr_tckimlik": "TR_NATIONAL_ID",
    "se_personnummer": "SE_PERSONNUMMER",
    "fi_hetu": "FI_PERSONAL_IDENTITY_CODE",
    "ca_sin": "CA_SIN",
    "uk_licence_plate": "UK_VEHICLE_REGISTRATION",
    "tr_licence_plate": "TR_LICENSE_PLATE",
}
#: The entity type of a document that could not be sanitized (one result over its whole text).
FAILED_TYPE = "TEXTSAN_FAILED"
SUPPORTED_ENTITIES = sorted({*LABEL_TYPES.values(), *CODE_TYPES.values()})

#: Presidio's defaults: the score of deny-list terms, the context enhancer's.
DENY_LIST_SCORE = 1.0
CONTEXT_FACTOR, CONTEXT_MIN_SCORE, CONTEXT_WORDS_BEFORE = 0.35, 0.4, 5
#: The most recognizers, patterns, terms and words one request may give.
MAX_RECOGNIZERS, MAX_PATTERNS, MAX_TERMS, MAX_WORDS = 20, 50, 1000, 100
#: The longest pattern.
MAX_PATTERN = 1000


def entity_type(span: dict[str, Any]) -> str:
    """Presidio's entity type of a span record (see :data:`LABEL_TYPES`, :data:`CODE_TYPES`)."""
    if span["label"] == "CODE":
        for name in re.findall(r"[a-z0-9_]+", span.get("source") or ""):
            if name in CODE_TYPES:
                return CODE_TYPES[name]
    return LABEL_TYPES.get(span["label"], span["label"])


# -- the request ---------------------------------------------------------------------


class PatternIn(PresidioModel):
    """A pattern of an ad-hoc recognizer (RE2 syntax)."""

    name: Name = "pattern"
    regex: Annotated[str, Field(max_length=MAX_PATTERN, description="RE2 syntax: no backreferences or lookarounds")]
    score: float = Field(0.5, ge=0, le=1)


class RecognizerIn(PresidioModel):
    """An ad-hoc recognizer of Presidio (``PatternRecognizer.from_dict``)."""

    name: Name = "ad hoc recognizer"
    supported_language: Name = "en"
    supported_entity: Key
    patterns: list[PatternIn] = Field([], max_length=MAX_PATTERNS)
    deny_list: list[Key] = Field([], max_length=MAX_TERMS)
    context: list[Key] = Field([], max_length=MAX_WORDS)


def _texts_schema() -> dict[str, Any]:
    document = {"type": "string", "minLength": 1, "x-textsan-limit": "max_document_chars"}
    return {
        "anyOf": [document, {"type": "array", "items": document, "minItems": 1, "x-textsan-limit": "max_texts"}],
        "description": "a text, or a list of texts (answered with a list of lists)",
    }


def _known_flags(flags: int) -> int:
    try:
        return check_flags(flags)
    except ValueError as e:  # without the value: "66 holds a flag..."
        raise ValueError(str(e).partition(" holds ")[2] or "a flag RE2 does not have") from None


#: ``regex_flags``: Python's ``re`` flags that RE2 has (:data:`~.patterns.FLAGS`).
RegexFlags = Annotated[
    int,
    AfterValidator(_known_flags),
    WithJsonSchema(
        {
            "type": "integer",
            "enum": FLAG_VALUES,
            "description": "a sum of re.IGNORECASE (2), re.MULTILINE (8), re.DOTALL (16), re.UNICODE (32); default 26",
        }
    ),
]


class AnalyzeRequest(PresidioModel):
    """Presidio analyzer's request (fields it has that textsan does not use are accepted)."""

    text: Annotated[str | list[Document], WithJsonSchema(_texts_schema())]
    language: Language
    entities: list[Key] | None = Field(None, max_length=MAX_WORDS)
    score_threshold: float | None = Field(None, ge=0, le=1)
    return_decision_process: bool = False
    regex_flags: RegexFlags | None = None
    ad_hoc_recognizers: list[RecognizerIn] = Field([], max_length=MAX_RECOGNIZERS)
    context: list[Name] | None = Field(None, max_length=MAX_WORDS)
    allow_list: list[Name] | None = Field(None, max_length=MAX_TERMS)
    allow_list_match: Literal["exact", "regex"] = "exact"
    correlation_id: Name | None = None

    @field_validator("text")
    @classmethod
    def _some_text(cls, value: str | list[str]) -> str | list[str]:
        if not value or (isinstance(value, list) and not all(value)):
            raise PydanticCustomError("no_text", "No text provided")
        return value

    @property
    def texts(self) -> list[str]:
        return self.text if isinstance(self.text, list) else [self.text]

    @property
    def flags(self) -> int:
        return DEFAULT_FLAGS if self.regex_flags is None else self.regex_flags


# -- the answer ------------------------------------------------------------------------


class Explanation(BaseModel):
    """Presidio's ``analysis_explanation`` of a result."""

    recognizer: str
    pattern_name: str | None
    pattern: str | None
    original_score: float
    score: float
    textual_explanation: str | None
    score_context_improvement: float
    supportive_context_word: str
    validation_result: None
    regex_flags: None


class RecognizerResult(BaseModel):
    """One result of ``/analyze``: where, what, how sure (and how, with ``return_decision_process``)."""

    analysis_explanation: Explanation | None
    end: int
    entity_type: str
    score: float
    start: int


def explanation(recognizer: str, score: float, text: str | None, pattern: tuple[str, str] | None = None) -> dict:
    """Presidio's ``analysis_explanation`` of one result."""
    return {
        "recognizer": recognizer,
        "pattern_name": pattern[0] if pattern else None,
        "pattern": pattern[1] if pattern else None,
        "original_score": score,
        "score": score,
        "textual_explanation": text,
        "score_context_improvement": 0,
        "supportive_context_word": "",
        "validation_result": None,
        "regex_flags": None,
    }


# -- the work --------------------------------------------------------------------------


@dataclass
class Pattern:
    """A pattern of a request, compiled by RE2 (``regex``: as the request gave it)."""

    name: str
    regex: str
    compiled: Any
    score: float


@dataclass
class Recognizer:
    """An ad-hoc recognizer of a request, its patterns and its deny list compiled."""

    name: str
    entity: str
    context: list[str]
    patterns: list[Pattern]
    deny_list: Pattern | None


def compile_request(req: AnalyzeRequest, deadline: Deadline) -> tuple[list[Recognizer], Any]:
    """The request's recognizers (those of ``entities`` asked for) and its
    regex allow list, compiled by RE2; :class:`~.fields.InvalidField` names a
    pattern RE2 cannot compile."""
    recognizers = []
    for i, rec in enumerate(req.ad_hoc_recognizers):
        if req.entities and rec.supported_entity not in req.entities:
            continue
        patterns = []
        for j, p in enumerate(rec.patterns):
            deadline.check()
            where = ("ad_hoc_recognizers", i, "patterns", j, "regex")
            patterns.append(Pattern(p.name, p.regex, _compiled(where, compile_pattern, p.regex, req.flags), p.score))
        deny = None
        if rec.deny_list:
            compiled = _compiled(("ad_hoc_recognizers", i, "deny_list"), deny_list_pattern, rec.deny_list, req.flags)
            deny = Pattern("deny_list", compiled.pattern, compiled, DENY_LIST_SCORE)
        recognizers.append(Recognizer(rec.name, rec.supported_entity, rec.context, patterns, deny))
    terms = [t for t in req.allow_list or () if t]
    if req.allow_list_match != "regex" or not terms:
        return recognizers, None
    for k, term in enumerate(req.allow_list or ()):  # each on its own, to name the one RE2 refuses
        deadline.check()
        _compiled(("allow_list", k), compile_pattern, term, req.flags)
    return recognizers, _compiled(("allow_list",), compile_pattern, "|".join(terms), req.flags)


#: RE2's reason in a refusal, ``(missing ): (ab)``: its kind, and what it quotes of the pattern.
_RE2_REASON = re.compile(r"(?s)(.*? this pattern \()(.*?)(?:: .*)?(\); RE2 has .*)")


def _compiled(loc: tuple[str | int, ...], make: Callable[[Any, int], Any], pattern: Any, flags: int) -> Any:
    """``make(pattern, flags)``, or :class:`~.fields.InvalidField` with RE2's
    reason less the part of the pattern it quotes (``missing )``)."""
    try:
        return make(pattern, flags)
    except ValueError as e:
        found = _RE2_REASON.fullmatch(str(e))
        raise InvalidField(loc, "".join(found.groups()) if found else str(e)) from None


def analyze_documents(
    texts: Sequence[str], results: Sequence[DocResult], req: AnalyzeRequest, deadline: Deadline
) -> list[list[dict[str, Any]]]:
    """Presidio analyzer results of each document (see :func:`analyze_document`)."""
    recognizers, allowed = compile_request(req, deadline)
    return [analyze_document(t, r, req, recognizers, allowed, deadline) for t, r in zip(texts, results, strict=True)]


def analyze_document(
    text: str,
    res: DocResult,
    req: AnalyzeRequest,
    recognizers: Sequence[Recognizer],
    allowed: Any,
    deadline: Deadline,
) -> list[dict[str, Any]]:
    """Presidio analyzer results of one document (sorted like Presidio's answer: by start)."""
    if not res.ok:  # never in clear: one result over the whole text, whatever the filters
        why = explanation(
            "textsan", 1.0, f"sanitization failed, the whole text is to be masked: {'; '.join(res.errors)}"
        )
        return [_result(FAILED_TYPE, 0, len(text), 1.0, req, why)]
    results = []
    for s in res.spans:
        if s["masked"] is False:
            continue
        kind = entity_type(s)
        why = explanation(f"textsan:{s.get('source')}", 1.0, "; ".join(s.get("reasons") or []) or None)
        results.append(_result(kind, s["start"], s["end"], 1.0, req, why))
    results += ad_hoc_results(text, req, recognizers, deadline)
    wanted = wanted_types(req.entities, {rec.supported_entity for rec in req.ad_hoc_recognizers})
    threshold = req.score_threshold or 0.0
    results = [r for r in results if (wanted is None or r["entity_type"] in wanted) and r["score"] >= threshold]
    results = _allowed(results, text, req, allowed, deadline)
    return sorted(results, key=lambda r: (r["start"], r["end"], r["entity_type"]))


def wanted_types(entities: list[str] | None, ad_hoc: Collection[str] = ()) -> set[str] | None:
    """The entity types ``entities`` lets through (None: all). Asking for an
    identifier type that neither textsan nor an ad-hoc recognizer of the
    request names (``US_DRIVER_LICENSE``) lets textsan's codes of no named
    type (``ID``) through too: one of them may be it."""
    if not entities:
        return None
    wanted = set(entities)
    if wanted - set(SUPPORTED_ENTITIES) - set(ad_hoc):
        wanted.add(LABEL_TYPES["CODE"])
    return wanted


def _result(kind: str, start: int, end: int, score: float, req: AnalyzeRequest, why: dict) -> dict[str, Any]:
    return {
        "analysis_explanation": why if req.return_decision_process else None,
        "end": end,
        "entity_type": kind,
        "score": score,
        "start": start,
    }


def ad_hoc_results(
    text: str, req: AnalyzeRequest, recognizers: Sequence[Recognizer], deadline: Deadline
) -> list[dict[str, Any]]:
    """The matches of the request's ad-hoc recognizers."""
    if not recognizers:
        return []
    utf8 = Utf8Text(text)
    words = _Words(text) if any(rec.context for rec in recognizers) else None
    out = []
    for rec in recognizers:
        found = [(p, matches(p.compiled, utf8, deadline)) for p in rec.patterns]
        if rec.deny_list is not None:
            found.append((rec.deny_list, deny_list_matches(rec.deny_list.compiled, utf8, deadline)))
        for p, spans in found:
            for start, end in spans:
                final, word = _with_context(p.score, start, words, rec.context)
                why = explanation(rec.name, p.score, None, (p.name, p.regex))
                if word:
                    why.update(score=final, score_context_improvement=final - p.score, supportive_context_word=word)
                out.append(_result(rec.entity, start, end, final, req, why))
    return out


class _Words:
    """The words of a text (``\\w+``, lower-cased) by position: the context words before a match."""

    def __init__(self, text: str) -> None:
        found = [(m.start(), m.group(0).lower()) for m in re.finditer(r"\w+", text)]
        self.starts = [pos for pos, _ in found]
        self.words = [w for _, w in found]

    def before(self, start: int, n: int) -> list[str]:
        i = bisect_left(self.starts, start)
        return self.words[max(0, i - n) : i]


def _with_context(score: float, start: int, words: "_Words | None", context: Sequence[str]) -> tuple[float, str]:
    """The score raised by a context word among the words before the match (Presidio's default enhancer)."""
    if not context or words is None:
        return score, ""
    before = words.before(start, CONTEXT_WORDS_BEFORE)
    for word in context:
        if any(word.lower() in w for w in before):
            return min(1.0, max(score + CONTEXT_FACTOR, CONTEXT_MIN_SCORE)), word
    return score, ""


def _allowed(results: list[dict], text: str, req: AnalyzeRequest, allowed: Any, deadline: Deadline) -> list[dict]:
    """Without the results whose text the ``allow_list`` allows (exact terms or RE2 patterns)."""
    terms = {t for t in (req.allow_list or []) if t}
    if not terms:
        return results
    kept = []
    for i, r in enumerate(results):
        if i % 512 == 0:
            deadline.check()
        found = text[r["start"] : r["end"]]
        hit = allowed.search(found) is not None if allowed is not None else found in terms
        if r["entity_type"] == FAILED_TYPE or not hit:
            kept.append(r)
    return kept
