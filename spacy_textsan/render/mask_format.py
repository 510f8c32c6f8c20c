"""The one check of a mask format (``mask_format``: CLI ``--mask-format``,
the generalizer's setting, the service's requests).

A mask format is literal text and the two fields ``{label}`` and ``{n}``,
nothing else: no attribute or index (``{label.__class__}``, ``{n[0]}``), no
conversion (``{n!r}``), no format spec (``{label:>1000000}``), no positional
field (``{}``, ``{0}``). Its literal text must not read as an identifier on
its own, or a mask would look like an original the sanitizer left in clear:
no digits, no ``@``, and letters only in upper-case words (``[REDACTED]``,
``<PII {n}>``), never a capitalised or lower-case word (``John Smith``,
``anon``), and a format without a field holds a mark that no word has
(``***``, ``[REDACTED]``, not ``JOHN SMITH``). At most :data:`MAX_LENGTH` characters.
"""

import re
from string import Formatter

#: the fields a mask format may hold
FIELDS = ("label", "n")
#: the longest mask format accepted
MAX_LENGTH = 64

_LETTERS = re.compile(r"[^\W\d_]+")


def check_mask_format(fmt: str) -> str:
    """``fmt`` when it is a safe mask format; :class:`ValueError` with a one-line
    reason otherwise (see the module doc)."""
    if not isinstance(fmt, str):
        raise ValueError(f"mask format must be a string, not {type(fmt).__name__}")
    shown = repr(fmt) if len(fmt) <= MAX_LENGTH else repr(fmt[:MAX_LENGTH]) + "..."
    if not fmt.strip():
        raise ValueError("mask format is empty")
    if len(fmt) > MAX_LENGTH:
        raise ValueError(f"mask format {shown} is longer than {MAX_LENGTH} characters")
    if not fmt.isprintable():
        raise ValueError(f"mask format {shown} holds control or unprintable characters")
    try:
        parts = list(Formatter().parse(fmt))
    except ValueError as e:
        raise ValueError(f"mask format {shown} is not a format: {e}") from None
    literal = []
    has_field = False
    for text, field, spec, conversion in parts:
        literal.append(text)
        if field is None:
            continue
        has_field = True
        if field not in FIELDS:
            raise ValueError(f"mask format {shown}: {{{field}}} is not a field; only {{label}} and {{n}} may be used")
        if conversion is not None or spec:
            raise ValueError(
                f"mask format {shown}: {{{field}}} with a conversion or format spec; write {{{field}}} alone"
            )
    text = "".join(literal)
    if any(c.isdigit() for c in text) or "@" in text:
        raise ValueError(f"mask format {shown}: digits and @ outside the fields would read as an identifier")
    for word in _LETTERS.findall(text):
        if not word.isupper():
            raise ValueError(
                f"mask format {shown}: the word {word!r} would read as an original; "
                "use upper-case words such as [REDACTED] or the fields {label} and {n}"
            )
    if not has_field and all(c.isalnum() or c.isspace() for c in text):
        raise ValueError(
            f"mask format {shown} has no field and no mark such as [ ] < > * #: it would read as an original"
        )
    return fmt
