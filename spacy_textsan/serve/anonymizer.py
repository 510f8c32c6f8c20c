"""``POST /anonymize`` in the shape of Presidio's REST API (presidio-anonymizer):
Presidio's anonymizer on the spans it is given, their conflicts resolved
first (:mod:`.conflicts`: every character belongs to one span at most), with
the registered operators that work on a span on its own
(:mod:`spacy_textsan.render.operators`: ``hash``, ``keep``, ``mask``,
``redact``, ``replace``), each checking its own parameters (its ``params``
model); ``encrypt`` and ``custom`` are refused (422).

The answer is the anonymized text and its items, each the new text of a span
(the original only where ``keep`` asks for it); it never holds more of the
original than the spans left in place.
"""

from collections.abc import Iterable, Mapping
from functools import reduce
from operator import or_
from typing import TYPE_CHECKING, Annotated, Any, Literal, cast

from pydantic import BaseModel, Discriminator, Field, Tag, create_model, field_validator, model_validator
from pydantic.json_schema import SkipJsonSchema
from pydantic_core import PydanticCustomError

from ..render.operators import Operator, get_operator, span_operator_names
from .conflicts import CHECK_EVERY, Hit, resolve
from .fields import Document, Key, Language, PresidioModel
from .work import Deadline


class OperatorConfig(PresidioModel):
    """An operator of ``/anonymize``: its ``type``, the name of a registered
    operator, and its parameters (the operator's own model; Presidio's other
    parameters are ignored)."""

    type: str


class Unsupported(OperatorConfig):
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
        raise ValueError(f"Invalid operator class: the operators are {', '.join(OPERATORS)}")


def _config_model(name: str) -> type[OperatorConfig]:
    """The request shape of operator ``name``: ``type`` and the fields of its ``params``."""
    op = get_operator(name)
    assert op.params is not None
    kind: Any = Literal[name]  # type: ignore[valid-type]
    bases: tuple[type[BaseModel], ...] = (OperatorConfig, op.params)
    model = create_model(op.__name__, __base__=bases, __doc__=op.__doc__, __module__=__name__, type=(kind, ...))
    return cast(type[OperatorConfig], model)


#: The operators of ``/anonymize`` by name (``GET /anonymizers``): the registered operators with ``params``.
OPERATORS = sorted(span_operator_names())
OPERATOR_MODELS: dict[str, type[OperatorConfig]] = {name: _config_model(name) for name in OPERATORS}
#: One instance of each (they hold no state of a request).
_INSTANCES: dict[str, Operator] = {name: get_operator(name)() for name in OPERATORS}


def _operator_name(value: Any) -> str | None:
    name = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    if not isinstance(name, str):
        return None
    return name if name in OPERATOR_MODELS else "type"  # the tag names the field refused


if TYPE_CHECKING:
    OperatorChoice = OperatorConfig
else:
    #: One operator's configuration, chosen by its ``type``.
    OperatorChoice = Annotated[
        reduce(
            or_,
            [Annotated[m, Tag(n)] for n, m in OPERATOR_MODELS.items()]
            + [Annotated[SkipJsonSchema[Unsupported], Tag("type")]],
        ),
        Discriminator(_operator_name),
    ]
DEFAULT_OPERATOR = OPERATOR_MODELS["replace"](type="replace")


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
    anonymizers: dict[Key, OperatorChoice] | None = Field(
        None, description="an operator by entity type; DEFAULT for the others (replace by <ENTITY_TYPE>)"
    )
    language: Language | None = Field(
        None, description="one of the service's languages (422 for another); the operators are the same in all"
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
                raise ValueError(f"Invalid input, result {i} is not a range of the text ({len(text)} characters)")
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


def anonymize(
    text: str,
    results: Iterable[RecognizerResultIn],
    operators: Mapping[str, OperatorConfig] | None,
    deadline: Deadline,
) -> dict[str, Any]:
    """Presidio's ``AnonymizerEngine.anonymize``: ``{"text", "items"}``, the
    results' conflicts resolved first (:func:`.conflicts.resolve`), each
    remaining span given to the operator of its entity type (``DEFAULT``, else
    ``replace``); the items in the order Presidio gives them (last in the text
    first), their offsets in the anonymized text."""
    configs = dict(operators or {})
    default = configs.get("DEFAULT") or DEFAULT_OPERATOR
    hits = resolve(text, (Hit(r.start, r.end, r.score, r.entity_type) for r in results), deadline)
    pieces: list[str] = []
    items: list[dict[str, Any]] = []
    pos = shift = 0  # the end of the last span in the text; how far the anonymized text has moved
    for i, hit in enumerate(hits):
        if i % CHECK_EVERY == 0:
            deadline.check()
        config = configs.get(hit.kind) or default
        new = _INSTANCES[config.type].operate(text[hit.start : hit.end], hit.kind, config)
        pieces += (text[pos : hit.start], new)
        start = hit.start + shift
        items.append(
            {
                "start": start,
                "end": start + len(new),
                "entity_type": hit.kind,
                "text": new,
                "operator": config.type,
                "score": hit.score,
            }
        )
        shift += len(new) - (hit.end - hit.start)
        pos = hit.end
    pieces.append(text[pos:])
    return {"text": "".join(pieces), "items": items[::-1]}
