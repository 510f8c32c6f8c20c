"""``POST /anonymize`` in the shape of Presidio's REST API (presidio-anonymizer):
Presidio's anonymizer on the spans it is given, with the same conflict
handling (spans of one type merged, spans inside others dropped, spans of one
type separated by spaces joined) and the operators ``replace``, ``redact``,
``mask``, ``hash`` (salted, sha256 or sha512) and ``keep``, one small model
each that checks its own parameters (:data:`OPERATOR_MODELS`); ``encrypt``
(422) and ``custom`` (400) are refused.

The answer is the anonymized text and its items, each the new text of a span
(the original only where ``keep`` asks for it); it never holds more of the
original than the spans left in place. Linear in the text and the spans.
"""

import hashlib
import os
import re
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Discriminator, Field, Tag, field_validator, model_validator
from pydantic.json_schema import SkipJsonSchema
from pydantic_core import PydanticCustomError

from .fields import Document, Key, Name, PresidioModel
from .work import Deadline

#: How many spans go by between two looks at the deadline.
CHECK_EVERY = 512


class Operator(PresidioModel):
    """An operator of ``/anonymize`` (its other Presidio parameters are ignored)."""

    type: str

    def operate(self, text: str, kind: str) -> str:
        raise NotImplementedError


class Replace(Operator):
    """The span becomes ``new_value`` (``<ENTITY_TYPE>`` without one)."""

    type: Literal["replace"]
    new_value: Name | None = None

    def operate(self, text: str, kind: str) -> str:
        return self.new_value or f"<{kind}>"


class Redact(Operator):
    """The span is removed."""

    type: Literal["redact"]

    def operate(self, text: str, kind: str) -> str:
        return ""


class Keep(Operator):
    """The span stays as it is."""

    type: Literal["keep"]

    def operate(self, text: str, kind: str) -> str:
        return text


class Mask(Operator):
    """``chars_to_mask`` characters of the span (from its end with ``from_end``) become ``masking_char``."""

    type: Literal["mask"]
    masking_char: str = Field(min_length=1, max_length=1)
    chars_to_mask: int
    from_end: bool

    def operate(self, text: str, kind: str) -> str:
        n = min(len(text), self.chars_to_mask) if self.chars_to_mask > 0 else 0
        return text[: len(text) - n] + self.masking_char * n if self.from_end else self.masking_char * n + text[n:]


class Hash(Operator):
    """The span's salted hash (a random salt per span without ``salt``)."""

    type: Literal["hash"]
    hash_type: Literal["sha256", "sha512"] = "sha256"
    salt: Name | None = Field(None, description="at least 16 bytes in UTF-8")

    @field_validator("salt")
    @classmethod
    def _long_enough(cls, salt: str | None) -> str | None:
        if salt is not None and len(salt.encode()) < 16:
            raise ValueError(f"Salt must be at least 16 bytes (128 bits). Provided salt is {len(salt.encode())} bytes.")
        return salt

    def operate(self, text: str, kind: str) -> str:
        salt = self.salt.encode() if self.salt is not None else os.urandom(32)
        return hashlib.new(self.hash_type, text.encode() + salt).hexdigest()


class Unsupported(Operator):
    """An operator textsan does not have: refused with Presidio's reason."""

    @model_validator(mode="before")
    @classmethod
    def _refused(cls, config: Any) -> Any:
        name = str(config.get("type")) if isinstance(config, dict) else ""
        if name == "custom":
            raise PydanticCustomError("unsupported_operator", "Custom type anonymizer is not supported")
        if name == "encrypt":
            raise ValueError(
                "the encrypt operator is not supported by spacy-textsan "
                "(textsan sanitize --reversible keeps an encrypted way back)"
            )
        raise ValueError(f"Invalid operator class: the operators are {', '.join(OPERATOR_MODELS)}")


#: The operators of ``/anonymize`` by name (``GET /anonymizers``).
OPERATOR_MODELS: dict[str, type[Operator]] = {
    "hash": Hash,
    "keep": Keep,
    "mask": Mask,
    "redact": Redact,
    "replace": Replace,
}
OPERATORS = list(OPERATOR_MODELS)


def _operator_name(value: Any) -> str | None:
    name = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    if not isinstance(name, str):
        return None
    return name if name in OPERATOR_MODELS else "type"  # the tag names the field refused


#: One operator's configuration, chosen by its ``type``.
OperatorConfig = Annotated[
    Annotated[Hash, Tag("hash")]
    | Annotated[Keep, Tag("keep")]
    | Annotated[Mask, Tag("mask")]
    | Annotated[Redact, Tag("redact")]
    | Annotated[Replace, Tag("replace")]
    | Annotated[SkipJsonSchema[Unsupported], Tag("type")],
    Discriminator(_operator_name),
]
DEFAULT_OPERATOR = Replace(type="replace")


