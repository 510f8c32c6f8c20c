"""A synthetic multi-domain, multi-locale test set in TAB JSON (issue 14, item 5).

    python benchmarks/multidomain/generate.py [--n 1000] [--seed 14] [--out benchmarks/data/multidomain.json]

Deterministic for a seed. Each document is about one person of one Faker
locale (19 locales, Latin and non-Latin scripts) in one domain (court ruling,
clinical note, HR letter or e-mail, CV or biography, customer-support chat,
"field: value" record). The text is English; names, phones, addresses, id
numbers and dates of birth follow the person's locale (names in their native
script, national id numbers with valid check digits from python-stdnum).

Output: TAB JSON (a list of documents with ``doc_id``, ``text``,
``annotations.annotator1.entity_mentions``) plus, per mention, a
``category`` (``person_name``, ``phone``, ``id_number``, ``occupation`` ...)
and, per document, ``meta.locale`` / ``meta.domain``. ``identifier_type`` is
DIRECT or QUASI by category (:data:`CATEGORIES`); every span satisfies
``text[start_offset:end_offset] == span_text``.
"""
import argparse
import datetime
import json
import random
import unicodedata
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from faker import Faker
from stdnum import iban as stdnum_iban, luhn
from stdnum.br import cpf
from stdnum.cn import ric
from stdnum.de import idnr
from stdnum.es import dni
from stdnum.fr import nir
from stdnum.gb import nhs
from stdnum.il import idnr as il_idnr
from stdnum.in_ import aadhaar
from stdnum.it import codicefiscale
from stdnum.jp import in_ as mynumber
from stdnum.kr import rrn
from stdnum.nl import bsn
from stdnum.no import fodselsnummer
from stdnum.pl import pesel
from stdnum.ru import inn
from stdnum.tr import tckimlik
from stdnum.us import ssn

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_OUT = ROOT / "benchmarks" / "data" / "multidomain.json"
DEFAULT_SEED = 14
ANNOTATOR = "annotator1"

LOCALES = ["en_US", "en_GB", "en_IN", "fr_FR", "de_DE", "nl_NL", "pl_PL", "it_IT", "es_ES", "tr_TR",
           "no_NO", "pt_BR", "ja_JP", "zh_CN", "ar_SA", "he_IL", "hi_IN", "ko_KR", "ru_RU"]
NON_LATIN = {"ja_JP", "zh_CN", "ar_SA", "he_IL", "hi_IN", "ko_KR", "ru_RU"}
DOMAINS = ["court_ruling", "clinical_note", "hr_letter", "cv_biography", "support_chat", "record"]

# category -> (TAB entity_type, identifier_type)
CATEGORIES: Dict[str, Tuple[str, str]] = {
    **{c: ("PERSON", "DIRECT") for c in ["person_name"]},
    **{c: ("CODE", "DIRECT") for c in ["phone", "email", "id_number", "iban", "credit_card", "mrn", "ip", "ipv6",
                                        "mac", "url", "handle", "username", "obfuscated_email", "password",
                                        "licence_plate"]},
    **{c: ("LOC", "DIRECT") for c in ["address", "postcode"]},
    "date_of_birth": ("DATETIME", "DIRECT"),
    "city": ("LOC", "QUASI"),
    "organisation": ("ORG", "QUASI"),
    **{c: ("DEM", "QUASI") for c in ["occupation", "nationality", "religion", "health", "ethnicity",
                                      "family_status", "age"]},
}
DIRECT = sorted(c for c, (_, t) in CATEGORIES.items() if t == "DIRECT")
QUASI = sorted(c for c, (_, t) in CATEGORIES.items() if t == "QUASI")

NATIONALITY = {"en_US": "American", "en_GB": "British", "en_IN": "Indian", "fr_FR": "French", "de_DE": "German",
               "nl_NL": "Dutch", "pl_PL": "Polish", "it_IT": "Italian", "es_ES": "Spanish", "tr_TR": "Turkish",
               "no_NO": "Norwegian", "pt_BR": "Brazilian", "ja_JP": "Japanese", "zh_CN": "Chinese",
               "ar_SA": "Saudi", "he_IL": "Israeli", "hi_IN": "Indian", "ko_KR": "South Korean",
               "ru_RU": "Russian"}
OCCUPATIONS = ["taxi driver", "nurse", "primary school teacher", "plumber", "software engineer", "bus driver",
               "police officer", "pharmacist", "journalist", "imam", "warehouse operative", "accountant",
               "dental hygienist", "electrician", "social worker", "hairdresser", "lorry driver", "midwife",
               "customs officer", "paralegal", "welder", "nightclub bouncer", "veterinary surgeon", "chef",
               "air traffic controller", "tax inspector", "priest", "firefighter", "data analyst", "cleaner"]
