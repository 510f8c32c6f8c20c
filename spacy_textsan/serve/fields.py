"""What every request model of the service shares: strings that must be valid
Unicode, the limits its OpenAPI description takes from the service's settings,
the mask format and strategy fields, the error answers, and
:class:`InvalidField` (a value refused once the body is parsed).

Every request is read by a :class:`RequestModel` (or :class:`PresidioModel`):
types, ranges and lengths are pydantic's, numbers must be finite, and a string
anywhere in it that is not valid Unicode (a lone surrogate, ``"\\ud800"`` in
JSON) is refused, naming its field, before any handler sees it. An error
answer is one line naming the field (:func:`field_path`); it never quotes a
key or a value of the request.
"""

import re
import typing
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Annotated, Any

from fastapi.exceptions import RequestValidationError
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, Tag, field_validator

from ..render.mask_format import MAX_LENGTH as MASK_FORMAT_MAX
from ..render.mask_format import check_mask_format
from ..render.operators import StrategyError, strategy_settings

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
        for i, (key, item) in enumerate(value.items()):
            if unicode_error(key) is not None:
                return "a key is not valid Unicode (a lone surrogate)"
            why = unicode_error(item) if isinstance(item, str) else None
            if why is not None:
                return f"the value of key {i}: {why}"
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


def strategy_reason(e: StrategyError) -> str:
    """Why a strategy is refused, naming the item at fault without quoting it."""
    return f"item {e.item}: {e.reason}"


def _strategy(value: str) -> str:
    try:
        strategy_settings(value)
    except StrategyError as e:
        raise ValueError(strategy_reason(e)) from None
    return value


#: The reasons of :func:`~spacy_textsan.render.mask_format.check_mask_format` (by a phrase of each),
#: said without the parts of the format they quote.
MASK_FORMAT_REASONS = (
    ("is empty", "empty"),
    ("is longer than", f"longer than {MASK_FORMAT_MAX} characters"),
    ("control or unprintable", "control or unprintable characters"),
    ("is not a format", "not a format: a { or } without its pair"),
    ("is not a field", "a field other than {label} and {n}: only {label} and {n} may be used"),
    ("conversion or format spec", "a field with a conversion or format spec: write {label} and {n} alone"),
    ("digits and @", "digits and @ outside the fields would read as an identifier"),
    (
        "would read as an original; use upper-case",
        "a word that is not upper-case would read as an original: use upper-case words such as [REDACTED] "
        "or the fields {label} and {n}",
    ),
    ("has no field and no mark", "no field and no mark such as [ ] < > * #: it would read as an original"),
)


def _mask_format(value: str) -> str:
    try:
        return check_mask_format(value)
    except ValueError as e:
        why = next((reason for phrase, reason in MASK_FORMAT_REASONS if phrase in str(e)), "not a safe mask format")
        raise ValueError(why) from None


#: A document: at most the service's ``--max-chars`` characters (its OpenAPI ``maxLength``).
Document = Annotated[str, Field(json_schema_extra=_limit("max_document_chars"))]
#: A short string: a label, a name, an id, a term.
Name = Annotated[str, Field(max_length=MAX_NAME)]
#: A name that must not be empty.
Key = Annotated[str, Field(min_length=1, max_length=MAX_NAME)]
#: A language code: one of the service's pipelines' (its OpenAPI ``enum``; checked by ``routes.check_language``).
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
    AfterValidator(_mask_format),
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
    ...``) and never quotes a key or a value of the request."""

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


# -- the place of a refused value, never quoting the request ------------------------------------

#: A key of a mapping in a request (``sanitized``, ``anonymizers``, a report's ``risk``): named so.
KEY = "<key>"
#: A key that no model names (pydantic's ``extra_forbidden``): named so.
UNKNOWN_FIELD = "<unknown field>"
#: Where pydantic says a value came from.
ROOTS = ("body", "query", "path", "header", "cookie")
_UNION_MEMBER = re.compile(r"str|int|float|bool|none|.*\[.*")


def field_path(loc: Sequence[str | int], extra: bool = False, models: Iterable[type[BaseModel]] = ()) -> str:
    """pydantic's ``loc`` as a dotted path (``body.texts.1``) that never quotes
    the request: field names that ``models`` (and every :class:`RequestModel`)
    declare, list indexes, :data:`KEY` for a key of a mapping and
    :data:`UNKNOWN_FIELD` for a key no model names (``extra``: pydantic's
    ``extra_forbidden``, the last place of ``loc``); the members of unions
    (``str``, ``list[...]``) are left out."""
    names, mappings = _vocabulary(tuple(models) + _request_models(RequestModel))
    out: list[str] = []
    key_next = False  # the place after a mapping is one of its keys
    for i, part in enumerate(loc):
        if extra and i == len(loc) - 1:
            out.append(UNKNOWN_FIELD)
        elif isinstance(part, int):
            out.append(str(part))
        elif key_next:
            out.append(KEY)
        elif _UNION_MEMBER.fullmatch(part):
            continue
        elif part in names or part in ROOTS:
            out.append(part)
            key_next = part in mappings
            continue
        else:
            out.append(KEY)
        key_next = False
    return ".".join(out)


def _request_models(base: type[BaseModel]) -> tuple[type[BaseModel], ...]:
    found = []
    for sub in base.__subclasses__():
        found += [sub, *_request_models(sub)]
    return tuple(found)


@lru_cache(maxsize=8)
def _vocabulary(models: tuple[type[BaseModel], ...]) -> tuple[frozenset[str], frozenset[str]]:
    """The field names (and union tags) of ``models`` and the models they hold,
    and the names of the fields that are mappings."""
    names: set[str] = set()
    mappings: set[str] = set()
    seen: set[type] = set()

    def walk_model(model: type[BaseModel]) -> None:
        if model in seen:
            return
        seen.add(model)
        for name, info in model.model_fields.items():
            key = info.alias or name
            names.add(key)
            for meta in info.metadata:
                walk_type(meta, key)
            walk_type(info.annotation, key)

    def walk_type(tp: Any, field: str) -> None:
        if isinstance(tp, Tag):
            names.add(tp.tag)
            return
        if isinstance(tp, type) and issubclass(tp, BaseModel):
            walk_model(tp)
            return
        origin = typing.get_origin(tp)
        if origin is None:
            return
        args = typing.get_args(tp)
        if origin is Annotated:
            for meta in getattr(tp, "__metadata__", ()):
                walk_type(meta, field)
        elif origin in (dict, Mapping) or (isinstance(origin, type) and issubclass(origin, Mapping)):
            mappings.add(field)
        for arg in args:
            walk_type(arg, field)

    for model in models:
        walk_model(model)
    return frozenset(names), frozenset(mappings)
