"""Phone numbers through ``phonenumbers`` (Google's libphonenumber): candidates
found by one regular expression, validated for a list of regions (or any
country when written with ``+`` or ``00``); a shorter number announced by a
cue word ("call", "tel", "mobile"...) counts too.

Pure functions over a string returning :class:`~.rules.RuleMatch` objects
(``label`` CODE, ``name`` "phone") with exact character offsets.
"""

import re
from collections.abc import Sequence
from functools import lru_cache

import phonenumbers

from .rules import DATE_LIKE, RuleMatch, count_digits

# libphonenumber's metadata patterns are compiled once and kept (a few thousand,
# bounded by the metadata), instead of going through the re module's cache of 512
# patterns, which the pipeline's other patterns evict: validating one number
# against 37 regions otherwise recompiles dozens of them every document.
phonenumbers.enable_pattern_cache()

#: Regions whose national phone formats are recognised without a country code
#: (numbers with ``+`` or ``00`` are recognised for every country).
DEFAULT_PHONE_REGIONS: tuple[str, ...] = (
    "US",
    "GB",
    "IE",
    "DE",
    "AT",
    "CH",
    "FR",
    "BE",
    "NL",
    "LU",
    "IT",
    "ES",
    "PT",
    "PL",
    "CZ",
    "SK",
    "HU",
    "RO",
    "BG",
    "GR",
    "TR",
    "RU",
    "UA",
    "NO",
    "SE",
    "DK",
    "FI",
    "IN",
    "CN",
    "JP",
    "KR",
    "BR",
    "MX",
    "AU",
    "NZ",
    "ZA",
    "IL",
)

_SEP = r"[ \u00a0.\-]"
#: Groups of digits; a group after the first is 6 digits or the rest of its run of digits (5 or fewer).
#: With the separators optional, ``\d{1,6}`` let a run of digits split into groups in every way (a run
#: of 40 digits before a letter took a third of a second); greedily, the groups take as many digits as
#: they can, so that the candidates are the same.
_PHONE_CANDIDATE = re.compile(
    r"(?<![\w+/@.,:-])"
    r"(?:\+|00)?\(?\d{1,5}\)?(?:" + _SEP + r"?\(?(?:\d{6}|\d{1,5}(?!\d))\)?){1,7}"
    r"(?:[ \u00a0]?(?:x|ext\.?|extn\.?|extension|poste|Durchwahl|dw\.?)[ \u00a0]?\d{1,6})?"
    r"(?![\w@/-]|[.,:]\d)",  # not the date of a time ("2024-05-01 12:03")
    re.IGNORECASE,
)
_EXTENSION = re.compile(
    r"[ \u00a0]?(?:x|ext\.?|extn\.?|extension|poste|Durchwahl|dw\.?)[ \u00a0]?\d{1,6}$", re.IGNORECASE
)
_PHONE_CUE = re.compile(
    r"(?:\b(?:call(?:ed)?|phone[sd]?|tel|telephone|mobile|mob|cell|fax|ring|dial|text|sms|whatsapp|contact"
    r"|hotline|landline|tlf|telefon|telefono|teléfono|téléphone|tél|portable|handy|cep|gsm|numer(?:o|u)?)"
    r"\b\.?(?:\s*(?:no\.?|number|nr\.?|#))?\s*[:=]?\s*(?:on|at|is)?\s*)$",
    re.IGNORECASE,
)
_LOCAL_NUMBER = re.compile(r"^\d{3}[-.]\d{4}$")
_AMOUNT_LIKE = re.compile(r"^\d{1,3}([,.])\d{3}(?:\1\d{3})*(?:[.,]\d{1,2})?$")


@lru_cache(maxsize=4096)
def _valid_phone(candidate: str, regions: tuple[str, ...]) -> bool:
    """Valid for one of ``regions`` (or anywhere, with a country code). Cached: a
    number written again (a header, a signature, a long run of the same digits) is
    parsed for up to 37 regions once."""
    core = _EXTENSION.sub("", candidate)
    international = core.startswith(("+", "00"))
    for region in (None,) if international else regions:
        try:
            number = phonenumbers.parse(core if not core.startswith("00") else "+" + core[2:], region)
        except phonenumbers.NumberParseException:
            continue
        if phonenumbers.is_valid_number(number):
            return True
        if international and phonenumbers.is_possible_number(number):
            return True
    return False


def find_phones(text: str, regions: Sequence[str] = DEFAULT_PHONE_REGIONS) -> list[RuleMatch]:
    """Phone numbers valid in one of ``regions`` (or with a country code),
    extensions included; a shorter number announced by a cue ("call", "tel",
    "mobile"...) counts when libphonenumber finds it possible."""
    out = []
    region_key = tuple(regions)  # hashable, for the cache of _valid_phone
    for m in _PHONE_CANDIDATE.finditer(text):
        cand = m.group(0).rstrip(".-/ \u00a0")
        digits = count_digits(cand)
        if digits < 7 or digits > 17 or DATE_LIKE.match(cand) or _AMOUNT_LIKE.match(cand):
            continue
        start = m.start()
        cued = bool(_PHONE_CUE.search(text[max(0, start - 40) : start]))
        if _valid_phone(cand, region_key) or (cued and digits >= 7) or _LOCAL_NUMBER.match(cand):
            out.append(RuleMatch(start, start + len(cand), "CODE", "phone"))
    return out