RELIGIONS = ["Muslim", "Catholic", "Jewish", "Hindu", "Sikh", "Buddhist", "Jehovah's Witness", "Alevi",
             "Orthodox Christian", "Mormon"]
HEALTH = ["HIV", "type 2 diabetes", "schizophrenia", "multiple sclerosis", "bipolar disorder", "hepatitis C",
          "epilepsy", "breast cancer", "major depressive disorder", "Crohn's disease", "alcohol dependence",
          "post-traumatic stress disorder", "Parkinson's disease"]
ETHNICITIES = ["Roma", "Kurdish", "Sami", "Afro-Caribbean", "Berber", "Tamil", "Uyghur", "Chechen", "Punjabi",
               "Yazidi"]
FAMILY = ["divorced", "widowed", "married with three children", "separated", "recently married"]
FAMILY_F, FAMILY_M = ["a single mother of two", "a widow"], ["a father of four", "a widower"]
PRISONS = ["HMP Wakefield", "HMP Belmarsh", "JVA Tegel", "Silivri Prison", "Fleury-Mérogis prison",
           "Ila prison", "Rikers Island"]
STATES = ["OR", "WA", "TX", "NY", "IL", "OH", "GA", "AZ", "MN", "MA"]

MONTHS = {
    "en": ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December"],
    "fr": ["janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre",
           "novembre", "décembre"],
    "de": ["Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober",
           "November", "Dezember"],
    "es": ["enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre",
           "noviembre", "diciembre"],
    "it": ["gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "agosto", "settembre",
           "ottobre", "novembre", "dicembre"],
    "nl": ["januari", "februari", "maart", "april", "mei", "juni", "juli", "augustus", "september", "oktober",
           "november", "december"],
    "pl": ["stycznia", "lutego", "marca", "kwietnia", "maja", "czerwca", "lipca", "sierpnia", "września",
           "października", "listopada", "grudnia"],
    "tr": ["Ocak", "Şubat", "Mart", "Nisan", "Mayıs", "Haziran", "Temmuz", "Ağustos", "Eylül", "Ekim", "Kasım",
           "Aralık"],
}
# locale -> (prefix, date format, suffix) of a date of birth in the local language
LOCAL_DOB = {
    "fr_FR": ("né le ", "{d} {m:fr} {y}", ""), "de_DE": ("geboren am ", "{d}. {m:de} {y}", ""),
    "es_ES": ("nacido el ", "{d} de {m:es} de {y}", ""), "it_IT": ("nato il ", "{d} {m:it} {y}", ""),
    "nl_NL": ("geboren op ", "{d} {m:nl} {y}", ""), "pl_PL": ("ur. ", "{d} {m:pl} {y}", " r."),
    "tr_TR": ("", "{d} {m:tr} {y}", " doğumlu"), "pt_BR": ("nascido em ", "{dd}/{mm}/{y}", ""),
}
REF_DATE = datetime.date(2024, 6, 1)


# -- identifier values ------------------------------------------------------------

def ascii_fold(s: str) -> str:
    s = s.translate(str.maketrans({"ø": "o", "Ø": "O", "ß": "ss", "ł": "l", "Ł": "L", "ı": "i", "æ": "ae",
                                   "Æ": "AE", "đ": "d"}))
    return "".join(c for c in unicodedata.normalize("NFKD", s) if not unicodedata.combining(c) and c.isascii())


def with_check(rng: random.Random, module, template: str, tail: int = 1, alphabet: str = "0123456789") -> str:
    """``template`` with each ``#`` a random digit, its last ``tail`` characters chosen so that
    ``module.is_valid`` holds (brute force over ``alphabet``)."""
    for _ in range(200):
        body = "".join(str(rng.randrange(10)) if c == "#" else c for c in template)
        head = body[:-tail]
        combos = [""]
        for _ in range(tail):
            combos = [c + a for c in combos for a in alphabet]
        for end in combos:
            if is_valid(module, head + end):
                return head + end
    raise RuntimeError(f"no valid number for {module.__name__} {template}")


def is_valid(module, number: str) -> bool:
    try:
        return module.is_valid(number)
    except Exception:  # stdnum.cn.ric raises on some region codes
        return False


