"""The OpenAPI description of ``textsan serve`` with the service's own limits
(:func:`describe_limits`): what the request models mark with
:data:`~.fields.LIMIT` gets the value of this service's settings."""

import re
from typing import Any

from fastapi import FastAPI

from ..extensions import TAB_LABELS
from ..render.operators import strategy_names
from .fields import LIMIT
from .settings import ServeSettings


def describe_limits(app: FastAPI, settings: ServeSettings) -> None:
    """The service's OpenAPI description with its own limits: the nodes marked
    :data:`~.fields.LIMIT` get ``maxLength`` (``--max-chars``), ``maxItems``
    (``--max-texts``), the languages of the service's pipelines as ``enum``, or the pattern
    of a strategy."""
    made = app.openapi
    names = "|".join(re.escape(n) for n in strategy_names())
    item = rf"(?:(?:{'|'.join(TAB_LABELS)})=)?(?:{names})"
    limits: dict[str, dict[str, Any]] = {
        "max_document_chars": {"maxLength": settings.max_document_chars},
        "max_texts": {"maxItems": settings.max_texts},
        "language": {"enum": list(app.state.pipelines)},
        "strategy": {"pattern": rf"^\s*(?:{item}\s*(?:,\s*{item}\s*)*)?$"},
    }

    def complete(node: Any) -> None:
        if isinstance(node, dict):
            name = node.pop(LIMIT, None)
            if name in limits:
                node.update(limits[name])
            for value in node.values():
                complete(value)
        elif isinstance(node, list):
            for value in node:
                complete(value)

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            complete(made())
        return app.openapi_schema or {}

    app.openapi = openapi  # type: ignore[method-assign]
