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

from .names import FIRST, LAST, name_lexicon
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
    "nick",
    "discord",
    "reddit",
    "benutzer",
    "usuario",
    "gamertag",
)
#: Pieces of an obfuscated e-mail address: a word, "at" and "dot" spelt out or bracketed, or "@"/"." themselves.
#: (Words of at most 64 characters, labels of at most 63.)
_OBF_WORD = r"[^\W_][\w'’]{0,63}"
_OBF_LABEL = r"[^\W_][\w-]{0,62}"
#: "at" in English, German, Spanish, French, Italian; "dot" likewise (bracketed, or a word between spaces)
_AT_WORDS = r"at|ät|@|arroba|arobase|chiocciola"
_DOT_WORDS = r"dot|punkt|punto|point|\."
_OBF_AT = (
    rf"(?:[ \t]*[(\[{{<][ \t]*(?:{_AT_WORDS})[ \t]*[)\]}}>][ \t]*|[ \t]+(?:{_AT_WORDS})[ \t]+|[ \t]*-(?:at)-[ \t]*)"
)
_OBF_DOT = (
    rf"(?:[ \t]*[(\[{{<][ \t]*(?:{_DOT_WORDS})[ \t]*[)\]}}>][ \t]*|[ \t]+(?:{_DOT_WORDS})[ \t]+|[ \t]*-dot-[ \t]*|\.)"
)
#: Phrases after which a user name follows: "logged in as", "signed on to the portal as", "goes by the handle".
_AS_CUES = (
    r"(?:log|sign)(?:s|ged|ging|ed|ing)?[ \t-]?(?:in|on)(?:to)?"
    r"(?:[ \t]+(?:to[ \t]+)?(?:the[ \t]+)?[\w.-]+(?:[ \t]+[\w.-]+){0,2}?)?[ \t]+as"
    r"|(?:connected|authenticated|registered|posting|posted|posts|playing|plays|chatting|known[ \t]+online"
    r"|goes[ \t]+online)[ \t]+as"
    r"|(?:goes|go|going|went)[ \t]+by(?:[ \t]+the[ \t]+(?:name|handle|nick(?:name)?|alias|username|user[ \t]+name))?"
    r"|(?:under|with|using)[ \t]+the[ \t]+(?:user[ \t]?name|handle|nick(?:name)?|alias|login|screen[ \t]+name"
    r"|pseudonym|account(?:[ \t]+name)?|gamertag|user[ \t]?id)"
)
#: Phrases after which a word is a user name when it looks like one ("posted by kwame_m", "a reply from dj_kat").
_BY_CUES = (
    r"(?:posted|uploaded|submitted|created|shared|tweeted|commented|written|edited|reported|sent|messages?"
    r"|replies|reply)[ \t]+(?:by|from)"
)
#: ``needs`` of the "logged in as" pattern: one of these must be in the text.
_AS_NEEDS: tuple[str, ...] = (
    "log",
    "sign",
    "connected",
    "authenticated",
    "registered",
    "post",
    "play",
    "chatting",
    "online",
    "goes by",
    "go by",
    "going by",
    "went by",
    "under the",
    "with the",
    "using the",
)
#: Words a user name may follow directly, without a colon ("user petra1987").
_ACCOUNT_WORDS = (
    r"user(?:[ \t]?name)?|user[ \t]?id|login(?:[ \t]+name)?|account(?:[ \t]+name)?|handle|nick(?:name)?|alias"
    r"|screen[ \t]?name|gamertag|profile"
)
#: An IPv6 address, with its zone (``fe80::1%eth0``).
_IPV6 = (
    r"(?:(?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}"
    r"|(?:[0-9A-Fa-f]{1,4}:){1,7}:(?:[0-9A-Fa-f]{1,4}(?::[0-9A-Fa-f]{1,4}){0,6})?"
    r"|::(?:[0-9A-Fa-f]{1,4}:){0,6}[0-9A-Fa-f]{1,4})(?:%\w+)?"
)
#: A user name: letters, digits and ``. _ - + @ #`` (``jdoe42``, ``kwame_mensah``, ``@anna_k``, ``name#1234``).
_HANDLE_REST = r"(?:[\w.@+#-]{0,38}\w)?"
_HANDLE = r"@?\w" + _HANDLE_REST + r"(?![\w@])"
NETWORK_PATTERNS: list[dict] = [
    {"name": "ipv6", "pattern": rf"(?<![\w:]){_IPV6}(?![\w:])"},
    # in brackets with its port (RFC 3986): [2001:db8::1]:8080
    {"name": "ipv6", "needs": ("]:",), "pattern": rf"\[{_IPV6}\]:\d{{1,5}}\b"},
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
        "pattern": r"\b(?:user(?:[ _-]?name)?|user[ _-]?id|login|log-in|account name|screen name|nick(?:name)?|handle|gamertag"
        r"|alias|skype|twitter|instagram|telegram|github|discord|reddit|snapchat|tiktok|steam|xbox|psn|irc|slack"
        r"|mastodon|wechat|nom d'utilisateur|benutzername|usuario)"
        # ":", "=" or "is" between spaces, or a run of spaces and tabs holding a tab (``[ \t]*[:=\t][ \t]*``
        # tried each tab of a long run as the separator, with each split of the run around it)
        r"(?:[ \t]*(?:[:=]|\bis\b)[ \t]*|[ ]*\t[ \t]*)[\"'“]?([\w.@+#-]{1,40}[\w])",
    },
    # "your account on the staff portal is aklore": an account named after a few words, in lower case or with digits
    {
        "name": "user_name",
        "needs": _USER_NEEDS,
        "group": 1,
        "pattern": r"\b(?i:account|login|user(?:name)?|profile|handle|alias)\b[^.\n:=]{0,40}?\b(?:is|=|:)[ \t]+[\"'“]?"
        r"((?=[\w.-]{0,41}(?:[\d_]|[a-z]))(?!(?:the|a|an|not|now|no|active|inactive|locked|closed|open|suspended|ready"
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
    # obfuscated e-mail addresses, whole: lena dot fischer at web dot de, peder(at)firm.no,
    # ingrid [dot] solberg [at] gmail [dot] com, KAREN AT YAHOO DOT COM, j dot o'connor at firm dot co dot uk
    {
        "name": "obfuscated_email",
        "needs": ("at", "ät", " @ ", "(@)", "[@]", "arroba", "arobase", "chiocciola"),
        "flags": "i",
        # at most 8 more words in the local part and 8 more labels in the domain: a match may start at any
        # word, and unbounded, each start read a long run of "lena dot lena dot ..." to its end
        "pattern": rf"(?<![\w.@'’+-]){_OBF_WORD}(?:{_OBF_DOT}{_OBF_WORD}|[+_-]{_OBF_WORD}){{0,8}}{_OBF_AT}"
        rf"{_OBF_LABEL}(?:{_OBF_DOT}{_OBF_LABEL}){{0,8}}{_OBF_DOT}(?:{_TLDS})(?![\w@-]|\.\w)",
    },
    # user names after a cue phrase: logged in as jdoe42, signed on as kwame_mensah, goes by the handle x
    {
        "name": "user_name",
        "needs": _AS_NEEDS,
        "group": 1,
        "flags": "i",
        "pattern": rf"\b(?:{_AS_CUES})[ \t]+[\"'“]?({_HANDLE})",
    },
    # a user name right after an account word or "posted by", when it looks like one: user petra1987,
    # account j.doe, handle x_y, posted by kwame_m
    {
        "name": "user_name",
        "needs": _USER_NEEDS + ("by", "from"),
        "group": 1,
        "pattern": rf"\b(?i:{_ACCOUNT_WORDS}|{_BY_CUES})[ \t]+[\"'“]?((?=[\w.@+#-]*[^\W\d_])(?=[\w@]+[\d_.@+#-])[\w@]{_HANDLE_REST})",
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


def _is_obfuscated_email(text: str) -> bool:
    """The "at" of an obfuscated e-mail is bracketed or a word between single
    spaces (the pattern, case-insensitive and over any whitespace, finds
    more); a bare " at " before a plain domain follows a name, not an English
    word ("look at example.com")."""
    if not re.search(
        rf"(?i)[(\[{{<] ?(?:{_AT_WORDS}) ?[)\]}}>]|-at-|(?-i: at | AT | @ )|[ \t](?:ät|arroba|arobase|chiocciola)[ \t]",
        text,
    ):
        return False
    if re.search(rf"(?i)[(\[{{<] ?(?:{_AT_WORDS}|{_DOT_WORDS}) ?[)\]}}>]|-dot-|[ \t](?:{_DOT_WORDS})[ \t]", text):
        return True
    local = re.split(r"(?i) (?:at|@) ", text, maxsplit=1)[0]
    return not (local.isalpha() and _english_word(local))


def _english_word(word: str) -> bool:
    """A common English word that is no given name or surname."""
    return zipf_frequency(word.lower(), "en") >= 3.0 and not name_lexicon().get(word.casefold(), 0) & (FIRST | LAST)


def _plausible_user_name(value: str) -> bool:
    """Not an English word ("the", "admin", "Annex": a capitalised one may be
    a name) nor an abbreviation ("e.g")."""
    if re.fullmatch(r"(?i)[a-z](?:\.[a-z])+\.?", value):
        return False
    if value.isalpha() and value.islower():
        return zipf_frequency(value, "en") < 2.5
    return not (value.isalpha() and _english_word(value))


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
        if m.name == "obfuscated_email" and not _is_obfuscated_email(value):
            continue
        if m.name == "secret" and (
            value.lower() in _SECRET_STOPWORDS
            or (value.isalpha() and value.islower() and zipf_frequency(value, "en") >= 3.0)
        ):
            continue  # "a PIN was issued": an English word
        if m.name == "user_name" and not _plausible_user_name(value):
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