def national_id(loc: str, dob: datetime.date, female: bool, rng: random.Random) -> Tuple[str, str]:
    """(label as written before the number, number) of the locale's national identifier; numbers that
    encode a birth date encode ``dob``. Faker's ``ssn()`` is not used: some locales draw a date up to today."""
    yy, mm, dd = f"{dob.year % 100:02d}", f"{dob.month:02d}", f"{dob.day:02d}"
    if loc == "en_US":
        return rng.choice(["SSN", "Social Security number", "SSN:"]), with_check(rng, ssn, "###-##-####")
    if loc == "en_GB":
        v = with_check(rng, nhs, "4#########")
        return rng.choice(["NHS number", "NHS No."]), f"{v[:3]} {v[3:6]} {v[6:]}"
    if loc in ("en_IN", "hi_IN"):
        v = with_check(rng, aadhaar, str(rng.randrange(2, 10)) + "#" * 11)
        return rng.choice(["Aadhaar", "Aadhaar no."]), f"{v[:4]} {v[4:8]} {v[8:]}"
    if loc == "fr_FR":
        v = with_check(rng, nir, f"{2 if female else 1}{yy}{mm}{rng.choice(['75', '69', '13', '33', '59'])}"
                                 "######" + "##", 2)
        return rng.choice(["INSEE", "numéro de sécurité sociale", "NIR"]), nir.format(v) if rng.random() < 0.5 else v
    if loc == "de_DE":
        return rng.choice(["Steuer-ID", "Steueridentifikationsnummer"]), with_check(rng, idnr, "#" * 11)
    if loc == "nl_NL":
        return "BSN", with_check(rng, bsn, "#" * 9)
    if loc == "pl_PL":
        month = dob.month + (20 if dob.year >= 2000 else 0)
        return "PESEL", with_check(rng, pesel, f"{yy}{month:02d}{dd}#####")
    if loc == "it_IT":
        letters = "BCDFGHLMNPRSTVZ"
        head = "".join(rng.choice(letters) for _ in range(6))
        day = dob.day + (40 if female else 0)
        return "codice fiscale", with_check(rng, codicefiscale, f"{head}{yy}{'ABCDEHLMPRST'[dob.month - 1]}{day:02d}"
                                                                 f"{rng.choice(['H501', 'F205', 'L219', 'G273'])}X",
                                            alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    if loc == "es_ES":
        return rng.choice(["DNI", "DNI nº"]), with_check(rng, dni, "########X", alphabet="TRWAGMYFPDXBNJZSQVHLCKE")
    if loc == "tr_TR":
        v = with_check(rng, tckimlik, str(rng.randrange(1, 10)) + "#" * 10, 2)
        return rng.choice(["TCKN", "T.C. Kimlik No"]), v
    if loc == "no_NO":
        individual = "###" if dob.year >= 2000 else f"{rng.randrange(5)}##"  # 000-499 in the 1900s
        return "fødselsnummer", with_check(rng, fodselsnummer, f"{dd}{mm}{yy}{individual}##", 2)
    if loc == "pt_BR":
        v = with_check(rng, cpf, "#" * 11, 2)
        return "CPF", cpf.format(v) if rng.random() < 0.6 else v
    if loc == "ja_JP":
        v = with_check(rng, mynumber, "#" * 12)
        return "My Number", f"{v[:4]} {v[4:8]} {v[8:]}" if rng.random() < 0.5 else v
    if loc == "zh_CN":
        # a real county code and the ISO 7064 check character; stdnum's is_valid also wants the code
        # to have existed in the birth year, which its table rarely confirms, so it is not asked
        body = f"{rng.choice(['110105', '310104', '440106', '330106', '320102'])}{dob:%Y%m%d}{rng.randrange(1000):03d}"
        return "resident ID", body + ric.calc_check_digit(body)
    if loc == "ar_SA":
        return "national ID", with_check(rng, luhn, "1#########")
    if loc == "he_IL":
        return "Teudat Zehut", with_check(rng, il_idnr, "#" * 9)
    if loc == "ko_KR":
        sex = (4 if female else 3) if dob.year >= 2000 else (2 if female else 1)
        return "RRN", with_check(rng, rrn, f"{yy}{mm}{dd}-{sex}0#####")
    if loc == "ru_RU":
        return "INN", with_check(rng, inn, "77" + "#" * 10, 2)
    raise ValueError(loc)


def passport(rng: random.Random) -> str:
    letters = "ABCDEFGHJKLMNPRSTUVWXYZ"
    return rng.choice(letters) + rng.choice(letters) + "".join(str(rng.randrange(10)) for _ in range(7))


def phone(loc: str, fk: Faker, rng: random.Random) -> str:
    r = rng.random()
    if loc == "en_US" and r < 0.5:
        a, b, c = rng.randrange(201, 989), rng.randrange(200, 999), rng.randrange(0, 9999)
        return rng.choice([f"{a}.{b}.{c:04d}", f"({a}) {b}-{c:04d} x{rng.randrange(10, 999)}",
                           f"+1 {a} {b} {c:04d}", f"{b}-{c:04d}"])
    if loc == "de_DE" and r < 0.4:
        return f"+49 {rng.choice(['40', '30', '89', '221', '69'])} {rng.randrange(100000, 9999999)}"
    if r < 0.15 and loc not in NON_LATIN:
        number = fk.phone_number()
        return number if "x" in number else f"{number} ext. {rng.randrange(10, 99)}"
    return fk.phone_number()


def spaced(s: str, n: int = 4) -> str:
    return " ".join(s[i:i + n] for i in range(0, len(s), n))


def dob_formats(loc: str, d: datetime.date, rng: random.Random) -> Tuple[str, str, str]:
    """(prefix, date text, suffix)."""
    if loc in LOCAL_DOB and rng.random() < 0.55:
        pre, fmt, suf = LOCAL_DOB[loc]
        text = fmt
        for lang in MONTHS:
            text = text.replace("{m:%s}" % lang, MONTHS[lang][d.month - 1])
        text = text.format(d=d.day, dd=f"{d.day:02d}", mm=f"{d.month:02d}", y=d.year)
        if loc == "fr_FR" and d.day == 1:
            text = "1er" + text[1:]
        return pre, text, suf
    m = MONTHS["en"][d.month - 1]
    text = rng.choice([f"{d.day} {m[:3]} {d.year % 100:02d}", f"{d.day} {m} {d.year}", d.isoformat(),
                       f"{d.day:02d}/{d.month:02d}/{d.year}", f"{m} {d.day}, {d.year}",
                       f"{d.day:02d}.{d.month:02d}.{d.year}", f"{d.month}/{d.day}/{d.year % 100:02d}"])
    return rng.choice(["born on ", "born ", "DOB ", "date of birth: "]), text, ""


# -- the person of a document -----------------------------------------------------

Seg = Tuple[str, Optional[str], Optional[str]]  # (text, category or None, entity key)


class Profile:
    """Everything written about one document's person, as segments ``(text, category, entity key)``."""

    def __init__(self, loc: str, fk: Faker, fk_en: Faker, rng: random.Random):
        self.loc = loc
        self.female = rng.random() < 0.5
        first = fk.first_name_female() if self.female else fk.first_name_male()
        gendered = getattr(fk, "last_name_female" if self.female else "last_name_male", None)
        last = gendered() if gendered else fk.last_name()
        self.first, self.last = first, last
        if loc in ("zh_CN", "ko_KR"):
            self.full = last + first
        elif loc == "ja_JP":
            self.full = f"{last} {first}"
        else:
            self.full = f"{first} {last}"
        self.he, self.his = ("she", "her") if self.female else ("he", "his")
        self.title = rng.choice(["Ms", "Mrs"] if self.female else ["Mr"])
        self.latin = loc not in NON_LATIN
        sf, sl = (ascii_fold(first).lower(), ascii_fold(last).lower()) if self.latin else \
            (ascii_fold(fk_en.first_name()).lower(), ascii_fold(fk_en.last_name()).lower())
        sf, sl = sf.replace(" ", "").replace("'", ""), sl.replace(" ", "").replace("'", "").replace("-", "")
        self.slug = rng.choice([f"{sf}-{sl[:1]}", f"{sf}{sl}", f"{sf[:1]}{sl}", f"{sf}.{sl}", f"{sf}{sl[:4]}"])
        self.user = rng.choice([f"{sf[:1]}{sl[:5]}", f"{sf}{rng.randrange(10, 99)}", f"{sl}_{sf[:1]}",
                                f"{sf}{sl}{rng.randrange(1970, 2005)}"]).replace(".", "")
        domain = rng.choice([fk_en.free_email_domain(), fk_en.domain_name()])
        self.email_domain = domain
        self.email = rng.choice([f"{sf}.{sl}@{domain}", f"{sf[:1]}{sl}@{domain}", f"{self.user}@{domain}"])
        dn, _, tld = domain.rpartition(".")
        self.obf = rng.choice([f"{sf} at {dn} dot {tld}", f"{sf}(at){domain}", f"{sf} [at] {dn} [dot] {tld}",
                               f"{sf}.{sl} AT {dn} DOT {tld}"])
        self.phone = phone(loc, fk, rng)
        self.phone2 = phone(loc, fk, rng)
        self.dob = REF_DATE - datetime.timedelta(days=rng.randrange(19 * 365 + 5, 84 * 365))  # not Faker's: today
        self.id_label, self.id_number = national_id(loc, self.dob, self.female, rng)
        self.passport = passport(rng)
        iban = fk.iban()
        if not is_valid(stdnum_iban, iban):
            iban = fk_en.iban()
        self.iban = spaced(iban) if rng.random() < 0.5 else iban
        card = fk_en.credit_card_number(card_type=rng.choice(["visa16", "mastercard", "amex", None]))
        self.card = spaced(card) if len(card) == 16 and rng.random() < 0.6 else card
        self.mrn = f"{rng.randrange(0, 9999999):07d}"
        self.ip, self.ipv6, self.mac = fk_en.ipv4_public(), fk_en.ipv6(), fk_en.mac_address()
        if rng.random() < 0.3:
            self.mac = self.mac.upper().replace(":", "-")
        self.url = rng.choice([f"linkedin.com/in/{self.slug}", f"https://www.linkedin.com/in/{self.slug}/",
                               f"https://{self.slug.replace('.', '')}.{rng.choice(['com', 'net', 'io', 'me'])}",
                               f"github.com/{self.user}"])
        self.handle = "@" + self.user
        self.password = rng.choice([fk_en.password(length=rng.randrange(8, 14)),
                                    f"{sf.capitalize()}{rng.randrange(1960, 2010)}!", "Tr0ub4dor&3"])
        try:
            self.plate = fk.license_plate()
        except AttributeError:
            self.plate = fk_en.license_plate()
        self.city = fk.city()
        self.postcode = fk.postcode()
        self.street = ", ".join(x.strip() for x in fk.street_address().splitlines() if x.strip())
        self.employer = fk.company()
        self.age = str((REF_DATE - self.dob).days // 365)
        self.dob_pre, self.dob_text, self.dob_suf = dob_formats(loc, self.dob, rng)
        self.occupation = rng.choice(OCCUPATIONS)
        self.nationality = NATIONALITY[loc]
        self.religion, self.health = rng.choice(RELIGIONS), rng.choice(HEALTH)
        self.ethnicity = rng.choice(ETHNICITIES)
        self.family = rng.choice(FAMILY + (FAMILY_F if self.female else FAMILY_M))
        self.prison = rng.choice(PRISONS)
        # a second person (doctor, manager, agent, judge, witness) of the same locale
        o_first, o_last = fk.first_name(), fk.last_name()
        self.other = f"{o_last}{o_first}" if loc in ("zh_CN", "ko_KR") else f"{o_first} {o_last}"
        self.other_last = o_last
        self.agent = fk_en.first_name()

    # segments -------------------------------------------------------------------
    def name(self, form: str = "full") -> List[Seg]:
        v = {"full": self.full, "first": self.first, "last": self.last, "caps": self.full.upper(),
             "lower": self.full.lower(), "inv": f"{self.last.upper()}, {self.first}"}[form]
        if not self.latin and form in ("caps", "lower", "inv"):
            v = self.full
        if self.loc in ("zh_CN", "ko_KR", "ja_JP") and form == "first":  # a one-character given name is ambiguous
            v = self.full
        return [(v, "person_name", "subject")]

    def address(self, rng: random.Random) -> List[Seg]:
        st, pc, city = (self.street, "address", None), (self.postcode, "postcode", None), (self.city, "city", None)
        sep = rng.choice([", ", "\n"])
        if self.loc == "en_US":
            return [st, (sep, None, None), city, (f", {rng.choice(STATES)} ", None, None), pc]
        if self.loc == "en_GB":
            return [st, (sep, None, None), city, (sep, None, None), pc]
        if self.loc == "it_IT":
            return [st, (sep, None, None), pc, (" ", None, None), city]
        if self.loc in ("fr_FR", "de_DE", "nl_NL", "pl_PL", "es_ES", "no_NO", "tr_TR", "pt_BR"):
            return [st, (sep, None, None), pc, (" ", None, None), city]
        return [st, (", ", None, None), city, (" ", None, None), pc]

    def dob_segs(self) -> List[Seg]:
        return [(self.dob_pre, None, None), (self.dob_text, "date_of_birth", None), (self.dob_suf, None, None)]


# -- templates --------------------------------------------------------------------

class Builder:
    """Text assembled from plain strings and annotated segments; keeps the gold offsets."""

    def __init__(self):
        self.parts: List[str] = []
        self.n = 0
        self.spans: List[Tuple[int, int, str, str, str]] = []  # start, end, text, category, entity key

    def add(self, *items) -> "Builder":
        for item in items:
            if isinstance(item, str):
                self.parts.append(item)
                self.n += len(item)
            elif isinstance(item, tuple):
                text, cat, key = item
                if cat:
                    self.spans.append((self.n, self.n + len(text), text, cat, key or f"{cat}:{text}"))
                self.parts.append(text)
                self.n += len(text)
            else:  # a list of segments
                self.add(*item)
        return self

    @property
    def text(self) -> str:
        return "".join(self.parts)


def E(value: str, cat: str) -> Seg:
    return (value, cat, None)


def court_ruling(b: Builder, p: Profile, rng: random.Random) -> None:
    case = f"{rng.randrange(1000, 99999)}/{rng.randrange(5, 24):02d}"
    judge = [(p.other, "person_name", "other")]
    if rng.random() < 0.5:
        b.add(f"CASE OF {p.last.upper()} v. {rng.choice(['NORWAY', 'TURKEY', 'POLAND', 'FRANCE', 'ITALY'])}\n"
              f"(Application no. {case})\n\nJUDGMENT\n\nTHE FACTS\n\n", )
    else:
        b.add(f"In the matter of application no. {case}.\n\n")
    b.add("1. The applicant, ", p.title + " ", p.name(), ", is a", "n " if p.nationality[0] in "AEIOU" else " ",
          E(p.nationality, "nationality"), " national (", p.dob_segs(), ") who lives in ",
          E(p.city, "city"), ". ", p.he.capitalize(), " is a ", E(p.occupation, "occupation"), " by profession.\n")
    b.add("2. At the material time the applicant was employed by ", E(p.employer, "organisation"),
          " and was ", E(p.family, "family_status"), ". ", p.his.capitalize(), " registered address was ",
          p.address(rng), ".\n")
    if rng.random() < 0.6:
        b.add(f"3. On {rng.randrange(1, 28)} {rng.choice(MONTHS['en'])} {rng.randrange(2005, 2022)} the police "
              "stopped a vehicle with registration ", E(p.plate, "licence_plate"), ". ", p.name("first"),
              " denied that the car belonged to ", p.his, " brother.\n")
    else:
        b.add(f"3. On {rng.randrange(1, 28)} {rng.choice(MONTHS['en'])} {rng.randrange(2005, 2022)} the applicant "
              "lodged a complaint with the public prosecutor, which was dismissed.\n")
    b.add("4. The applicant, who describes ", "herself" if p.female else "himself", " as ",
          E(p.religion, "religion"), " and of ", E(p.ethnicity, "ethnicity"), " origin, was detained at ",
          E(p.prison, "organisation"), ". Medical records disclosed to the Court show that ", p.he,
          " has ", E(p.health, "health"), ".\n")
    if rng.random() < 0.5:
        b.add("5. The prosecutor relied on bank records of account ", E(p.iban, "iban"), " and on calls from ",
              E(p.phone, "phone"), ". ", p.id_label, " ", E(p.id_number, "id_number"),
              " was given in the indictment.\n")
    else:
        b.add("5. The identity of the applicant (passport ", E(p.passport, "id_number"),
              "; ", p.id_label, " ", E(p.id_number, "id_number"), ") is not disputed. ", p.title + " ",
              p.name("last"), " was ", E(p.age, "age"), " years old at the time.\n")
    b.add("\nFOR THESE REASONS, THE COURT UNANIMOUSLY holds that there has been a violation of Article ",
          str(rng.choice([3, 5, 6, 8, 10])), ".\n\n", rng.choice(["Judge ", "President: ", "SIGNED: "]), judge, "\n")


def clinical_note(b: Builder, p: Profile, rng: random.Random) -> None:
    header = rng.random() < 0.5
    if header:
        b.add("PATIENT: ", p.name("inv"), "\nMRN: ", E(p.mrn, "mrn"), "\nDOB: ", E(p.dob_text, "date_of_birth"),
              "\n", p.id_label, ": ", E(p.id_number, "id_number"), "\n\n")
    else:
        b.add("Clinic letter re: ", p.name(), ", MRN ", E(p.mrn, "mrn"), ", ", p.dob_segs(), ".\n\n")
    b.add(E(p.age, "age"), rng.choice(["-year-old ", " yo "]), rng.choice(["woman", "female"] if p.female else
                                                                      ["man", "male"]),
          ", ", E(p.occupation, "occupation"), ", ", E(p.family, "family_status"), ", presenting with fatigue.\n")
    b.add("PMH: ", E(p.health, "health"), rng.choice(["; ", ", ", " (diagnosed 2015); "]),
          "no known drug allergies.\n")
    b.add("Social: lives in ", E(p.city, "city"), " with ", p.his, " partner; ", E(p.religion, "religion"),
          "; works for ", E(p.employer, "organisation"), ".\n")
    if rng.random() < 0.5:
        b.add("Seen with interpreter (", E(p.nationality, "nationality"), "). ", p.name("first"),
              " reports poor sleep since the move.\n")
    b.add("Contact: ", E(p.phone, "phone"), rng.choice([" / ", ", e-mail "]), E(p.email, "email"), ".\n")
    b.add("Address: ", p.address(rng), "\n")
    b.add("Plan: bloods, review in 4 weeks. ", rng.choice(["Dr ", "Signed, Dr ", "--\nDr "]),
          [(p.other, "person_name", "other")], "\n")


def hr_letter(b: Builder, p: Profile, rng: random.Random) -> None:
    if rng.random() < 0.5:
        b.add("From: ", [(p.other, "person_name", "other")], " <hr@", p.email_domain, ">\nTo: ",
              E(p.email, "email"), "\nSubject: Your employment at ", E(p.employer, "organisation"), "\n\n")
        b.add("Dear ", p.name("first"), ",\n\n")
    else:
        b.add(E(p.employer, "organisation"), "\nHuman Resources\n\n", p.title + " ", p.name(), "\n",
              p.address(rng), "\n\nDear ", p.title + " ", p.name("last"), ",\n\n")
    b.add("Further to our meeting, we confirm that your contract as ", E(p.occupation, "occupation"),
          " will continue. Salary will be paid to IBAN ", E(p.iban, "iban"), ".\n")
    b.add("We have noted the sick leave for ", E(p.health, "health"), " and your request for time off for ",
          E(p.religion, "religion"), " holidays. Your personnel record lists you as ", E(p.family, "family_status"),
          ", ", p.dob_segs(), ".\n")
    if rng.random() < 0.6:
        b.add("Your account on the staff portal is ", E(p.user, "username"), " (temporary password: ",
              E(p.password, "password"), "); please change it. Your laptop (MAC ", E(p.mac, "mac"),
              ") was last seen from ", E(p.ip, "ip"), ".\n")
    else:
        b.add("For payroll we hold your ", p.id_label, " ", E(p.id_number, "id_number"),
              " and mobile ", E(p.phone, "phone"), ".\n")
    b.add("\nKind regards,\n\n", [(p.other.upper() if p.latin else p.other, "person_name", "other")],
          "\nHR Business Partner\n")


def cv_biography(b: Builder, p: Profile, rng: random.Random) -> None:
    if rng.random() < 0.5:
        b.add(p.name("caps"), "\n", E(p.occupation, "occupation"), " | ", E(p.city, "city"), " | ",
              E(p.phone, "phone"), " | ", E(p.email, "email"), "\n", E(p.url, "url"), " · ", E(p.handle, "handle"),
              "\n\nPROFILE\n")
        b.add(E(p.nationality, "nationality"), " ", E(p.occupation, "occupation"), " with ten years at ",
              E(p.employer, "organisation"), ". Date of birth: ", E(p.dob_text, "date_of_birth"), ". ",
              "Driving licence, own car (", E(p.plate, "licence_plate"), ").\n\nEXPERIENCE\n")
        b.add(f"{rng.randrange(2008, 2016)}-{rng.randrange(2017, 2024)}  ", E(p.employer, "organisation"),
              ", ", E(p.city, "city"), "\nREFERENCES\n", [(p.other, "person_name", "other")], ", ",
              E(p.phone2, "phone"), "\n")
    else:
        b.add(p.name(), " (", p.dob_segs(), ") is a", "n " if p.nationality[0] in "AEIOU" else " ",
              E(p.nationality, "nationality"), " ", E(p.occupation, "occupation"), " based in ", E(p.city, "city"),
              ". ", p.he.capitalize(), " grew up in a ", E(p.ethnicity, "ethnicity"), " family and is ",
              E(p.family, "family_status"), ". ")
        b.add("After working for ", E(p.employer, "organisation"), ", ", p.name("last"),
              " spoke publicly about living with ", E(p.health, "health"), ". ", p.name("first"),
              " posts as ", E(p.handle, "handle"), " and writes at ", E(p.url, "url"), ".\n")
        b.add("Contact for bookings: ", E(p.obf, "obfuscated_email"), " or ", E(p.phone, "phone"), ".\n")


def support_chat(b: Builder, p: Profile, rng: random.Random) -> None:
    start = rng.randrange(8 * 60, 20 * 60)
    clock = iter(f"[{(start + k) // 60:02d}:{(start + k) % 60:02d}] " for k in range(0, 40, 2))
    who = p.name("lower") if rng.random() < 0.4 else p.name("first")
    agent = [(p.agent, "person_name", "agent")]
    b.add(next(clock), agent, ": Hi, thanks for contacting support. Can I have your name and account?\n")
    b.add(next(clock), who, ": hi its ", p.name("lower") if p.latin else p.name(), ", login is ",
          E(p.user, "username"), "\n")
    b.add(next(clock), agent, ": Thanks. For security, confirm your date of birth and postcode?\n")
    b.add(next(clock), who, ": ", E(p.dob_text, "date_of_birth"), ", ", E(p.postcode, "postcode"), "\n")
    r = rng.random()
    if r < 0.35:
        b.add(next(clock), who, ": the card ", E(p.card, "credit_card"),
              " was charged twice. you can email me at ", E(p.obf, "obfuscated_email"), "\n")
    elif r < 0.7:
        b.add(next(clock), who, ": i cant log in from ", E(p.ip, "ip"), " or ", E(p.ipv6, "ipv6"),
              ", my password is ", E(p.password, "password"), " if that helps\n")
    else:
        one_line = [(t if c else t.replace("\n", ", "), c, k) for t, c, k in p.address(rng)]
        b.add(next(clock), who, ": please send the parcel to ", one_line, " not the old one. call ",
              E(p.phone, "phone"), "\n")
    b.add(next(clock), agent, ": Please never share your password or card number here. I've updated ",
          "your details, ", p.name("first"), ".\n")
    if rng.random() < 0.4:
        b.add(next(clock), who, ": ok. also my old handle ", E(p.handle, "handle"),
              " still shows on the forum, and I'm a ", E(p.occupation, "occupation"), " so i need it gone\n")


def record(b: Builder, p: Profile, rng: random.Random) -> None:
    fields = [("Name", p.name(rng.choice(["full", "inv"]))), ("Date of birth", [E(p.dob_text, "date_of_birth")]),
              (p.id_label.rstrip(":"), [E(p.id_number, "id_number")]), ("Passport", [E(p.passport, "id_number")]),
              ("Phone", [E(p.phone, "phone")]), ("Email", [E(p.email, "email")]), ("Address", p.address(rng)),
              ("Occupation", [E(p.occupation, "occupation")]), ("Employer", [E(p.employer, "organisation")]),
              ("Nationality", [E(p.nationality, "nationality")]), ("IBAN", [E(p.iban, "iban")]),
              ("Vehicle", [E(p.plate, "licence_plate")]), ("Marital status", [E(p.family, "family_status")]),
              ("Last login IP", [E(p.ip, "ip")]), ("user id", [E(p.user, "username")])]
    chosen = rng.sample(fields, rng.randrange(7, len(fields)))
    if rng.random() < 0.5:
        sep = rng.choice([": ", " = ", "\t"])
        for k, v in chosen:
            b.add(k, sep, [(s[0].replace("\n", ", "), s[1], s[2]) for s in v], "\n")
    else:
        b.add(";".join(k for k, _ in chosen), "\n")
        for i, (_, v) in enumerate(chosen):
            b.add(";" if i else "", [(s[0].replace("\n", " "), s[1], s[2]) for s in v])
        b.add("\n")


TEMPLATES = {"court_ruling": court_ruling, "clinical_note": clinical_note, "hr_letter": hr_letter,
             "cv_biography": cv_biography, "support_chat": support_chat, "record": record}


# -- the set ----------------------------------------------------------------------

def to_tab(doc_id: str, b: Builder, loc: str, domain: str) -> dict:
    text = b.text
    mentions, entity_ids = [], {}
    for i, (start, end, span, cat, key) in enumerate(sorted(b.spans, key=lambda s: (s[0], s[1]))):
        assert text[start:end] == span, (doc_id, start, end, span)
        etype, itype = CATEGORIES[cat]
        eid = entity_ids.setdefault(key, f"{doc_id}_e{len(entity_ids) + 1}")
        mentions.append({"entity_type": etype, "entity_mention_id": f"{doc_id}_em{i + 1}", "start_offset": start,
                         "end_offset": end, "span_text": span, "edit_type": "check", "identifier_type": itype,
                         "entity_id": eid, "confidential_status": "NOT_CONFIDENTIAL", "category": cat})
    return {"doc_id": doc_id, "text": text, "dataset_type": "multidomain",
            "meta": {"locale": loc, "domain": domain}, "quality_checked": [ANNOTATOR],
            "task": "Task: Annotate the document to anonymise its person",
            "annotations": {ANNOTATOR: {"entity_mentions": mentions}}}


def generate(n: int = 1000, seed: int = DEFAULT_SEED) -> List[dict]:
    """``n`` documents; locales and domains cycle so that every pair occurs."""
    fakers = {loc: Faker(loc) for loc in LOCALES}
    for fk in fakers.values():  # it_IT builds its city list from a set: its order changes with the hash seed
        for provider in fk.providers:
            if isinstance(getattr(provider, "cities", None), list):
                provider.cities = sorted(provider.cities)
    fk_en = Faker("en_US")
    docs = []
    for i in range(n):
        rng = random.Random(f"{seed}:{i}")
        loc = LOCALES[i % len(LOCALES)]
        domain = DOMAINS[(i // len(LOCALES) + i) % len(DOMAINS)]
        fakers[loc].seed_instance(rng.getrandbits(32))
        fk_en.seed_instance(rng.getrandbits(32))
        p = Profile(loc, fakers[loc], fk_en, rng)
        b = Builder()
        TEMPLATES[domain](b, p, rng)
        docs.append(to_tab(f"md-{seed}-{i:05d}", b, loc, domain))
    return docs


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    docs = generate(args.n, args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(docs, ensure_ascii=False, indent=1), encoding="utf-8")
    n_m = sum(len(d["annotations"][ANNOTATOR]["entity_mentions"]) for d in docs)
    print(f"{len(docs)} documents, {n_m} mentions -> {args.out}")


if __name__ == "__main__":
    main()
