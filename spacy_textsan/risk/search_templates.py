"""Templates of :class:`~.web_search.JsonHttpClient`: placeholders in URLs, params,
headers and bodies, and paths into the JSON answer. Pure functions."""

import urllib.parse
from typing import Any

#: Placeholders that templates of :class:`~.web_search.JsonHttpClient` may use.
PLACEHOLDERS = ("query", "api_key", "page", "page0", "offset", "start", "count")


def resolve_path(obj: Any, path: str) -> Any:
    """Follow ``path`` into parsed JSON: dotted (``data.items``, ``web.results.0``)
    or a JSON pointer (``/data/items``); ``""`` is the object itself.
    Raises KeyError / IndexError / TypeError when the path does not exist."""
    if not path:
        return obj
    if path.startswith("/"):
        parts = [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]
    else:
        parts = path.split(".")
    for part in parts:
        if isinstance(obj, dict):
            obj = obj[part]
        elif isinstance(obj, list):
            if not part.lstrip("-").isdigit():
                raise TypeError(f"cannot index a list with {part!r}")
            obj = obj[int(part)]
        else:
            raise TypeError(f"cannot index {type(obj).__name__} with {part!r}")
    return obj


def fill_template(template: str, values: dict[str, str], encode: bool = False) -> str:
    """Replace ``{name}`` for each known placeholder (nothing else, so literal
    braces survive); values are URL-encoded when ``encode``."""
    out = template
    for name, value in values.items():
        token = "{" + name + "}"
        if token in out:
            out = out.replace(token, urllib.parse.quote(value, safe="") if encode else value)
    return out


def fill_structure(obj: Any, values: dict[str, str]) -> Any:
    """:func:`fill_template` applied to every string of a JSON-like structure."""
    if isinstance(obj, str):
        return fill_template(obj, values)
    if isinstance(obj, dict):
        return {k: fill_structure(v, values) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [fill_structure(v, values) for v in obj]
    return obj


def uses_placeholder(obj: Any, name: str) -> bool:
    """Whether a string of the JSON-like ``obj`` contains ``{name}``."""
    token = "{" + name + "}"
    if isinstance(obj, str):
        return token in obj
    if isinstance(obj, dict):
        return any(uses_placeholder(v, name) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return any(uses_placeholder(v, name) for v in obj)
    return False
