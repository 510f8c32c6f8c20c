"""``POST /analyze``, ``POST /anonymize`` and ``GET /supportedentities`` in the
shape of Presidio's REST API (presidio-analyzer and presidio-anonymizer), so
that a Presidio client switches to spacy-textsan by changing the URL.

``/analyze`` runs the whole pipeline and answers the spans it masks (not
those it keeps), each with its Presidio entity type (:func:`entity_type`) and
score 1.0; a document that could not be sanitized is one result over the
whole text (``TEXTSAN_FAILED``), whatever ``entities`` and
``score_threshold`` ask: it is never left in clear. Presidio's ``ad_hoc_recognizers`` (patterns and deny lists,
with their scores, and their ``context`` words raising a score by 0.35 to at
least 0.4 as Presidio's default context enhancer does), ``entities``,
``score_threshold``, ``allow_list`` and ``return_decision_process`` are
honoured; ``context`` and ``correlation_id`` are accepted and ignored.

Asking for an identifier type that textsan does not name (``US_DRIVER_LICENSE``)
also returns its codes of no named type (``ID``): one of them may be it.

``/anonymize`` is Presidio's anonymizer on the spans it is given: the same
conflict handling (spans of one type merged, spans inside others dropped,
spans of one type separated by spaces joined) and the operators ``replace``,
``redact``, ``mask``, ``hash`` (salted, sha256 or sha512) and ``keep``;
``encrypt`` (422) and ``custom`` (400) are refused.
"""

import hashlib
import os
import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..run.results import DocResult

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

#: Presidio's defaults: regex flags of patterns, the score of deny-list terms, the context enhancer's.
DEFAULT_REGEX_FLAGS = re.DOTALL | re.MULTILINE | re.IGNORECASE
DENY_LIST_SCORE = 1.0
CONTEXT_FACTOR, CONTEXT_MIN_SCORE, CONTEXT_WORDS_BEFORE = 0.35, 0.4, 5


class PresidioError(Exception):
    """An answer of Presidio's shape: ``{"error": message}`` with ``status``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def entity_type(span: dict[str, Any]) -> str:
    """Presidio's entity type of a span record (see :data:`LABEL_TYPES`, :data:`CODE_TYPES`)."""
    if span["label"] == "CODE":
        for name in re.findall(r"[a-z0-9_]+", span.get("source") or ""):
            if name in CODE_TYPES:
                return CODE_TYPES[name]
    return LABEL_TYPES.get(span["label"], span["label"])


# -- /analyze ----------------------------------------------------------------------


class PatternIn(BaseModel):
    name: str = "pattern"
    regex: str
    score: float = Field(0.5, ge=0, le=1)


class RecognizerIn(BaseModel):
    """An ad-hoc recognizer of Presidio (``PatternRecognizer.from_dict``)."""

    model_config = ConfigDict(extra="ignore")
    name: str = "ad hoc recognizer"
    supported_language: str = "en"
    supported_entity: str
    patterns: list[PatternIn] = []
    deny_list: list[str] = []
    context: list[str] = []


class AnalyzeRequest(BaseModel):
    """Presidio analyzer's request (fields it has that textsan does not use are accepted)."""

    model_config = ConfigDict(extra="ignore")
    text: str | list[str]
    language: str
    entities: list[str] | None = None
    score_threshold: float | None = None
    return_decision_process: bool = False
    ad_hoc_recognizers: list[RecognizerIn] = []
    context: list[str] | None = None
    allow_list: list[str] | None = None
    allow_list_match: str = "exact"
    regex_flags: int | None = None
    correlation_id: str | None = None


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


def analyze_document(text: str, res: DocResult, req: AnalyzeRequest) -> list[dict[str, Any]]:
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
    results += ad_hoc_results(text, req)
    wanted = wanted_types(req.entities, {rec.supported_entity for rec in req.ad_hoc_recognizers})
    threshold = req.score_threshold or 0.0
    results = [r for r in results if (wanted is None or r["entity_type"] in wanted) and r["score"] >= threshold]
    results = _allowed(results, text, req)
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


