"""What every request model of the service shares: strings that must be valid
Unicode, the limits its OpenAPI description takes from the service's settings,
the mask format and strategy fields, the error answers, and
:class:`InvalidField` (a value refused once the body is parsed).

Every request is read by a :class:`RequestModel` (or :class:`PresidioModel`):
types, ranges and lengths are pydantic's, numbers must be finite, and a string
anywhere in it that is not valid Unicode (a lone surrogate, ``"\\ud800"`` in
JSON) is refused, naming its field, before any handler sees it. An error
answer is one line naming the field; it never quotes a text of the request.
"""

from collections.abc import Mapping
from typing import Annotated, Any

from fastapi.exceptions import RequestValidationError
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator

from ..render.mask_format import MAX_LENGTH as MASK_FORMAT_MAX
from ..render.mask_format import check_mask_format
from ..render.operators import strategy_settings

#: The key of an OpenAPI schema node that the service's settings complete (see :func:`.openapi.describe_limits`).
LIMIT = "x-textsan-limit"
#: The longest short string of a request (a label, a name, an id, a term).
MAX_NAME = 200


def unicode_error(value: Any) -> str | None:
    """Why ``value`` (a string, a list of them, a mapping to them) cannot be
    written as UTF-8: the place of its first lone surrogate; None when it can.
    Mappings and lists inside are not looked into: they are models that check
    their own fields."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as e:
            return f"not valid Unicode: a lone surrogate at character {e.start}"
        return None
    if isinstance(value, Mapping):
        for key, item in value.items():
            if unicode_error(key) is not None:
                return "a key is not valid Unicode (a lone surrogate)"
            why = unicode_error(item) if isinstance(item, str) else None
            if why is not None:
                return f"item {str(key)[:40]!r}: {why}"
        return None
    if isinstance(value, list | tuple):
        for i, item in enumerate(value):
            why = unicode_error(item) if isinstance(item, str) else None
            if why is not None:
                return f"item {i}: {why}"
    return None


class RequestModel(BaseModel):
    """A request body of the review API: no field it does not name, the types
    its schema says (strict: ``0`` is not ``false``, ``"1"`` not ``1``), finite
    numbers, valid Unicode in every string (checked first, so that a lone
    surrogate is named as such whatever else the field must be)."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)

    @field_validator("*", mode="before")
    @classmethod
    def _valid_unicode(cls, value: Any) -> Any:
        why = unicode_error(value)
        if why is not None:
            raise ValueError(why)
        return value


class PresidioModel(RequestModel):
    """A request body in Presidio's shape: the fields Presidio has and textsan
    does not use are accepted and ignored (never read, never answered)."""

    model_config = ConfigDict(extra="ignore", strict=True, allow_inf_nan=False)


def _limit(name: str) -> dict[str, Any]:
    return {LIMIT: name}


def _strategy(value: str) -> str:
    try:
        strategy_settings(value)
    except ValueError as e:
        raise ValueError(str(e).removeprefix("strategy: ")) from None
    return value


#: A document: at most the service's ``--max-chars`` characters (its OpenAPI ``maxLength``).
Document = Annotated[str, Field(json_schema_extra=_limit("max_document_chars"))]
#: A short string: a label, a name, an id, a term.
Name = Annotated[str, Field(max_length=MAX_NAME)]
#: A name that must not be empty.
Key = Annotated[str, Field(min_length=1, max_length=MAX_NAME)]
#: A language code: the pipeline's (its OpenAPI ``enum``; checked by :func:`check_language`).
Language = Annotated[str, Field(max_length=20, json_schema_extra=_limit("language"))]
#: ``--mask-format``: literal text and the fields ``{label}`` and ``{n}`` (``check_mask_format``).
MaskFormat = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MASK_FORMAT_MAX,
        description='as --mask-format: "[{label} {n}]" or "***"; only the fields {label} and {n}, '
        "literal text in upper-case words and marks",
    ),
    AfterValidator(check_mask_format),
]
#: ``--strategy``: ``pseudonym,DATETIME=generalize`` (its OpenAPI ``pattern`` lists the strategies).
Strategy = Annotated[
    str,
    Field(
        max_length=1000,
        description="as --strategy: a default strategy and exceptions by label, pseudonym,DATETIME=generalize",
        json_schema_extra=_limit("strategy"),
    ),
    AfterValidator(_strategy),
]


class Error(BaseModel):
    """An error answer: one line that names the field at fault (``body.texts.1:
    ...``) and never quotes a text of the request."""

    detail: str


class PresidioError(BaseModel):
    """An error answer of the Presidio-shaped endpoints."""

    error: str


class InvalidField(ValueError):
    """A value of a request refused by a handler's own check (a pattern RE2
    cannot compile, a report line that is not a report row): answered 422
    like a refused field (:meth:`error`). ``loc``: the field in the body."""

    def __init__(self, loc: tuple[str | int, ...], message: str) -> None:
        super().__init__(loc, message)
        self.loc = loc
        self.message = message

    def error(self) -> RequestValidationError:
        return refused(self.loc, self.message)


def refused(loc: tuple[str | int, ...], message: str, where: str = "body") -> RequestValidationError:
    """A request refused by a handler's check, answered like pydantic's refusals (422, the field named)."""
    return RequestValidationError([{"type": "value_error", "loc": (where, *loc), "msg": message}])