class RecognizerResultIn(PresidioModel):
    """A span to anonymize (an ``/analyze`` result: its other fields are ignored)."""

    start: int = Field(ge=0)
    end: int = Field(ge=0)
    score: float = Field(1.0, ge=0, le=1)
    entity_type: Key


class AnonymizeRequest(PresidioModel):
    """Presidio anonymizer's request."""

    text: Annotated[Document, Field(json_schema_extra={"minLength": 1})]
    analyzer_results: list[RecognizerResultIn]
    anonymizers: dict[Key, OperatorConfig] | None = Field(
        None, description="an operator by entity type; DEFAULT for the others (replace by <ENTITY_TYPE>)"
    )

    @field_validator("text")
    @classmethod
    def _not_empty(cls, text: str) -> str:
        if not text:
            raise ValueError("Invalid input, text can not be empty")
        return text

    @field_validator("analyzer_results")
    @classmethod
    def _in_the_text(cls, results: list[RecognizerResultIn], info: Any) -> list[RecognizerResultIn]:
        text = info.data.get("text")
        if text is None:  # refused already
            return results
        for i, r in enumerate(results):
            if r.start > r.end or r.end > len(text):
                raise ValueError(
                    f"Invalid input, result {i} [{r.start}, {r.end}) is not a range of the text ({len(text)} characters)"
                )
        return results


class AnonymizedItem(BaseModel):
    """An anonymized span: its offsets in the anonymized text, its new text, the operator."""

    start: int
    end: int
    entity_type: str
    text: str
    operator: str
    score: float


class AnonymizeResponse(BaseModel):
    """The anonymized text and its items (last in the text first, as Presidio gives them)."""

    text: str
    items: list[AnonymizedItem]


@dataclass
class Hit:
    """An analyzer result on its way through the anonymizer."""

    start: int
    end: int
    score: float
    kind: str


def anonymize(
    text: str,
    results: Iterable[RecognizerResultIn],
    operators: Mapping[str, Operator] | None,
    deadline: Deadline,
) -> dict[str, Any]:
    """Presidio's ``AnonymizerEngine.anonymize``: ``{"text", "items"}``, the
    items in the order Presidio gives them (last in the text first), their
    offsets in the anonymized text. Each span replaces its range of the text
    as replaced so far, the last span first (so overlapping spans of
    different types do what they do in Presidio)."""
    configs = dict(operators or {})
    default = configs.get("DEFAULT", DEFAULT_OPERATOR)
    hits = [Hit(r.start, r.end, r.score, r.entity_type) for r in results]
    hits = _joined_by_spaces(text, _without_contained(_merged_by_type(sorted(hits, key=_position))))
    tail: deque[tuple[str, int, int]] = deque()  # the text from `cur` on, as replaced: (string, start, end) pieces
    cur = len(text)  # text[:cur] is as given
    done: list[tuple[Hit, str, str]] = []  # (hit, new text, operator), last in the text first
    for i, hit in enumerate(sorted(hits, key=_position, reverse=True)):
        if i % CHECK_EVERY == 0:
            deadline.check()
        config = configs.get(hit.kind) or default
        old = text[hit.start : min(hit.end, cur)] + _prefix(tail, hit.end - cur)
        new = config.operate(old, hit.kind)
        if hit.end <= cur:
            tail.appendleft((text, hit.end, cur))
        else:
            _drop(tail, hit.end - cur)
        tail.appendleft((new, 0, len(new)))
        cur = hit.start
        done.append((hit, new, config.type))
    out = text[:cur] + "".join(s[a:b] for s, a, b in tail)
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


def _prefix(pieces: deque[tuple[str, int, int]], n: int) -> str:
    """The first ``n`` characters of ``pieces`` (none for ``n`` <= 0)."""
    out: list[str] = []
    for s, a, b in pieces:
        if n <= 0:
            break
        out.append(s[a : min(b, a + n)])
        n -= b - a
    return "".join(out)


def _drop(pieces: deque[tuple[str, int, int]], n: int) -> None:
    """``pieces`` without their first ``n`` characters."""
    while n > 0 and pieces:
        s, a, b = pieces[0]
        if b - a <= n:
            pieces.popleft()
            n -= b - a
        else:
            pieces[0] = (s, a + n, b)
            n = 0


def _position(hit: Hit) -> tuple[int, int]:
    return hit.start, hit.end


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
