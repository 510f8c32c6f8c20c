"""Direct identifiers through well-kept libraries: every detector of the
identifier layer of privacy_ner, run in a fixed order.

* :mod:`.network`: IPv6, MAC, scheme-less URLs, profile paths, handles, user
  names, vehicle plates, obfuscated e-mails, secrets after a ``password`` cue;
* :mod:`.addresses`: postal addresses of at least eight countries;
* :mod:`.standard_numbers`: checksummed standard numbers (``python-stdnum``:
  IBAN, payment cards, national identity, tax and health numbers), numbers
  announced by a context word, long numbers, mixed letter-digit codes;
* :mod:`.tables`: the cells of delimited records and ``Field: value`` lines;
* :mod:`.phones`: phone numbers (``phonenumbers``, Google's libphonenumber).

Every detector is pure over a string and returns :class:`~.rules.RuleMatch`
objects with exact character offsets.
"""

from collections.abc import Sequence

from .addresses import find_addresses
from .network import find_network_ids
from .phones import DEFAULT_PHONE_REGIONS, find_phones
from .rules import RuleMatch
from .standard_numbers import find_cued_codes, find_long_numbers, find_mixed_codes, find_standard_numbers
from .tables import find_table_cells


def find_identifiers(text: str, regions: Sequence[str] = DEFAULT_PHONE_REGIONS) -> list[RuleMatch]:
    """The candidates of every detector of the identifier layer, in a fixed order."""
    out: list[RuleMatch] = []
    for finder in (
        find_network_ids,
        find_addresses,
        find_standard_numbers,
        find_cued_codes,
        find_mixed_codes,
        find_long_numbers,
        find_table_cells,
    ):
        out.extend(finder(text))
    out.extend(find_phones(text, regions))
    return out
