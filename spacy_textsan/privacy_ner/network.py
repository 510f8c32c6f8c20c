"""Network and account identifiers: IPv6 and MAC addresses, scheme-less URLs,
social handles and profile paths, user names, vehicle plates, obfuscated
e-mail addresses and secrets after a cue (``password: Tr0ub4dor&3``).

Pure functions over a string returning :class:`~.rules.RuleMatch` objects
(``label`` CODE, ``name`` the pattern) with exact character offsets. Each
pattern carries prefilters (:func:`.rules.find_prefiltered`), so that a costly
pattern runs only on texts where it can match.
"""

import re

from wordfreq import zipf_frequency

from .rules import RuleMatch, compile_prefiltered, find_prefiltered

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


_NETWORK = compile_prefiltered(NETWORK_PATTERNS)


def find_network_ids(text: str) -> list[RuleMatch]:
    """IPv6, MAC, scheme-less URLs, handles, profile paths, user names,
    obfuscated e-mails and secrets after a cue."""
    out = []
    for m in find_prefiltered(text, _NETWORK):
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