def ad_hoc_results(text: str, req: AnalyzeRequest) -> list[dict[str, Any]]:
    """The matches of the request's ad-hoc recognizers (for ``entities`` asked for)."""
    flags = DEFAULT_REGEX_FLAGS if req.regex_flags is None else req.regex_flags
    words = [(m.start(), m.group(0).lower()) for m in re.finditer(r"\w+", text)]
    out = []
    for rec in req.ad_hoc_recognizers:
        if req.entities and rec.supported_entity not in req.entities:
            continue
        patterns = [(p.name, p.regex, p.score) for p in rec.patterns]
        if rec.deny_list:
            terms = "|".join(re.escape(t) for t in rec.deny_list)
            patterns.append(("deny_list", rf"(?:^|(?<=\W))({terms})(?:(?=\W)|$)", DENY_LIST_SCORE))
        for name, regex, score in patterns:
            try:
                compiled = re.compile(regex, flags)
            except re.error as e:
                raise PresidioError(400, f"ad_hoc_recognizers {rec.name!r}: bad regex {regex!r}: {e}") from None
            for m in compiled.finditer(text):
                if m.start() == m.end():
                    continue
                final, word = _with_context(score, m.start(), words, rec.context)
                why = explanation(rec.name, score, None, (name, regex))
                if word:
                    why.update(score=final, score_context_improvement=final - score, supportive_context_word=word)
                out.append(_result(rec.supported_entity, m.start(), m.end(), final, req, why))
    return out


def _with_context(score: float, start: int, words: list[tuple[int, str]], context: Sequence[str]) -> tuple[float, str]:
    """The score raised by a context word among the words before the match (Presidio's default enhancer)."""
    before = [w for pos, w in words if pos < start][-CONTEXT_WORDS_BEFORE:]
    for word in context:
        if any(word.lower() in w for w in before):
            return min(1.0, max(score + CONTEXT_FACTOR, CONTEXT_MIN_SCORE)), word
    return score, ""


def _allowed(results: list[dict], text: str, req: AnalyzeRequest) -> list[dict]:
    """Without the results whose text the ``allow_list`` allows (exact terms or regexes)."""
    terms = [t for t in (req.allow_list or []) if t]
    if not terms:
        return results
    if req.allow_list_match == "regex":
        flags = DEFAULT_REGEX_FLAGS if req.regex_flags is None else req.regex_flags
        allowed = re.compile("|".join(terms), flags)
        return [
            r for r in results if r["entity_type"] == FAILED_TYPE or not allowed.search(text[r["start"] : r["end"]])
        ]
    return [r for r in results if r["entity_type"] == FAILED_TYPE or text[r["start"] : r["end"]] not in terms]


# -- /anonymize ----------------------------------------------------------------------


class RecognizerResultIn(BaseModel):
    model_config = ConfigDict(extra="ignore")
    start: int
    end: int
    score: float = 1.0
    entity_type: str


class AnonymizeRequest(BaseModel):
    """Presidio anonymizer's request."""

    model_config = ConfigDict(extra="ignore")
    text: str
    analyzer_results: list[RecognizerResultIn]
    anonymizers: dict[str, dict[str, Any]] | None = None


DEFAULT_OPERATOR = {"type": "replace"}
#: The operators of ``/anonymize`` (``GET /anonymizers``).
OPERATORS = ["hash", "keep", "mask", "redact", "replace"]


@dataclass
class Hit:
    """An analyzer result on its way through the anonymizer."""

    start: int
    end: int
    score: float
    kind: str


def anonymize(text: str, results: Iterable[RecognizerResultIn], operators: dict[str, dict] | None) -> dict[str, Any]:
    """Presidio's ``AnonymizerEngine.anonymize``: ``{"text", "items"}``, the
    items in the order Presidio gives them (last in the text first), their
    offsets in the anonymized text. :class:`PresidioError` (422) for a span
    outside the text or a bad operator, (400) for a custom one."""
    if not text:
        raise PresidioError(422, "Invalid input, text can not be empty")
    hits = []
    for r in results:
        if r.start < 0 or r.end < 0:
            raise PresidioError(422, "Invalid input, result start and end must be positive")
        if r.start > r.end or r.end > len(text):
            raise PresidioError(422, f"Invalid input, result [{r.start}, {r.end}) is not a range of the text")
        hits.append(Hit(r.start, r.end, r.score, r.entity_type))
    configs = dict(operators or {})
    if any(c.get("type") == "custom" for c in configs.values()):
        raise PresidioError(400, "Custom type anonymizer is not supported")
    configs.setdefault("DEFAULT", DEFAULT_OPERATOR)
    hits = _joined_by_spaces(text, _without_contained(_merged_by_type(sorted(hits, key=_position))))
    out = text
    done: list[tuple[Hit, str, str]] = []  # (hit, new text, operator), last in the text first
    for hit in sorted(hits, key=_position, reverse=True):
        config = configs.get(hit.kind) or configs["DEFAULT"]
        new = operate(config, out[hit.start : hit.end], hit.kind)
        out = out[: hit.start] + new + out[hit.end :]
        done.append((hit, new, str(config.get("type"))))
    # each item's offsets in the anonymized text: moved by the length changes of the items before it
    moved, shift = {}, 0
    for hit, new, _ in reversed(done):
        moved[id(hit)] = hit.start + shift
        shift += len(new) - (hit.end - hit.start)
    items = [
        {
            "start": moved[id(hit)],
            "end": moved[id(hit)] + len(new),
            "entity_type": hit.kind,
            "text": new,
            "operator": op,
            "score": hit.score,
        }
        for hit, new, op in done
    ]
    return {"text": out, "items": items}


