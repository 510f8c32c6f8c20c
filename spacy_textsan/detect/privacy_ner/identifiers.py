"""Direct identifiers through well-kept libraries: every detector of the
identifier layer of privacy_ner, run in a fixed order.

* :mod:`.network`: IPv6, MAC, scheme-less URLs, profile paths, handles, user
  names, vehicle plates, obfuscated e-mails, secrets after a ``password`` cue;
* :mod:`.addresses`: postal addresses of at least eight countries;
* :mod:`.national_ids`: national identification numbers after their label,
  label and number as one span;
* :mod:`.standard_numbers`: checksummed standard numbers (``python-stdnum``:
  IBAN, payment cards, national identity, tax and health numbers), numbers
  announced by a context word, long numbers, mixed letter-digit codes;
* :mod:`.tables`: the cells of delimited records and ``Field: value`` lines;
* :mod:`.log_fields`: the values of personal keys in ``key=value``,
  ``key: value`` and JSON-like log lines;
* :mod:`.phones`: phone numbers (``phonenumbers``, Google's libphonenumber).

A national identification number or a checksummed standard number is read
whole: a match of another detector that holds part of one and reaches out of
it (a postcode read in ``Stockholm 811218`` of ``Stockholm 811218-9876``) is
dropped, so that no piece of the number is left beside it.

Every detector is pure over a string and returns :class:`~.rules.RuleMatch`
objects with exact character offsets.
"""

from bisect import bisect_left
from collections.abc import Sequence
from typing import Protocol, TypeVar

from .addresses import find_addresses
from .log_fields import find_log_fields
from .national_ids import NATIONAL_ID, find_national_ids
from .network import find_network_ids
from .phones import DEFAULT_PHONE_REGIONS, find_phones
from .rules import RuleMatch
from .standard_numbers import (
    STANDARD_NUMBERS,
    find_cued_codes,
    find_long_numbers,
    find_mixed_codes,
    find_standard_numbers,
)
from .tables import find_table_cells

#: The names of the matches read whole: national identification numbers and checksummed standard numbers.
WHOLE_NUMBERS = frozenset({NATIONAL_ID} | {name for name, _, _ in STANDARD_NUMBERS})


def find_identifiers(text: str, regions: Sequence[str] = DEFAULT_PHONE_REGIONS) -> list[RuleMatch]:
    """The candidates of every detector of the identifier layer, in a fixed order."""
    return find_identifiers_and_keys(text, regions)[0]


def find_identifiers_and_keys(
    text: str, regions: Sequence[str] = DEFAULT_PHONE_REGIONS
) -> tuple[list[RuleMatch], list[tuple[int, int]]]:
    """:func:`find_identifiers`, and the ``(start, end)`` of the keys of the
    personal values of log lines (:func:`.log_fields.find_log_fields`:
    ``user`` of ``user=bob``), which name no one themselves."""
    whole = find_national_ids(text) + find_standard_numbers(text)
    values, keys = find_log_fields(text)
    out: list[RuleMatch] = find_network_ids(text) + find_addresses(text) + whole
    for finder in (find_cued_codes, find_mixed_codes, find_long_numbers, find_table_cells):
        out.extend(finder(text))
    out.extend(values)
    out.extend(find_phones(text, regions))
    return without_pieces_of(whole, out), keys


class _Spanned(Protocol):
    """A match or a candidate: its offsets."""

    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...


_M = TypeVar("_M", bound=_Spanned)


def without_pieces_of(whole: Sequence[_M], matches: Sequence[_M]) -> list[_M]:
    """``matches`` less those, not of ``whole`` themselves, that hold part of a match of ``whole``
    and reach out of it (a match inside one or around one leaves no piece of it)."""
    if not whole:
        return list(matches)
    spans = sorted((m.start, m.end) for m in whole)
    starts = [s for s, _ in spans]
    longest = max(e - s for s, e in spans)

    def cuts(m: _M) -> bool:
        lo = bisect_left(starts, m.start - longest)
        hi = bisect_left(starts, m.end)
        # it overlaps a whole number and reaches out of it, without holding all of it
        return any(s < m.end and m.start < e and (m.start < s) != (m.end > e) for s, e in spans[lo:hi])

    ours = set(whole)
    return [m for m in matches if m in ours or not cuts(m)]
