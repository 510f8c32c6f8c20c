"""Regular expressions that come from a user, compiled by RE2 (google-re2):
matching takes time linear in the text whatever the pattern, so ``(a+)+$``
cannot pin a core. The one place where a user's pattern is compiled: the
rules of ``privacy_ner`` (``--pattern``, the ``patterns`` and
``allow_patterns`` settings) and the service's ad-hoc recognizers, deny lists
and regex allow lists.

RE2 has no backreferences and no lookarounds; a pattern that uses them, or
that is too large, is refused with RE2's reason (:func:`compile_pattern`).
Python's flags become RE2's options: ``re.IGNORECASE`` (2),
``re.MULTILINE`` (8), ``re.DOTALL`` (16), and ``re.UNICODE`` (32, what RE2
does anyway); any other flag is refused. In RE2, ``\\w``, ``\\d``, ``\\s`` and
``\\b`` are ASCII (``\\pL`` and ``\\pN`` are the letters and digits of every
script), and ``\\z`` is Python's ``\\Z``.
"""

import re
from itertools import combinations

import re2

#: Python's ``re`` flags a user may give (RE2 does what ``re.UNICODE`` asks anyway).
FLAGS = (re.IGNORECASE, re.MULTILINE, re.DOTALL, re.UNICODE)
#: Every flags value accepted: the sums of :data:`FLAGS`.
FLAG_VALUES = sorted({sum(c) for n in range(len(FLAGS) + 1) for c in combinations(FLAGS, n)})
#: The most memory RE2 may give one compiled pattern (its program and its DFA).
MAX_MEM = 8 << 20


def check_flags(flags: int) -> int:
    """``flags`` when RE2 has all of them (:data:`FLAGS`); ``ValueError`` otherwise."""
    if flags not in FLAG_VALUES:
        raise ValueError(
            f"{flags} holds a flag RE2 does not have: give a sum of re.IGNORECASE (2), re.MULTILINE (8), "
            "re.DOTALL (16) and re.UNICODE (32)"
        )
    return flags


def _options(flags: int) -> re2.Options:
    options = re2.Options()
    options.log_errors = False  # RE2 would print the pattern to stderr
    options.max_mem = MAX_MEM
    options.case_sensitive = not flags & re.IGNORECASE
    options.dot_nl = bool(flags & re.DOTALL)
    return options


def compile_pattern(pattern: str, flags: int = 0) -> re2._Regexp:
    """``pattern`` compiled by RE2 with Python's ``flags``; ``ValueError``
    with RE2's reason (one line, without the pattern) when RE2 cannot compile it."""
    if not isinstance(pattern, str) or not pattern:
        raise ValueError("a pattern must be a non-empty string")
    check_flags(flags)
    options = _options(flags)
    try:
        compiled = re2.compile(pattern, options)
        # RE2 has no option for re.MULTILINE: its inline flag (after the check above, so that
        # RE2's reason quotes the pattern as given)
        return re2.compile(f"(?m){pattern}", options) if flags & re.MULTILINE else compiled
    except re2.error as e:
        reason = e.args[0].decode("utf-8", "replace") if e.args and isinstance(e.args[0], bytes) else str(e)
        reason = " ".join(reason.split())
        if len(reason) > 120:
            reason = reason[:120] + "..."
        raise ValueError(
            f"RE2 cannot compile this pattern ({reason}); RE2 has no backreferences or lookarounds"
        ) from None