def _position(hit: Hit) -> tuple[int, int]:
    return hit.start, hit.end


def operate(config: dict[str, Any], text: str, kind: str) -> str:
    """One of Presidio's anonymize operators on ``text``."""
    name = config.get("type")
    if name == "replace":
        value = config.get("new_value")
        if value is not None and not isinstance(value, str):
            raise PresidioError(422, "Invalid parameter value for new_value. Expecting 'string'")
        return value or f"<{kind}>"
    if name == "redact":
        return ""
    if name == "keep":
        return text
    if name == "mask":
        char, count, from_end = config.get("masking_char"), config.get("chars_to_mask"), config.get("from_end")
        if not isinstance(char, str) or len(char) != 1:
            raise PresidioError(422, "Invalid input, masking_char must be a character")
        if not isinstance(count, int) or isinstance(count, bool):
            raise PresidioError(422, "Expected parameter chars_to_mask")
        if not isinstance(from_end, bool):
            raise PresidioError(422, "Expected parameter from_end")
        n = min(len(text), count) if count > 0 else 0
        return text[: len(text) - n] + char * n if from_end else char * n + text[n:]
    if name == "hash":
        hash_type = config.get("hash_type", "sha256")
        if hash_type not in ("sha256", "sha512"):
            raise PresidioError(
                422, f"Parameter hash_type value {hash_type} is not in range of values ['sha256', 'sha512']"
            )
        salt = config.get("salt")
        salt_bytes = salt.encode() if isinstance(salt, str) else os.urandom(32)
        if salt is not None and len(salt_bytes) < 16:
            raise PresidioError(
                422, f"Salt must be at least 16 bytes (128 bits). Provided salt is {len(salt_bytes)} bytes."
            )
        return hashlib.new(hash_type, text.encode() + salt_bytes).hexdigest()
    if name == "encrypt":
        raise PresidioError(
            422,
            "the encrypt operator is not supported by spacy-textsan (textsan sanitize --reversible keeps an encrypted way back)",
        )
    raise PresidioError(422, f"Invalid operator class '{name}'.")


def _merged_by_type(hits: list[Hit]) -> list[Hit]:
    """Overlapping hits of one type become one (their union, the highest score)."""
    out: list[Hit] = []
    last: dict[str, Hit] = {}  # the latest hit of each type (hits come by start)
    for hit in hits:
        prev = last.get(hit.kind)
        if prev is not None and hit.start < prev.end and prev.start < hit.end:
            prev.start, prev.end, prev.score = (
                min(prev.start, hit.start),
                max(prev.end, hit.end),
                max(prev.score, hit.score),
            )
            continue
        hit = Hit(hit.start, hit.end, hit.score, hit.kind)
        out.append(hit)
        last[hit.kind] = hit
    return sorted(out, key=_position)


def _without_contained(hits: list[Hit]) -> list[Hit]:
    """Hits inside another dropped; of hits with equal offsets the highest score stays (the last on a tie)."""
    order = sorted(range(len(hits)), key=lambda i: (hits[i].start, -hits[i].end))
    dropped: set[int] = set()
    largest_end: int | None = None
    g = 0
    while g < len(order):
        first = hits[order[g]]
        h = g
        while h < len(order) and _position(hits[order[h]]) == _position(first):
            h += 1
        group = order[g:h]
        if largest_end is not None and largest_end >= first.end:
            dropped.update(group)
        else:
            keep = max(group, key=lambda i: (hits[i].score, i))
            dropped.update(i for i in group if i != keep)
        largest_end = first.end if largest_end is None else max(largest_end, first.end)
        g = h
    return [hit for i, hit in enumerate(hits) if i not in dropped]


def _joined_by_spaces(text: str, hits: list[Hit]) -> list[Hit]:
    """Hits of one type with only spaces between them become one (the later one's score)."""
    out: list[Hit] = []
    for hit in hits:
        if out and out[-1].kind == hit.kind and re.fullmatch(r" +", text[out[-1].end : hit.start]):
            hit = Hit(out.pop().start, hit.end, hit.score, hit.kind)
        out.append(hit)
    return out
