"""Direct identifiers through well-kept libraries: phone numbers
(``phonenumbers``, Google's libphonenumber), checksummed standard numbers
(``python-stdnum``: IBAN, payment cards, national identity, tax and health
numbers of many countries), numbers announced by a context word, network and
account identifiers (IPv6, MAC, scheme-less URLs, profile paths, handles,
user names, obfuscated e-mails, secrets after a ``password`` cue) and postal
addresses of at least eight countries.

Every function is pure over a string and returns :class:`~.rules.RuleMatch`
objects (``label`` CODE, ``name`` the detector) with exact character offsets.
Candidates are found by cheap regular expressions and then validated by the
libraries, so that a long document costs one regex pass plus a validation of
each candidate.
"""

import re
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache

import phonenumbers
from wordfreq import zipf_frequency

from .rules import RuleMatch, count_digits, text_words

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

# --------------------------------------------------------------------------- #
# Phone numbers
# --------------------------------------------------------------------------- #

_SEP = r"[ \u00a0.\-]"
_PHONE_CANDIDATE = re.compile(
    r"(?<![\w+/@.,:-])"
    r"(?:\+|00)?\(?\d{1,5}\)?(?:" + _SEP + r"?\(?\d{1,6}\)?){1,7}"
    r"(?:[ \u00a0]?(?:x|ext\.?|extn\.?|extension|poste|Durchwahl|dw\.?)[ \u00a0]?\d{1,6})?"
    r"(?![\w@/-]|[.,]\d)",
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
_DATE_LIKE = re.compile(
    r"^(?:\d{1,2}[./-]\d{1,2}[./-](?:\d{4}|\d{2})|\d{4}[./-]\d{1,2}[./-]\d{1,2}"
    r"|\d{4}(?:\s*[-–/]\s*\d{2,4})?|\d{1,2}[./]\d{4})$"
)
_AMOUNT_LIKE = re.compile(r"^\d{1,3}([,.])\d{3}(?:\1\d{3})*(?:[.,]\d{1,2})?$")


def _valid_phone(candidate: str, regions: Sequence[str]) -> bool:
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
    for m in _PHONE_CANDIDATE.finditer(text):
        cand = m.group(0).rstrip(".-/ \u00a0")
        digits = count_digits(cand)
        if digits < 7 or digits > 17 or _DATE_LIKE.match(cand) or _AMOUNT_LIKE.match(cand):
            continue
        start = m.start()
        cued = bool(_PHONE_CUE.search(text[max(0, start - 40) : start]))
        if _valid_phone(cand, regions) or (cued and digits >= 7) or _LOCAL_NUMBER.match(cand):
            out.append(RuleMatch(start, start + len(cand), "CODE", "phone"))
    return out


# --------------------------------------------------------------------------- #
# Standard numbers (python-stdnum) and numbers announced by a context word
# --------------------------------------------------------------------------- #


def _stdnum_validators() -> list[tuple[str, Callable[[str], bool], tuple[int, ...]]]:
    """``(name, is_valid, compact lengths)`` of the standard numbers tried on
    every candidate of a matching length. Only numbers with a checksum are
    here: a number without one is recognised through its context word."""
    from stdnum import iban, luhn
    from stdnum.be import nn as be_nn
    from stdnum.br import cpf
    from stdnum.ca import sin
    from stdnum.ch import ssn as ch_ssn
    from stdnum.cn import ric
    from stdnum.de import idnr
    from stdnum.dk import cpr
    from stdnum.es import dni, nie
    from stdnum.fi import hetu
    from stdnum.fr import nir
    from stdnum.gb import nhs
    from stdnum.in_ import aadhaar, pan
    from stdnum.it import codicefiscale
    from stdnum.nl import bsn
    from stdnum.no import fodselsnummer
    from stdnum.pl import pesel
    from stdnum.se import personnummer
    from stdnum.tr import tckimlik

    def card(number: str) -> bool:
        digits = re.sub(r"\D", "", number)
        return 13 <= len(digits) <= 19 and digits[0] in "3456" and luhn.is_valid(digits)

    return [
        ("iban", iban.is_valid, tuple(range(15, 35))),
        ("payment_card", card, tuple(range(13, 20))),
        ("nhs_number", nhs.is_valid, (10,)),
        ("aadhaar", aadhaar.is_valid, (12,)),
        ("in_pan", pan.is_valid, (10,)),
        ("fr_nir", nir.is_valid, (15,)),
        ("nl_bsn", bsn.is_valid, (9,)),
        ("pl_pesel", pesel.is_valid, (11,)),
        ("it_codice_fiscale", codicefiscale.is_valid, (16,)),
        ("es_dni", dni.is_valid, (9,)),
        ("es_nie", nie.is_valid, (9,)),
        ("tr_tckimlik", tckimlik.is_valid, (11,)),
        ("br_cpf", cpf.is_valid, (11,)),
        ("no_fodselsnummer", fodselsnummer.is_valid, (11,)),
        ("dk_cpr", cpr.is_valid, (10,)),
        ("se_personnummer", personnummer.is_valid, (10, 12)),
        ("fi_hetu", hetu.is_valid, (11,)),
        ("de_idnr", idnr.is_valid, (11,)),
        ("ca_sin", sin.is_valid, (9,)),
        ("ch_ssn", ch_ssn.is_valid, (13,)),
        ("cn_ric", ric.is_valid, (18,)),
        ("be_nn", be_nn.is_valid, (11,)),
    ]


@lru_cache(maxsize=1)
def stdnum_validators() -> list[tuple[str, Callable[[str], bool], tuple[int, ...]]]:
    return _stdnum_validators()


#: Runs of digit/letter groups separated by single spaces, dots, dashes or slashes.
_NUMBER_RUN = re.compile(
    r"\b(?<![@/.+-])(?=[A-Z0-9]*\d)[A-Z0-9]{1,19}(?:(?:[ \u00a0]|[.\-/](?=[A-Z0-9]))[A-Z0-9]{1,19}){0,8}"
    r"(?![\w@]|[.,]\d|-\w)"
)
_COMPACT = re.compile(r"[ \u00a0.\-/]")


def _best_standard_number(run: str) -> tuple[int, int, str] | None:
    """The longest stretch of whole groups of ``run`` that validates as a
    standard number: ``(start, end, name)`` within ``run``."""
    groups = [m.span() for m in re.finditer(r"[A-Z0-9]+", run)]
    best = None
    validators = stdnum_validators()
    for i in range(len(groups)):
        for j in range(len(groups), i, -1):
            s, e = groups[i][0], groups[j - 1][1]
            if best and e - s <= best[1] - best[0]:
                break
            compact = _COMPACT.sub("", run[s:e])
            if count_digits(compact) < 6:
                continue
            for name, is_valid, lengths in validators:
                if len(compact) in lengths and is_valid(compact):
                    best = (s, e, name)
                    break
    return best


def find_standard_numbers(text: str) -> list[RuleMatch]:
    """Numbers whose checksum validates as an IBAN, a payment card or a
    national identity, tax or health number (python-stdnum)."""
    out = []
    for m in _NUMBER_RUN.finditer(text):
        run = m.group(0)
        if count_digits(run) < 6:
            continue
        found = _best_standard_number(run)
        if found:
            out.append(RuleMatch(m.start() + found[0], m.start() + found[1], "CODE", found[2]))
    return out


#: Words that announce an identifying number or code, in several languages.
CODE_CUES: tuple[str, ...] = (
    "passport",
    "passport no",
    "id",
    "i.d.",
    "id card",
    "identity card",
    "identity number",
    "national id",
    "national identity number",
    "nin",
    "nhs",
    "nhs no",
    "ssn",
    "social security",
    "social security number",
    "national insurance",
    "ni number",
    "nino",
    "insurance number",
    "mrn",
    "medical record",
    "medical record number",
    "hospital number",
    "hospital no",
    "patient id",
    "patient number",
    "patient no",
    "record number",
    "chart",
    "account",
    "account number",
    "acct",
    "a/c",
    "sort code",
    "card",
    "card number",
    "licence",
    "license",
    "driving licence",
    "driver's license",
    "drivers license",
    "dl",
    "licence number",
    "license number",
    "case ref",
    "case reference",
    "case number",
    "case no",
    "reference",
    "ref",
    "our ref",
    "your ref",
    "policy",
    "policy number",
    "policy no",
    "claim",
    "claim number",
    "member",
    "membership number",
    "member id",
    "customer id",
    "customer number",
    "client id",
    "client number",
    "employee id",
    "employee number",
    "staff number",
    "staff no",
    "payroll number",
    "badge",
    "student id",
    "student number",
    "matriculation number",
    "tax id",
    "tin",
    "tax number",
    "taxpayer id",
    "vat",
    "vat number",
    "ein",
    "itin",
    "pesel",
    "bsn",
    "burgerservicenummer",
    "nir",
    "insee",
    "numéro de sécurité sociale",
    "aadhaar",
    "pan",
    "cpf",
    "rg",
    "curp",
    "rfc",
    "dni",
    "nie",
    "nif",
    "codice fiscale",
    "tckn",
    "tc kimlik",
    "t.c. kimlik",
    "kimlik no",
    "personnummer",
    "fødselsnummer",
    "personalausweis",
    "ausweisnummer",
    "steuer-id",
    "steueridentifikationsnummer",
    "sozialversicherungsnummer",
    "versichertennummer",
    "inn",
    "snils",
    "ticket",
    "booking",
    "booking reference",
    "reservation",
    "order",
    "order number",
    "invoice",
    "invoice number",
    "plate",
    "number plate",
    "licence plate",
    "license plate",
    "registration",
    "reg",
    "vin",
    "serial",
    "serial number",
    "imei",
    "iccid",
    "routing number",
    "aba",
    "swift",
    "bic",
    "iban",
    "pin",
    "badge number",
    "prisoner number",
    "inmate number",
    "file",
    "file number",
    "docket",
    "docket number",
    "no",
    "nr",
    "number",
)
_CUE_PATTERN = re.compile(
    r"(?<!\w)(?:"
    + "|".join(sorted((re.escape(c).replace(r"\ ", r"[ \u00a0]") for c in CODE_CUES), key=len, reverse=True))
    + r")"
    r"\.?(?:[ \u00a0]+(?:no\.?|nr\.?|number|num\.?|#|id))?[ \u00a0]*(?:[:#=]|is|n[°º]|№)?[ \u00a0]*",
    re.IGNORECASE,
)
_CUED_VALUE = re.compile(
    r"(?=[A-Za-z0-9./ \u00a0-]*\d)[A-Z0-9][A-Za-z0-9]*(?:(?:[ \u00a0]|[.\-/](?=[A-Za-z0-9]))[A-Z0-9][A-Za-z0-9]*){0,6}"
    r"(?![\w@]|[.,]\d)"
)
_WORDISH = re.compile(r"^[A-Z][a-z]+$")


def find_cued_codes(text: str, min_digits: int = 4) -> list[RuleMatch]:
    """A number or code right after a context word (``Passport KX4410983``,
    ``NHS number 485 777 3456``, ``MRN 0044521``): a CODE whether or not its
    checksum validates. Groups that are ordinary words end the code."""
    out = []
    for cue in _CUE_PATTERN.finditer(text):
        m = _CUED_VALUE.match(text, cue.end())
        if not m:
            continue
        value = m.group(0)
        # keep whole groups while they hold digits or are short upper-case letter groups
        keep_end = 0
        for g in re.finditer(r"[A-Za-z0-9]+", value):
            word = g.group(0)
            if _WORDISH.match(word) or (word.isalpha() and not word.isupper()) or (word.isalpha() and len(word) > 4):
                break
            keep_end = g.end()
        value = value[:keep_end]
        digits = count_digits(value)
        if (digits >= min_digits or (digits >= 2 and digits < len(_COMPACT.sub("", value)))) and not _DATE_LIKE.match(
            value
        ):
            out.append(RuleMatch(m.start(), m.start() + len(value), "CODE", "cued_code"))
    return out


#: Long digit runs (8+ digits in groups, not amounts): account, reference and identity numbers.
_LONG_NUMBER = re.compile(r"(?<![\w.,/-])\d{2,}(?:[ \u00a0-]\d{2,}){0,6}(?![\w/-]|[.,]\d)")
#: A number of 5-7 digits on its own (postcodes, reference and account numbers), or "NN-NNN" (Polish postcodes).
_BARE_NUMBER = re.compile(r"(?<![\w.,/:+-])(?:\d{5,7}|\d{2}-\d{3})(?![\w/:-]|[.,]\d|\s*(?:%|per ?cent))")
_YEAR_GROUPS = re.compile(r"^(?:(?:1[89]|20)\d\d[ -]?)+$")


def find_long_numbers(text: str, min_digits: int = 8) -> list[RuleMatch]:
    """Digit runs of ``min_digits`` or more digits in groups (not amounts,
    years or dates), and numbers of 5-7 digits standing alone."""
    out = [RuleMatch(m.start(), m.end(), "CODE", "bare_number") for m in _BARE_NUMBER.finditer(text)]
    for m in _LONG_NUMBER.finditer(text):
        value = m.group(0)
        if count_digits(value) >= min_digits and not _YEAR_GROUPS.match(value) and not _DATE_LIKE.match(value):
            out.append(RuleMatch(m.start(), m.end(), "CODE", "long_number"))
    return out


#: Tokens that mix capital letters and digits (``KX4410983``, ``AB123456C``).
_MIXED_CODE = re.compile(r"(?<![\w@/.-])(?=[A-Z0-9]*\d[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{6,20}(?![\w@/-])")


def find_mixed_codes(text: str, min_digits: int = 4) -> list[RuleMatch]:
    return [
        RuleMatch(m.start(), m.end(), "CODE", "mixed_code")
        for m in _MIXED_CODE.finditer(text)
        if count_digits(m.group(0)) >= min_digits
    ]


# --------------------------------------------------------------------------- #
# Network and account identifiers
# --------------------------------------------------------------------------- #

_TLDS = (
    "com|org|net|edu|gov|mil|int|info|biz|io|co|me|app|dev|ai|uk|us|ca|au|nz|ie|de|fr|nl|be|lu|ch|at|it|es|pt|pl|"
    "cz|sk|hu|ro|bg|gr|tr|ru|ua|by|no|se|dk|fi|is|ee|lv|lt|in|cn|jp|kr|br|mx|ar|cl|za|il|eu|online|site|xyz|tv|ly"
)
#: ``needs``: substrings (lower case) one of which a text must hold for a pattern to run at all.
_SECRET_NEEDS = ("pass", "pw", "pin", "secret", "key", "token", "code", "cvv", "cvc", "şifre", "contraseña")
_USER_NEEDS = (
    "user",
    "login",
    "log-in",
    "account",
    "name",
    "handle",
    "alias",
    "profile",
    "skype",
    "twitter",
    "instagram",
    "telegram",
    "github",
    "benutzer",
    "usuario",
    "gamertag",
)
NETWORK_PATTERNS: list[dict] = [
    {
        "name": "ipv6",
        "pattern": r"(?<![\w:])(?:(?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}"
        r"|(?:[0-9A-Fa-f]{1,4}:){1,7}:(?:[0-9A-Fa-f]{1,4}(?::[0-9A-Fa-f]{1,4}){0,6})?"
        r"|::(?:[0-9A-Fa-f]{1,4}:){0,6}[0-9A-Fa-f]{1,4})(?:%\w+)?(?![\w:])",
    },
    {
        "name": "mac_address",
        "needs": (":", "-", "."),
        "pattern": r"(?<![\w:-])(?:[0-9A-Fa-f]{2}([:-])){5}[0-9A-Fa-f]{2}(?![\w:-])|(?<![\w.])(?:[0-9A-Fa-f]{4}\.){2}[0-9A-Fa-f]{4}(?![\w.])",
    },
    # a domain with a path or a known TLD, without a scheme: linkedin.com/in/peder-h, firm.no
    {
        "name": "url",
        "pattern": r"(?<![\w@.\-/])(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:" + _TLDS + r")"
        r"(?::\d{2,5})?(?:/[^\s<>\"'()]*[^\s<>\"'().,;:!?])?(?![\w@-])",
        "flags": "i",
    },
    # social-profile paths and handles: u/name, r/name is a community, @name (not an e-mail)
    {"name": "handle", "pattern": r"(?<![\w@./])@[A-Za-z0-9_](?:[A-Za-z0-9_.]{0,28}[A-Za-z0-9_])?(?![\w@])"},
    {"name": "profile_path", "pattern": r"(?<![\w/])(?:u|user|users|in|profile)/[A-Za-z0-9_][\w.-]{1,38}\w"},
    {
        "name": "user_name",
        "needs": _USER_NEEDS,
        "group": 1,
        "flags": "i",
        "pattern": r"\b(?:user(?:[ _-]?name)?|user[ _-]?id|login|log-in|account name|screen name|nickname|handle|gamertag"
        r"|skype|twitter|instagram|telegram|github|nom d'utilisateur|benutzername|usuario)"
        r"[ \t]*(?:[:=\t]|\bis\b)[ \t]*[\"'“]?([\w.@+-]{2,40}[\w])",
    },
    # "your account on the staff portal is aklore": an account named after a few words, in lower case or with digits
    {
        "name": "user_name",
        "needs": _USER_NEEDS,
        "group": 1,
        "pattern": r"\b(?i:account|login|user(?:name)?|profile|handle|alias)\b[^.\n:=]{0,40}?\b(?:is|=|:)[ \t]+[\"'“]?"
        r"((?=[\w.-]*(?:[\d_]|[a-z]))(?!(?:the|a|an|not|now|no|active|inactive|locked|closed|open|suspended|ready"
        r"|blocked|disabled|enabled|valid|invalid|pending|still|being|also|in|on|at|under|with|your|my|his|her)\b)"
        r"[a-z0-9][\w.-]{1,38}[a-z0-9_])(?=[\s)\"'”,;]|[.!?](?:\s|$)|$)",
    },
    # vehicle plates of other countries (UK and TR are rules of privacy_ner): FR/IT "AB-123-CD", ES "1234 BCD",
    # DE "B-AB 1234", NL "12-ABC-3"; any plate after "plate"/"registration" is a cued code
    {
        "name": "licence_plate",
        "pattern": r"\b(?:[A-Z]{2}-\d{3}-[A-Z]{2}|[A-Z]{2} \d{3} [A-Z]{2}|\d{4}[ -]?[BCDFGHJKLMNPRSTVWXYZ]{3}"
        r"|[A-ZÄÖÜ]{1,3}-[A-Z]{1,2} ?\d{1,4}[EH]?|\d{1,2}-[A-Z]{2,3}-\d{1,2}|[A-Z]{2}-\d{2,3}-[A-Z]{1,2}"
        r"|[A-Z]{1,3}-\d{2,3}-[A-Z]{2}|[A-Z]{2}\d{3}[A-Z]{2}|\d{2}-[A-Z]{2}-[A-Z]{2}|[A-Z]{2}-[A-Z]{2}-\d{1,2}"
        r"|\d-[A-Z]{3}-\d{2}|[A-Z]-\d{3}-[A-Z]{2})\b"
        r"|[\u4e00-\u9fff][A-Z][-·]?[A-Z0-9]{5}\b|(?<!\d)\d{2,3}[\uac00-\ud7a3]\d{4}(?!\d)"
        r"|(?<!\w)[А-Яа-я]{1,2}\d{3,4}[А-Яа-я]{0,2} ?\d{2,3}(?!\w)",
    },
    # obfuscated e-mail addresses: peder at mail dot no, peder(at)firm.no, peder [at] firm [dot] no
    {
        "name": "obfuscated_email",
        "needs": ("(at)", "[at]", "{at}", "<at>", " at ", " dot "),
        "flags": "i",
        "pattern": r"\b[\w.+-]+\s*(?:\(at\)|\[at\]|\{at\}|<at>|\s+at\s+|\s+AT\s+)\s*[\w-]+"
        r"(?:\s*(?:\(dot\)|\[dot\]|\{dot\}|<dot>|\s+dot\s+|\.)\s*[\w-]+)*"
        r"\s*(?:\(dot\)|\[dot\]|\{dot\}|<dot>|\s+dot\s+|\.)\s*(?:" + _TLDS + r")\b",
    },
    # secrets after a cue: password: Tr0ub4dor&3, PIN 4821
    {
        "name": "secret",
        "needs": _SECRET_NEEDS,
        "group": 1,
        "flags": "i",
        "pattern": r"\b(?:password|passwd|pwd|pw|passcode|pass phrase|passphrase|pin(?: code)?|mot de passe|passwort|contraseña"
        r"|şifre|api[ _-]?key|secret(?: key)?|token|access code|security code|cvv|cvc|wi-?fi key|network key"
        r"|wi-?fi password|door code|alarm code|entry code)\b(?:\s*\([^)\n]{1,30}\))?"
        r"(?:\s*[:=]\s*|\s+(?:is|was|=)\s+)[\"'“]?([^\s\"'”]{3,64}?)[\"'”]?(?=[\s,;)]|[.!?](?:\s|$)|$)",
    },
    {
        "name": "secret",
        "needs": _SECRET_NEEDS,
        "group": 1,
        "flags": "i",
        "pattern": r"\b(?:PIN|pin code|passcode|CVV|CVC)\s+(\d{3,8})\b",
    },
]


def _is_obfuscated_email_candidate(text: str) -> bool:
    """The "at" of an obfuscated e-mail is bracketed or a word between single
    spaces (the pattern, case-insensitive and over any whitespace, finds more)."""
    return bool(re.search(r"\(at\)|\[at\]|\{at\}|<at>| at | AT ", text))


# --------------------------------------------------------------------------- #
# Postal addresses
# --------------------------------------------------------------------------- #

_CAP = r"[A-ZÀ-ÖØ-ÞŁŚŻŹĆŃÓĘĄİŞĞŐŰ][\w'’-]*"
_HOUSE = r"\d{1,5}(?:[ -]?[A-Za-z]\b)?(?:[-–/]\d{1,5}[A-Za-z]?)?"
#: Street types written after the name (English), hand-listed; the street
#: suffixes of Faker's English address providers (USPS and Royal Mail lists) join them.
_EN_STREET_TYPES = (
    "Street St Road Rd Avenue Ave Av Lane Ln Drive Dr Boulevard Blvd Court Ct Place Pl Way Close Crescent Cres "
    "Terrace Terr Square Sq Gardens Gdns Parkway Pkwy Highway Hwy Hill Row Mews Grove Walk Circle Cir Trail Trl "
    "Loop Path Pike Plaza Park View Rise Green Vale Wharf Quay Parade Broadway Alley Causeway Crossing Estate "
    "Heights Ridge Motorway Arcade Bank Chase Croft Cross Dene Drove End Field Gate Holt Lea Mead Nook Ride Side "
    "Strand Wynd Approach Esplanade Promenade Embankment"
).split()
#: Street types written before the name (Romance languages, Polish).
_PREFIX_STREET_TYPES = (
    "rue avenue av. boulevard bd place allée allee chemin impasse quai route cours passage square voie rond-point "
    "faubourg sentier villa cité cite résidence hameau lieu-dit "
    "Via Viale V.le Piazza P.zza Piazzale Corso C.so Largo Vicolo Strada Contrada Borgo Lungomare Lungotevere "
    "Salita Rotonda Galleria Stretto Canale Incrocio "
    "Calle Avenida Avda. Plaza Pza. Paseo Camino Carrera Ronda Travesía Carretera Glorieta Rambla Pasaje Callejón "
    "Urbanización Rua R. Praça Praca Travessa Estrada Alameda C/ "
    "ul. ulica al. aleja pl. plac os. osiedle"
).split()
#: Street words that end a compound name (German, Dutch, Scandinavian): Hauptstraße, Keizersgracht.
_COMPOUND_STREET_TYPES = (
    "straße strasse str. weg gasse allee platz ring damm ufer chaussee steig pfad markt straat laan plein gracht "
    "kade singel dijk pad hof steeg plantsoen dreef baan boulevard lei gade gata gatan vej vei veien veg vegen "
    "vägen torget torv allé stræde stigen gränd"
).split()


def _faker_street_words() -> tuple[list[str], list[str], list[str]]:
    """Street types of Faker's address providers (real lists: USPS, Royal Mail,
    Italian DUG...), added to the hand-written ones above."""
    import importlib

    english, prefixes, compounds = [], [], []
    for locale, kind, attr in (
        ("en_US", english, "street_suffixes"),
        ("en_GB", english, "street_suffixes"),
        ("en_AU", english, "street_suffixes"),
        ("it_IT", prefixes, "street_suffixes"),
        ("fr_FR", prefixes, "street_prefixes"),
        ("es_ES", prefixes, "street_prefixes"),
        ("pt_BR", prefixes, "street_prefixes"),
        ("pt_PT", prefixes, "street_prefixes"),
        ("nl_NL", compounds, "street_suffixes"),
        ("nl_BE", compounds, "street_suffixes"),
        ("no_NO", compounds, "street_suffixes"),
        ("sv_SE", compounds, "street_suffixes"),
        ("da_DK", compounds, "street_suffixes"),
    ):
        try:
            provider = importlib.import_module(f"faker.providers.address.{locale}").Provider
        except ImportError:  # pragma: no cover - an older Faker without the locale
            continue
        kind.extend(w.strip() for w in getattr(provider, attr, ()) if w.strip() and w.strip() != "Street")
    return english, prefixes, compounds


def _first_words(street_words: Iterable[str]) -> list[str]:
    """The first word of each street word as :func:`.rules.text_words` reads it ("v.le" -> "v", "C/" -> "c")."""
    return [re.findall(r"\w+", w.lower())[0] for w in street_words if re.search(r"\w", w)]


def _alternation(words: Iterable[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(set(words), key=lambda w: (-len(w), w)))


@lru_cache(maxsize=1)
def address_patterns() -> list[dict]:
    english, prefixes, compounds = _faker_street_words()
    en_types = _alternation(_EN_STREET_TYPES + english)
    core_prefix_types = _alternation(w for w in _PREFIX_STREET_TYPES if len(w.rstrip(".")) > 1)
    prefix_types = _alternation(w for w in _PREFIX_STREET_TYPES + prefixes if len(w.rstrip(".")) > 1)
    compound_types = _alternation(_COMPOUND_STREET_TYPES + compounds)
    particles = r"(?:de la|de l['’]|de los|de las|del|des|du|de|d['’]|di|da|do|dos|das|della|dei|degli|delle|dello|la|le|les|l['’]|y)"
    unit = (
        r"(?:,?\s*(?:Apt\.?|Apartment|Appartamento|Suite|Ste\.?|Unit|Flat|Studio|Floor|Fl\.?|Piano|Piso|Puerta|Room"
        r"|Rm\.?|#)\s*[\w@]{1,6})?"
    )
    return [
        # UK/US/IE/AU: "14 Baker Street", "221B Baker St.", "0487 Hopkins Mount Suite 853", "Flat 3, 12 High Road"
        {
            "name": "street_en",
            "pattern": rf"(?:(?:Flat|Apartment|Apt\.?|Unit|Suite|Studio)\s*\w{{1,5}},?\s+(?:{_HOUSE}\s+)?|\b{_HOUSE}\s+)"
            rf"(?:(?:{_CAP}|[NSEW]{{1,2}}|[^\W\d_A-Za-z\u00c0-\u024f]+)\s+){{0,3}}(?:{en_types}|street|road|avenue|lane)\b\.?{unit}",
        },
        {
            "name": "po_box",
            "flags": "i",
            "pattern": r"\b(?:P\.?\s?O\.?\s?Box|Postfach|Boîte postale|BP|Apartado)\s*\d{1,6}\b",
        },
        # FR/IT/ES/PT/PL: "14 rue des Lilas", "Via Roma 12", "Calle Mayor, 5", "ul. Długa 5/7"
        {
            "name": "street_prefix",
            "requires": _first_words(_PREFIX_STREET_TYPES + prefixes),
            "pattern": rf"(?:\b\d{{1,4}}(?:\s?(?:bis|ter|quater|[A-D]))?,?\s+)?(?<![\w.])(?i:{prefix_types})\s+(?:{particles}\s*)?"
            rf"{_CAP}(?:[ -](?:{particles}|{_CAP}|[IVX]+)){{0,4}}"
            rf",?\s*(?:n[ºo°]\.?\s*|n\.\s*|núm\.\s*)?\d{{1,4}}(?:\s?/\s?[A-Za-z0-9]{{1,3}}|[A-Za-z]\b)?"
            rf"(?:,?\s*\d{{1,2}}[ºª°]\s*[A-Za-z]?)?(?:\s+m\.\s*\d{{1,4}})?{unit}",
        },
        # the same with the number first or without one, for the usual street words only: "14 rue des Lilas"
        {
            "name": "street_prefix_nonumber",
            "requires": _first_words(_PREFIX_STREET_TYPES),
            "pattern": rf"(?:\b\d{{1,4}}(?:\s?(?:bis|ter|quater|[A-D]))?,?\s+)?(?<![\w.])(?i:{core_prefix_types})\s+(?:{particles}\s*)?"
            rf"{_CAP}(?:[ -](?:{particles}|{_CAP}|[IVX]+)){{0,4}}",
        },
        # DE/AT/CH/NL/DK/NO/SE: "Hauptstraße 5", "Magnus-Kramer-Platz 1", "Keizersgracht 123", "Storgata 12 B"
        {
            "name": "street_compound",
            "endings": [w.lower().rstrip(".") for w in _COMPOUND_STREET_TYPES + compounds],
            "pattern": rf"\b[A-ZÄÖÜÅÆØ][\wäöüßåæøé-]*(?i:{compound_types})\s+\d{{1,5}}(?:\s?[a-zA-Z]\b)?(?:[-/]\d{{1,4}}[a-z]?)?",
        },
        {
            "name": "street_compound_words",
            "pattern": r"\b(?:Am|An der|Auf der|Im|In der|Zum|Zur|Unter den)\s+[A-ZÄÖÜ][\wäöüß-]+\s+\d{1,4}[a-z]?\b",
        },
        # postcodes (with their city or state)
        {
            "name": "postcode_uk",
            "pattern": r"(?:\b"
            + _CAP
            + r",?\s+)?\b(?:GIR ?0AA|[A-PR-UWYZ](?:\d[\dA-HJKPS-UW]?|[A-HK-Y]\d[\dABEHMNPRV-Y]?) ?"
            r"\d[ABD-HJLNP-UW-Z]{2})\b",
        },
        {
            "name": "postcode_us",
            "pattern": r"\b(?:" + _CAP + r"\s+){0,2}" + _CAP + r",?\s+(?:" + _US_STATES + r")\s+\d{5}(?:-\d{4})?\b",
        },
        {
            "name": "postcode_nl",
            "pattern": r"\b[1-9]\d{3}\s?(?!SA|SD|SS)[A-Z]{2}\b(?:\s+" + _CAP + r"(?:\s+" + _CAP + r")?)?",
        },
        {"name": "postcode_pl", "pattern": r"\b\d{2}-\d{3}\s+" + _CAP + r"(?:[ -]" + _CAP + r")?"},
        {
            "name": "postcode_city",
            "pattern": r"(?<![\w/.,-])(?:(?:[A-Z]{1,2}|CH|FR|DE|IT|ES|AT|F|D|I|E|A)-)?(?:\d{5}|(?!(?:1[6-9]|20)\d\d)\d{4}),?\s+"
            r"(?!(?:Mr|Mrs|Ms|Dr|Mme|Herr|Frau|Sr|Sra|Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?"
            r"|July?|Aug(?:ust)?|Sep(?:t|tember)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\b)"
            + _CAP
            + r"(?:(?:[ -](?:am|an|der|de|la|le|sur|sous|en|del|di|im|in|bei)?[ -]?)"
            + _CAP
            + r"){0,2}"
            r"(?:\s+(?:Cedex|CEDEX)(?:\s+\d{1,2})?)?(?:\s+\([A-Z]{2}\))?",
        },
        {
            "name": "postcode_br",
            "pattern": r"\b\d{5}-\d{3}\b(?:\s+"
            + _CAP
            + r"(?:\s+(?:do|da|de|dos|das|"
            + _CAP
            + r")){0,4}(?:\s*/\s*[A-Z]{2})?)?",
        },
        {"name": "postcode_in", "pattern": _CAP + r"(?:[ -]" + _CAP + r")?[ -]\d{6}\b"},
        {
            "name": "city_postcode",
            "pattern": r"(?m:^)[ \t]*(?!(?:Mr|Mrs|Ms|Dr|Prof|Sir|Dear)\b)"
            + _CAP
            + r"(?:[ -](?:de|del|la|le|sur|am|an)?[ -]?"
            + _CAP
            + r"){0,3},[ \t]*\d{4,5}(?:[ \t]*\([A-Z]{2}\))?[ \t]*(?m:$)",
        },
        # a postcode given in the line after a question for it (a chat: "date of birth and postcode?" -> "..., 7946")
        {
            "name": "postcode_answer",
            "group": 1,
            "flags": "i",
            "pattern": r"\b(?:post ?code|postal code|zip(?: ?code)?)\b[^\n]{0,80}\n[^\n]{0,80}(?<![\d/.:-])(\d{4,6})(?![\d/.:-])",
        },
        # a postcode announced by its name: "ZIP 90210", "postcode: 0150", "PLZ 10115"
        {
            "name": "postcode_cued",
            "group": 1,
            "flags": "i",
            "pattern": r"\b(?:post ?code|postal code|zip(?: ?code)?|PLZ|code postal|CAP|C\.P\.|CEP|kod pocztowy)\b\s*[:#]?\s*"
            r"((?=[A-Z0-9 -]*\d)[A-Z0-9]{2,5}(?:[ -][A-Z0-9]{2,4})?)\b",
        },
    ]


_US_STATES = (
    "AL|AK|AZ|AR|CA|CO|CT|DE|DC|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|NY|NC|ND|OH|OK|"
    "OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY|PR|AA|AE|AP|AS|GU|MP|VI|FM|MH|PW"
)
_POSTCODES = frozenset(
    {
        "postcode_uk",
        "postcode_us",
        "postcode_nl",
        "postcode_pl",
        "postcode_city",
        "city_postcode",
        "postcode_br",
        "postcode_in",
    }
)
#: Parts of one address separated by a comma or a line break join into one span.
_ADDRESS_GLUE = re.compile(r"^[ \t]*(?:,[ \t]*|\r?\n[ \t]*|,?[ \t]*\r?\n[ \t]*)$")
#: A short line of an address block above a postcode line: no sentence, at most six words.
_BLOCK_LINE = re.compile(r"^[ \t]*(?:[\w][\w'’.,/#º°-]*[ \t]+){0,5}[\w][\w'’.,/#º°-]*[ \t]*$")


#: A compiled pattern: name, regex, group, and its prefilters (see :func:`_finditer`).
Compiled = tuple[str, "re.Pattern[str]", int, frozenset[str], tuple[str, ...], tuple[str, ...]]


def _compiled(patterns: Iterable[dict]) -> list[Compiled]:
    return [
        (
            p["name"],
            re.compile(p["pattern"], re.IGNORECASE if "i" in p.get("flags", "") else 0),
            int(p.get("group", 0)),
            frozenset(p.get("requires", ())),
            tuple(p.get("needs", ())),
            tuple(sorted(set(p.get("endings", ())))),
        )
        for p in patterns
    ]


_NETWORK = _compiled(NETWORK_PATTERNS)


@lru_cache(maxsize=1)
def _address_compiled() -> list[Compiled]:
    # the parts of an address pattern stay on one line (lines join in find_addresses)
    return _compiled({**p, "pattern": p["pattern"].replace(r"\s", r"[ \t\u00a0]")} for p in address_patterns())


def _finditer(text: str, compiled: Sequence[Compiled], label: str = "CODE") -> Iterable[RuleMatch]:
    """The matches of each pattern whose prefilters pass: one of its ``requires``
    words is a word of the text ("rue" in "true" is none), one of its ``needs``
    substrings is in the text, a word of the text ends with one of its ``endings``
    ("Hauptstraße", "Keizersgracht"). Costly patterns run only where they can match."""
    lowered: str | None = None
    words: set[str] | None = None
    for name, regex, group, requires, needs, endings in compiled:
        if requires or endings:
            words = words if words is not None else text_words(text)
            if requires and words.isdisjoint(requires):
                continue
            if endings and not any(w.endswith(endings) for w in words):
                continue
        if needs:
            lowered = lowered if lowered is not None else text.lower()
            if not any(n in lowered for n in needs):
                continue
        for m in regex.finditer(text):
            start, end = m.span(group)
            if end > start:
                yield RuleMatch(start, end, label, name)


def find_network_ids(text: str) -> list[RuleMatch]:
    """IPv6, MAC, scheme-less URLs, handles, profile paths, user names,
    obfuscated e-mails and secrets after a cue."""
    out = []
    for m in _finditer(text, _NETWORK):
        value = text[m.start : m.end]
        if m.name == "ipv6" and (value.count(":") < 2 or not re.search(r"[0-9A-Fa-f]{2}", value)):
            continue
        if m.name == "url" and not _plausible_domain(value):
            continue
        if m.name == "obfuscated_email" and not _is_obfuscated_email_candidate(value):
            continue
        if m.name == "secret" and (
            value.lower() in _SECRET_STOPWORDS
            or (value.isalpha() and value.islower() and zipf_frequency(value, "en") >= 3.0)
        ):
            continue  # "a PIN was issued": an English word
        if m.name == "user_name" and value.isalpha() and value.islower() and zipf_frequency(value, "en") >= 2.5:
            continue  # "the account of the events is credible": an English word, not an account name
        out.append(m)
    return out


_SECRET_STOPWORDS = frozenset(
    "the a an and or was is has had his her their to for of in on at with reset changed expired protected "
    "required number code".split()
)


def _plausible_domain(value: str) -> bool:
    """``e.g.``, ``i.e.``, ``No.``: one-letter labels and abbreviations are not domains."""
    host = value.split("/", 1)[0].split(":", 1)[0]
    labels = host.split(".")
    if len(labels) < 2 or any(not label for label in labels):
        return False
    if "/" not in value and len(labels[-2]) < 2:
        return False
    # "Mr.Smith" is not a domain; a domain is lower case or has a path
    return "/" in value or host == host.lower() or host.isupper()


def _block_start(text: str, start: int, max_lines: int = 3) -> int:
    """The start of the address block that ends with the line holding
    ``start`` (a postcode): up to ``max_lines`` short lines above it that are
    not sentences; a ``Label:`` in front of the first line stays outside."""
    line_start = text.rfind("\n", 0, start) + 1
    if text[line_start:start].strip():
        return start
    block = line_start
    for _ in range(max_lines):
        if block == 0:
            break
        prev = text.rfind("\n", 0, block - 1) + 1
        line = text[prev : block - 1]
        label = re.match(r"^[ \t]*[A-Za-z][\w /]{0,30}:[ \t]*", line)
        body = line[label.end() :] if label else line
        if not body.strip() or not _BLOCK_LINE.match(body) or not re.match(r"[\s]*[\dA-ZÀ-Þ]", body):
            break
        block = prev + (label.end() if label else 0)
        if label:
            break
    return block + len(text[block:start]) - len(text[block:start].lstrip()) if block < start else start


def find_addresses(text: str) -> list[RuleMatch]:
    """Street addresses and postcodes of UK, US, FR, DE, NL, PL, IT, ES (and
    neighbours); the parts of one address separated by a comma or a line
    break, and the short lines of an address block above a postcode, are
    returned as one span."""
    parts = set()
    for m in _finditer(text, _address_compiled()):
        start = m.start
        if m.name in _POSTCODES:
            start = min(start, _block_start(text, start))
        parts.add((start, m.end))
    merged: list[list[int]] = []
    for start, end in sorted(parts):
        if merged and (start <= merged[-1][1] or _ADDRESS_GLUE.match(text[merged[-1][1] : start])):
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [RuleMatch(s, e, "LOC", "address") for s, e in merged]


# --------------------------------------------------------------------------- #
# Delimited records inside a text: the header names each column
# --------------------------------------------------------------------------- #

#: Column or field names whose values identify a person, and the label of those values.
_FIELDS = {
    "PERSON": "name, full name, surname, last name, first name, given name, family name, maiden name, patient, "
    "client, customer, employee, applicant, claimant, contact, contact person, account holder, "
    "cardholder, beneficiary, next of kin, emergency contact, guardian, spouse, mother, father, nom, "
    "prénom, vorname, nachname, nombre, apellidos, nome, cognome, naam, imię, nazwisko, adı, soyadı",
    "LOC": "address, home address, street, street address, postal address, residence, city, town, place of birth, "
    "birthplace, adresse, anschrift, dirección, indirizzo, adres",
    "ORG": "employer, company, organisation, organization, school, university, hospital, prison, workplace",
    "DATETIME": "date of birth, dob, birth date, birthdate, born, d.o.b., geburtsdatum, date de naissance, "
    "fecha de nacimiento, data di nascita",
    "DEM": "nationality, citizenship, occupation, job, profession, job title, religion, ethnicity, "
    "marital status, family status, diagnosis, condition",
    "CODE": "phone, telephone, tel, mobile, cell, fax, email, e-mail, mail, iban, account, account number, "
    "bank account, passport, passport number, id, id number, national id, ssn, nhs, nhs number, nino, "
    "ni number, user id, userid, username, user name, login, handle, ip, ip address, last login ip, mac, "
    "vehicle, plate, licence plate, license plate, registration, card, card number, credit card, mrn, "
    "tckn, rrn, cpf, insee, pesel, bsn, nir, teudat zehut, aadhaar, pan, dni, nie, nif, codice fiscale, "
    "personnummer, fødselsnummer, resident id, tax id, tin, vat, postcode, post code, zip, zip code",
}
FIELD_LABELS: dict[str, str] = {name.strip(): label for label, names in _FIELDS.items() for name in names.split(",")}

_DELIMITERS = (";", "|", "\t")


def _field_label(name: str) -> str | None:
    """The label of a field's values: ``"Date of birth"``, ``"user_id"``, ``"E-mail:"``."""
    name = name.strip().rstrip(":").strip().lower()
    return FIELD_LABELS.get(name) or FIELD_LABELS.get(" ".join(re.findall(r"[^\W_]+", name.replace(".", ""))))


def _cells(line: str, delimiter: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each cell of a line, spaces around it excluded."""
    out, pos = [], 0
    for part in line.split(delimiter):
        start = pos + len(part) - len(part.lstrip())
        end = pos + len(part.rstrip())
        out.append((start, max(start, end)))
        pos += len(part) + 1
    return out


def find_table_cells(text: str) -> list[RuleMatch]:
    """Cells of delimited records written inside a text (``;``, ``|`` or
    tab): under a header line whose column names are identifying fields
    (``Name;Email;user id``), every cell of those columns is a candidate with
    the field's label; a two-cell line ``Field<delimiter>value`` or
    ``Field: value`` (a known field at the start of a line, a value of at most
    80 characters) is read the same way without a header; in a record
    without a header (three or more short fields), the fields of 1-4
    capitalised words are candidates (MISC)."""
    out: list[RuleMatch] = []
    lines = []
    pos = 0
    for line in text.split("\n"):
        lines.append((pos, line))
        pos += len(line) + 1
    header: list[str | None] | None = None
    header_delim = None
    for start, line in lines:
        delim = next((d for d in _DELIMITERS if line.count(d) >= 1), None)
        if delim is None:
            header = None
            key, colon, value = line.partition(":")
            label = _field_label(key) if colon and len(key) <= 30 else None
            if label and value.strip() and len(value.strip()) <= 80:
                a = len(key) + 1 + len(value) - len(value.lstrip())
                out.append(RuleMatch(start + a, start + len(line.rstrip()), label, "field_value"))
            continue
        cells = _cells(line, delim)
        names = [_field_label(line[a:b]) for a, b in cells]
        if sum(n is not None for n in names) >= max(2, len(cells) // 2) and len(cells) >= 3:
            header, header_delim = names, delim  # a header line
            continue
        if header is not None and delim == header_delim and len(cells) == len(header):
            for (a, b), label in zip(cells, header, strict=False):
                if label and b > a:
                    out.append(RuleMatch(start + a, start + b, label, "table_cell"))
            continue
        header = None
        if len(cells) == 2 and names[0] and cells[1][1] > cells[1][0]:
            a, b = cells[1]
            out.append(RuleMatch(start + a, start + b, names[0], "field_value"))
        elif len(cells) >= 3 and delim != "\t" and all(len(line[a:b].split()) <= 6 for a, b in cells):
            # a record without a header: its capitalised fields are names, places, employers...
            for a, b in cells:
                if _RECORD_NAME.fullmatch(line[a:b]):
                    out.append(RuleMatch(start + a, start + b, "MISC", "record_field"))
    return out


#: A record field of 1-4 capitalised words (any script), without digits.
_RECORD_NAME = re.compile(r"(?:[^\W\d_a-z][^\W\d_]*[.'’-]?[ ]?){1,4}")


def find_identifiers(text: str, regions: Sequence[str] = DEFAULT_PHONE_REGIONS) -> list[RuleMatch]:
    """Every detector of this module, in a fixed order."""
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
