"""Padding for the re-identification evaluation: synthetic biographies of *other* people, Wikipedia-body shaped.

    python benchmarks/padding_bios/generate.py [--n 20000] [--seed 1234] [--out out/wiki553_padding.jsonl]

The attackers of benchmarks/wiki_reid_eval.py rank the 548 public Wikipedia bodies of Wiki553 for a sanitized
abstract; with ``--pad FILE`` the records written here join that background, so that a sanitized abstract has to
stand out among ~20,000 more people, not 548. Each record is one invented person of one Faker locale (names,
towns and companies of that locale: en_US, en_GB, en_IE, en_AU, de_DE, de_AT, fr_FR, es_ES, it_IT, nl_NL, pl_PL,
sv_SE, da_DK, no_NO, fi_FI, cs_CZ, hu_HU, ro_RO, pt_PT, pt_BR, tr_TR) and one occupation (footballer, politician,
musician, scientist, actor, writer, military officer, painter, athlete, businessperson, academic, clergy,
journalist, architect, judge), with a birth date and place, a nationality, clubs / parties / bands /
universities / regiments / awards, career years, a personal life and, for the older ones, a death. The text is
shaped like the background's bodies (which start after the lead): section headings inline (``Early life``,
``Club career``, ``Personal life`` ...), paragraphs of the same vocabulary of biographies, 150 to 600 words, one
line of JSON ``{"id": "pad-000001", "text": " Early life ..."}`` per person.

Deterministic for ``--seed`` and ``--n``: one ``random.Random(seed)`` draws every choice and each locale's Faker is
seeded from it (same seed, same Faker version: same bytes; the SHA-256 of the output is printed). ``make padding``
writes ``out/wiki553_padding.jsonl`` with the default seed (1234). Nothing here reads Wiki553.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from faker import Faker

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_OUT = ROOT / "out" / "wiki553_padding.jsonl"
DEFAULT_SEED = 1234
DEFAULT_N = 20000
MIN_WORDS, MAX_WORDS = 150, 600
THIS_YEAR = 2024  # no event after it
OTHER = ("Later life", "Legacy", "Other activities", "Public life", "")
HONOURS = ("Honours", "Awards", "Honours and awards")
#: locales whose Faker words are the language's own (the others' are Latin lorem ipsum)
NATIVE_LOREM = ("de_DE", "de_AT", "fr_FR", "es_ES", "it_IT", "nl_NL", "pl_PL", "da_DK", "cs_CZ")
# fmt: off
TITLE_WORDS = """
light shadow river mountain winter summer autumn spring night morning evening road journey house garden city
island sea harbour storm fire water stone glass iron silver golden red blue black white green silent last first
lost hidden secret distant broken long little great old new wild quiet dark bright northern southern empire
kingdom republic war peace love memory dream song dance heart soul mind body blood bread salt wine honey field
forest valley bridge tower wall gate window door mirror letter book story voice echo time year day hour moment
century generation family father mother brother sister child stranger friend enemy king queen soldier hunter
farmer sailor widow bride prophet saint angel devil ghost wolf fox bird horse lion eagle raven crow rose lily
orchard vineyard harvest frontier border exile return departure arrival homecoming farewell promise truth lie
justice freedom power money fortune glory honour shame fear hope faith doubt silence noise music rhythm colour
portrait landscape study theory history origins structure analysis principles elements foundations methods
dynamics economics politics society culture language law nature science evolution revolution reform crisis
""".split()
# fmt: on
CAUSES = (
    "women's suffrage",
    "temperance",
    "nuclear disarmament",
    "European unity",
    "workers' rights",
    "the protection of the environment",
    "animal welfare",
    "the abolition of the death penalty",
)
YEAR = re.compile(r"\b(1[5-9]\d\d|2\d\d\d)\b")
# war -> first and last year
WARS = (
    ("Franco-Prussian War", 1870, 1871),
    ("Boer War", 1899, 1902),
    ("Balkan Wars", 1912, 1913),
    ("First World War", 1914, 1918),
    ("Spanish Civil War", 1936, 1939),
    ("Winter War", 1939, 1940),
    ("Second World War", 1939, 1945),
    ("Korean War", 1950, 1953),
    ("Suez Crisis", 1956, 1957),
    ("Gulf War", 1990, 1991),
    ("Bosnian War", 1992, 1995),
    ("Kosovo War", 1998, 1999),
    ("war in Afghanistan", 2001, 2021),
    ("Iraq War", 2003, 2011),
)

# locale -> (country, nationality, weight)
LOCALES = {
    "en_US": ("the United States", "American", 6),
    "en_GB": ("England", "English", 4),
    "en_IE": ("Ireland", "Irish", 1),
    "en_AU": ("Australia", "Australian", 2),
    "de_DE": ("Germany", "German", 4),
    "de_AT": ("Austria", "Austrian", 1),
    "fr_FR": ("France", "French", 4),
    "es_ES": ("Spain", "Spanish", 3),
    "it_IT": ("Italy", "Italian", 3),
    "nl_NL": ("the Netherlands", "Dutch", 2),
    "pl_PL": ("Poland", "Polish", 2),
    "sv_SE": ("Sweden", "Swedish", 2),
    "da_DK": ("Denmark", "Danish", 1),
    "no_NO": ("Norway", "Norwegian", 1),
    "fi_FI": ("Finland", "Finnish", 1),
    "cs_CZ": ("Czechoslovakia", "Czech", 1),
    "hu_HU": ("Hungary", "Hungarian", 1),
    "ro_RO": ("Romania", "Romanian", 1),
    "pt_PT": ("Portugal", "Portuguese", 1),
    "pt_BR": ("Brazil", "Brazilian", 2),
    "tr_TR": ("Turkey", "Turkish", 2),
}

# occupation -> weight (roughly Wikipedia's mix of biographies)
OCCUPATIONS = {
    "footballer": 12,
    "politician": 12,
    "musician": 9,
    "scientist": 7,
    "actor": 8,
    "writer": 7,
    "military": 6,
    "painter": 4,
    "athlete": 8,
    "business": 5,
    "academic": 6,
    "clergy": 3,
    "journalist": 4,
    "architect": 3,
    "judge": 3,
}

MONTHS = "January February March April May June July August September October November December".split()

SUBJECTS = (
    "law",
    "medicine",
    "history",
    "philosophy",
    "economics",
    "chemistry",
    "physics",
    "mathematics",
    "engineering",
    "architecture",
    "classics",
    "theology",
    "political science",
    "music",
    "fine arts",
    "literature",
    "biology",
    "geology",
    "agriculture",
    "journalism",
    "sociology",
    "modern languages",
    "civil engineering",
    "astronomy",
)
PARENT_JOBS = (
    "farmer",
    "schoolteacher",
    "merchant",
    "railway worker",
    "Lutheran pastor",
    "physician",
    "lawyer",
    "miner",
    "carpenter",
    "shopkeeper",
    "civil servant",
    "factory worker",
    "seamstress",
    "nurse",
    "baker",
    "fisherman",
    "textile manufacturer",
    "army officer",
    "bank clerk",
    "landowner",
    "tailor",
    "printer",
    "postman",
    "engineer",
)
SCHOOLS = (
    "grammar school",
    "gymnasium",
    "lycée",
    "local secondary school",
    "Jesuit college",
    "boarding school",
    "technical school",
    "state high school",
    "conservatory",
    "cathedral school",
)


@dataclass
class Person:
    """One invented person and what the sentences draw on."""

    fake: Faker
    locale: str
    country: str
    nationality: str
    occupation: str
    male: bool
    first: str
    last: str
    born: tuple[int, int, int]
    birthplace: str
    us_dates: bool
    died: tuple[int, int, int] | None = None
    towns: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{self.first} {self.last}"

    @property
    def he(self) -> str:
        return "he" if self.male else "she"

    @property
    def He(self) -> str:
        return "He" if self.male else "She"

    @property
    def his(self) -> str:
        return "his" if self.male else "her"

    @property
    def His(self) -> str:
        return "His" if self.male else "Her"

    @property
    def him(self) -> str:
        return "him" if self.male else "her"

    @property
    def son(self) -> str:
        return "son" if self.male else "daughter"

    def town(self) -> str:
        """A town of the person's locale (a new one three times in four)."""
        if self.towns and self.fake.random.random() < 0.25:
            return self.fake.random.choice(self.towns)
        t = self.fake.city()
        self.towns.append(t)
        return t


class Writer:
    """Draws one biography: sections of sentences, then cut to a target length."""

    def __init__(self, rng: random.Random, fakers: dict[str, Faker]):
        self.rng = rng
        self.fakers = fakers
        self.locales = list(LOCALES)
        self.locale_weights = [LOCALES[loc][2] for loc in self.locales]
        self.occupations = list(OCCUPATIONS)
        self.occupation_weights = list(OCCUPATIONS.values())
        self.native = [fakers[loc] for loc in NATIVE_LOREM if loc in fakers]

    # -- small draws ---------------------------------------------------------------------------------

    def pick(self, seq):
        return seq[self.rng.randrange(len(seq))]

    def date(self, p: Person, year: int) -> str:
        month, day = self.rng.randrange(12), self.rng.randint(1, 28)
        return f"{MONTHS[month]} {day}, {year}" if p.us_dates else f"{day} {MONTHS[month]} {year}"

    def month_year(self, year: int) -> str:
        return f"{self.pick(MONTHS)} {year}"

    def other_person(self, p: Person, same_locale: bool = True) -> str:
        fake = p.fake if same_locale else self.fakers[self.pick(self.locales)]
        first = fake.first_name_male() if self.rng.random() < 0.7 else fake.first_name_female()
        return f"{first} {fake.last_name()}"

    def foreign(self, p: Person) -> tuple[Faker, str, str]:
        """Another locale's Faker, country and nationality."""
        loc = self.foreign_locale(p)
        return self.fakers[loc], LOCALES[loc][0], LOCALES[loc][1]

    def foreign_locale(self, p: Person) -> str:
        return self.pick([loc for loc in self.locales if loc != p.locale])

    def university(self, fake: Faker) -> str:
        town = fake.city()
        return self.pick(
            (
                f"University of {town}",
                f"{town} University",
                f"Technical University of {town}",
                f"{fake.last_name()} College",
                f"{town} Institute of Technology",
                f"Royal Academy of {town}",
                f"{town} State University",
                f"Free University of {town}",
            )
        )

    def title(self, fake: Faker) -> str:
        """A title of a work (a book, film, album, painting): English words, or the locale's own words."""
        n = self.rng.randint(1, 4)
        if fake in self.native and self.rng.random() < 0.3:
            words = fake.words(n)
        else:
            words = [self.pick(TITLE_WORDS) for _ in range(n)]
        t = " ".join(w.capitalize() for w in words)
        return self.pick((t, f"The {t}", f"{t} of {fake.city()}", f"A {t}", t))

    def topic(self) -> str:
        """A subject of a thesis or a prize."""
        return " ".join(self.pick(TITLE_WORDS) for _ in range(self.rng.randint(2, 3)))

    def award(self, kind: str, p: Person) -> str:
        surname = p.fake.last_name()
        pools = {
            "science": (
                "Fellow of the Royal Society",
                f"{surname} Medal",
                "Wolf Prize",
                "Max Planck Medal",
                f"{surname} Prize for Chemistry",
                "Copley Medal",
                "Balzan Prize",
                "Humboldt Research Award",
            ),
            "arts": (
                f"{surname} Prize",
                "Golden Lion",
                "Golden Bear",
                "Palme d'Or",
                "European Film Award",
                f"{p.nationality} Film Award for Best Actor",
                "Critics' Circle Award",
                "Laurence Olivier Award",
            ),
            "music": (
                "Grammy Award",
                f"{p.nationality} Music Award",
                "Echo Award",
                "Brit Award",
                "Edison Award",
                "Polar Music Prize",
                "gold record",
                "platinum record",
            ),
            "book": (
                f"{surname} Prize",
                "Booker Prize",
                "Prix Goncourt",
                "Nobel Prize in Literature",
                f"{p.nationality} Book Award",
                "Pulitzer Prize for Fiction",
                "Strega Prize",
                "Nike Award",
            ),
            "state": (
                f"Order of Merit of {p.country}",
                "Legion of Honour",
                "Order of the British Empire",
                "Grand Cross of the Order of Merit",
                f"Order of the {p.fake.last_name()} Star",
                "Order of the Polar Star",
                "Knight's Cross",
                "Order of Saint Olav",
            ),
        }
        return self.pick(pools[kind])

    def club(self, fake: Faker, locale: str) -> str:
        town = fake.city()
        lang = locale.split("_")[0]
        forms = {
            "en": ("{t} United", "{t} Town", "{t} City", "{t} Rovers", "{t} Athletic", "{t} Wanderers", "{t} FC"),
            "de": ("FC {t}", "SV {t}", "VfB {t}", "SC {t}", "Sportfreunde {t}", "TSV {t}", "FSV {t}"),
            "fr": ("AS {t}", "FC {t}", "Stade {t}", "Olympique {t}", "US {t}", "SC {t}"),
            "es": ("Real {t}", "CD {t}", "Atlético {t}", "UD {t}", "CF {t}", "Racing {t}"),
            "it": ("AC {t}", "US {t}", "{t} Calcio", "SS {t}", "AS {t}", "Virtus {t}"),
            "nl": ("FC {t}", "SC {t}", "{t} Boys", "VV {t}", "Go Ahead {t}"),
            "pl": ("Polonia {t}", "Górnik {t}", "Wisła {t}", "Lechia {t}", "KS {t}", "Stal {t}"),
            "sv": ("{t} IF", "IFK {t}", "{t} BK", "{t} FF", "GIF {t}"),
            "da": ("{t} BK", "{t} IF", "B 1909 {t}", "{t} FC"),
            "no": ("{t} IL", "{t} FK", "{t} BK", "SK {t}"),
            "fi": ("{t} PS", "FC {t}", "{t} JK", "IFK {t}"),
            "cs": ("SK {t}", "FK {t}", "Slavoj {t}", "Baník {t}", "Dukla {t}"),
            "hu": ("{t} FC", "{t} SE", "Vasas {t}", "Haladás {t}"),
            "ro": ("FC {t}", "CS {t}", "Dinamo {t}", "Universitatea {t}", "Rapid {t}"),
            "pt": ("Sporting {t}", "SC {t}", "Vitória {t}", "Atlético {t}", "{t} FC", "Clube {t}"),
            "tr": ("{t}spor", "{t} Belediyespor", "{t} Gençlerbirliği", "{t} İdmanyurdu"),
        }
        return self.pick(forms.get(lang, forms["en"])).format(t=town)

    def party(self, p: Person) -> str:
        return self.pick(
            (
                f"{p.nationality} Social Democratic Party",
                "Liberal Party",
                "Conservative Party",
                "Christian Democrats",
                "Green Party",
                "Labour Party",
                f"People's Party of {p.country.removeprefix('the ')}",
                "Centre Party",
                "Socialist Party",
                "National Liberal Party",
                "Democratic Alliance",
                "Agrarian Union",
                "Radical Party",
                "Communist Party",
                "Progress Party",
                "Republican Party",
                "Democratic Party",
                "Farmers' League",
            )
        )

    # -- the person ----------------------------------------------------------------------------------

    def person(self) -> Person:
        locale = self.rng.choices(self.locales, self.locale_weights)[0]
        country, nationality, _ = LOCALES[locale]
        fake = self.fakers[locale]
        occupation = self.rng.choices(self.occupations, self.occupation_weights)[0]
        female_share = {"footballer": 0.08, "military": 0.03, "clergy": 0.05, "judge": 0.3}.get(occupation, 0.35)
        male = self.rng.random() >= female_share
        first = fake.first_name_male() if male else fake.first_name_female()
        year = self.rng.randint(1840, 2001)
        born = (year, self.rng.randint(1, 12), self.rng.randint(1, 28))
        p = Person(
            fake=fake,
            locale=locale,
            country=country,
            nationality=nationality,
            occupation=occupation,
            male=male,
            first=first,
            last=fake.last_name(),
            born=born,
            birthplace=fake.city(),
            us_dates=locale == "en_US" or self.rng.random() < 0.15,
        )
        died = year + self.rng.randint(40, 98)
        if died <= 2024 and self.rng.random() < 0.85:
            p.died = (died, self.rng.randint(1, 12), self.rng.randint(1, 28))
        return p

    def full_date(self, p: Person, ymd: tuple[int, int, int]) -> str:
        y, m, d = ymd
        return f"{MONTHS[m - 1]} {d}, {y}" if p.us_dates else f"{d} {MONTHS[m - 1]} {y}"

    # -- sections ------------------------------------------------------------------------------------

    def early_life(self, p: Person) -> list[str]:
        r, y0 = self.rng, p.born[0]
        out = [
            self.pick(
                (
                    f"{p.name} was born on {self.full_date(p, p.born)} in {p.birthplace}, {p.country}, the "
                    f"{self.pick(('eldest', 'youngest', 'second', 'only', 'third'))} {p.son} of {a(self.pick(PARENT_JOBS))} "
                    f"and {a(self.pick(PARENT_JOBS))}.",
                    f"{p.first} {p.last} was born in {p.birthplace} on {self.full_date(p, p.born)}. {p.His} father, "
                    f"{p.fake.first_name_male()} {p.last}, was {a(self.pick(PARENT_JOBS))}, and {p.his} mother "
                    f"{p.fake.first_name_female()} worked as {a(self.pick(PARENT_JOBS))}.",
                    f"{p.last} was born in {p.birthplace} in {y0} and grew up in {p.town()}, where {p.his} family had "
                    f"moved when {p.he} was {r.randint(2, 9)} years old.",
                )
            )
        ]
        school = self.pick(SCHOOLS)
        out.append(
            self.pick(
                (
                    f"{p.He} attended the {school} in {p.town()} and was a keen {self.pick(('reader', 'footballer', 'chess player', 'musician', 'swimmer', 'debater'))} as a child.",
                    f"After finishing the {school} in {y0 + r.randint(16, 19)}, {p.he} moved to {p.town()}.",
                    f"{p.He} had {r.randint(1, 6)} siblings and was educated at the {school} in {p.birthplace}.",
                    f"The family moved to {p.town()} in {y0 + r.randint(3, 12)}, where {p.he} went to the {school}.",
                )
            )
        )
        if p.occupation not in ("footballer", "athlete") or r.random() < 0.3:
            uni = self.university(p.fake)
            out.append(
                self.pick(
                    (
                        f"{p.He} studied {self.pick(SUBJECTS)} at the {uni} from {y0 + 18} to {y0 + r.randint(21, 25)}.",
                        f"{p.He} went on to read {self.pick(SUBJECTS)} at the {uni}, graduating in {y0 + r.randint(21, 24)}.",
                        f"In {y0 + r.randint(17, 20)} {p.he} enrolled at the {uni} to study {self.pick(SUBJECTS)}, but "
                        f"left without a degree after {r.randint(2, 3)} years.",
                    )
                )
            )
        if r.random() < 0.4:
            out.append(
                self.pick(
                    (
                        f"During {p.his} youth {p.he} spent summers with {p.his} grandparents in {p.town()}.",
                        f"{p.His} uncle, {p.fake.first_name_male()} {p.fake.last_name()}, introduced {p.him} to {self.pick(('music', 'politics', 'painting', 'sport', 'science', 'the theatre'))}.",
                        f"As a student {p.he} was active in the {self.pick(('student union', 'debating society', 'rowing club', 'choir', 'drama society'))}.",
                    )
                )
            )
        return out

    def career(self, p: Person) -> list[tuple[str, list[str]]]:
        return getattr(self, f"career_{p.occupation}")(p)

    def career_footballer(self, p: Person) -> list[tuple[str, list[str]]]:
        r = self.rng
        y = p.born[0] + r.randint(16, 19)
        position = self.pick(
            (
                "goalkeeper",
                "centre-back",
                "full-back",
                "defensive midfielder",
                "winger",
                "attacking midfielder",
                "striker",
                "forward",
                "left-back",
                "right winger",
            )
        )
        clubs = [self.club(p.fake, p.locale) for _ in range(r.randint(2, 4))]
        floc = self.foreign_locale(p)
        fcountry = LOCALES[floc][0]
        abroad = self.club(self.fakers[floc], floc)
        club_s = [
            f"{p.last} began {p.his} youth career at {clubs[0]} before joining the academy of {clubs[1]} at the age of {r.randint(12, 16)}.",
            f"{p.He} made {p.his} senior debut for {clubs[1]} on {self.date(p, y)} in a {r.randint(0, 4)}–{r.randint(0, 3)} "
            f"{self.pick(('win', 'defeat', 'draw'))} against {self.club(p.fake, p.locale)}.",
            f"Playing as a {position}, {p.he} scored {r.randint(0, 25)} goals in {r.randint(20, 160)} league appearances "
            f"for the club and helped it win promotion to the {self.pick(('top division', 'first division', 'second tier', 'national league'))} in {y + r.randint(1, 4)}.",
            f"In {self.month_year(y + r.randint(3, 6))}, {p.last} signed a {r.randint(2, 5)}-year contract with {clubs[-1]} "
            f"for a reported fee of {r.randint(1, 40)} {self.pick(('million euros', 'million pounds', 'thousand pounds', 'million marks'))}.",
            f"With {clubs[-1]} {p.he} won the national championship in {y + r.randint(4, 9)} and the {p.nationality} Cup "
            f"in {y + r.randint(4, 10)}, scoring in the final against {self.club(p.fake, p.locale)}.",
            f"{p.He} moved abroad in {y + r.randint(6, 11)} to join {abroad} in {fcountry}, where {p.he} spent "
            f"{r.randint(1, 5)} seasons and made {r.randint(15, 120)} appearances.",
            f"A {self.pick(('serious knee injury', 'broken leg', 'recurring hamstring injury', 'ankle injury'))} kept "
            f"{p.him} out for most of the {y + r.randint(5, 12)}–{str(y + r.randint(6, 13))[-2:]} season.",
            f"{p.He} was loaned to {self.club(p.fake, p.locale)} for the second half of the season, scoring "
            f"{r.randint(1, 9)} times in {r.randint(8, 18)} matches.",
        ]
        caps = r.randint(1, 90)
        intl = [
            f"{p.last} earned {caps} caps for the {p.nationality} national team between {y + r.randint(2, 5)} and "
            f"{y + r.randint(6, 14)}, scoring {r.randint(0, caps // 3 + 1)} goals.",
            f"{p.He} was part of the squad at the {self.pick(('FIFA World Cup', 'UEFA European Championship', 'Summer Olympics'))} "
            f"in {y + r.randint(3, 12)}, playing in {r.randint(1, 6)} matches.",
            f"{p.He} had earlier represented {p.country} at under-{self.pick(('17', '19', '21'))} level.",
        ]
        later = [
            f"After retiring as a player in {y + r.randint(12, 19)}, {p.he} became assistant manager at "
            f"{self.club(p.fake, p.locale)} and later managed {self.club(p.fake, p.locale)} for {r.randint(1, 6)} seasons.",
            f"{p.He} later worked as a football pundit for {p.fake.company()} and ran a youth academy in {p.town()}.",
            f"{p.He} obtained {p.his} UEFA Pro Licence in {y + r.randint(15, 22)}.",
        ]
        return [
            (self.pick(("Club career", "Career", "Playing career")), club_s),
            ("International career", intl),
            (self.pick(("Coaching career", "Later career", "After football")), later),
        ]

    def career_politician(self, p: Person) -> list[tuple[str, list[str]]]:
        r = self.rng
        y = p.born[0] + r.randint(25, 40)
        party = self.party(p)
        seat = p.town()
        ministry = self.pick(
            (
                "Finance",
                "Agriculture",
                "Education",
                "Health",
                "the Interior",
                "Defence",
                "Foreign Affairs",
                "Justice",
                "Labour",
                "Transport",
                "Culture",
                "Trade and Industry",
            )
        )
        s = [
            f"{p.last} joined the {party} in {y - r.randint(2, 8)} and worked as {a(self.pick(PARENT_JOBS))} before entering politics.",
            f"{p.He} was elected to the municipal council of {p.town()} in {y - r.randint(1, 5)} and served as its deputy mayor.",
            f"At the {y} general election {p.he} was elected to parliament for {seat}, winning the seat with "
            f"{r.randint(35, 62)} per cent of the vote.",
            f"{p.He} was re-elected in {y + 4} and {y + 8}, and sat on the committee on {self.pick(('foreign affairs', 'finance', 'education', 'defence', 'European affairs', 'the environment', 'social affairs'))}.",
            f"In {self.month_year(y + r.randint(3, 12))} {p.he} was appointed Minister of {ministry} in the cabinet of "
            f"{self.other_person(p)}, an office {p.he} held until {y + r.randint(13, 18)}.",
            f"As minister {p.he} introduced a reform of {self.pick(('pensions', 'the tax code', 'secondary education', 'the railways', 'local government', 'health insurance', 'agricultural subsidies'))}, "
            f"which passed with the support of the opposition.",
            f"{p.He} served as mayor of {p.town()} from {y + r.randint(10, 16)} to {y + r.randint(17, 24)}.",
            f"{p.He} was the {party}'s candidate for the presidency in {y + r.randint(12, 25)}, finishing "
            f"{self.pick(('second', 'third', 'fourth'))} with {r.randint(5, 40)} per cent.",
            f"{p.last} led the party group in parliament from {y + r.randint(6, 12)} and was known as a "
            f"{self.pick(('moderate', 'reformer', 'critic of the government', 'skilled negotiator', 'strong supporter of European integration'))}.",
            f"{p.He} lost {p.his} seat at the {y + r.randint(14, 22)} election and retired from politics.",
            f"In {y + r.randint(16, 26)} {p.he} was appointed ambassador to {self.foreign(p)[1]}.",
        ]
        return [(self.pick(("Political career", "Career", "Early political career")), s)]

    def career_musician(self, p: Person) -> list[tuple[str, list[str]]]:
        r = self.rng
        y = p.born[0] + r.randint(16, 24)
        instrument = self.pick(
            (
                "guitar",
                "piano",
                "drums",
                "bass guitar",
                "violin",
                "saxophone",
                "trumpet",
                "cello",
                "keyboards",
                "vocals",
                "organ",
                "clarinet",
            )
        )
        genre = self.pick(
            (
                "rock",
                "jazz",
                "folk",
                "pop",
                "blues",
                "punk",
                "heavy metal",
                "electronic music",
                "classical music",
                "country music",
                "soul",
                "indie rock",
                "chanson",
                "hip hop",
            )
        )
        band = self.pick(("The {} {}", "{} {}", "The {}s")).format(*(self.pick(TITLE_WORDS).capitalize() for _ in "ab"))
        label = f"{p.fake.last_name()} Records"
        s = [
            f"{p.last} learned the {instrument} as a child and began playing {genre} in the clubs of {p.town()}.",
            f"In {y} {p.he} co-founded the band {band} with {self.other_person(p)} and {self.other_person(p)}.",
            f"The band signed with {label} in {y + r.randint(1, 3)} and released its debut album, {self.title(p.fake)}, "
            f"the following year; it reached number {r.randint(1, 40)} on the {p.nationality} charts.",
            f"Their second album, {self.title(p.fake)} ({y + r.randint(3, 6)}), included the single "
            f'"{self.title(p.fake)}", which became a hit across Europe.',
            f"{p.He} left {band} in {y + r.randint(5, 12)} to pursue a solo career and released {r.randint(2, 14)} albums "
            f"under {p.his} own name.",
            f"{p.He} toured {self.pick(('Europe', 'North America', 'Japan', 'Scandinavia', 'South America'))} in "
            f"{y + r.randint(4, 15)} as the opening act for {self.other_person(p, False)}.",
            f"{p.His} album {self.title(p.fake)} won {a(self.award('music', p))} in {y + r.randint(6, 20)}.",
            f"{p.He} also composed music for {r.randint(2, 20)} films and taught {instrument} at the conservatory of {p.town()}.",
            f"From {y + r.randint(10, 20)} {p.he} played {instrument} in the orchestra of {p.town()}.",
        ]
        disco = [f"{self.title(p.fake)} ({y + i + r.randint(0, 2)})" for i in range(0, r.randint(6, 24), 3)]
        return [
            (self.pick(("Career", "Musical career", "Music career")), s),
            ("Discography", [", ".join(disco) + "."]),
        ]

    def career_scientist(self, p: Person) -> list[tuple[str, list[str]]]:
        r = self.rng
        y = p.born[0] + r.randint(24, 30)
        fieldname = self.pick(
            (
                "organic chemistry",
                "particle physics",
                "genetics",
                "microbiology",
                "astronomy",
                "mathematics",
                "geology",
                "neuroscience",
                "biochemistry",
                "crystallography",
                "oceanography",
                "botany",
                "theoretical physics",
                "pharmacology",
                "metallurgy",
            )
        )
        ffake, fcountry, _ = self.foreign(p)
        s = [
            f"{p.last} received {p.his} doctorate in {fieldname} from the {self.university(p.fake)} in {y} under the "
            f"supervision of {self.other_person(p)}, with a thesis on {self.topic()}.",
            f"{p.He} then spent {r.randint(1, 4)} years as a postdoctoral researcher at the {self.university(ffake)} in {fcountry}.",
            f"In {y + r.randint(3, 8)} {p.he} was appointed professor of {fieldname} at the {self.university(p.fake)}, "
            f"where {p.he} remained until {p.his} retirement in {y + r.randint(30, 40)}.",
            f"{p.His} research concerned {self.pick(('the structure of proteins', 'cosmic rays', 'the synthesis of dyes', 'soil bacteria', 'the theory of numbers', 'plate tectonics', 'the genetics of yeast', 'superconductivity', 'catalysis', 'the chemistry of the atmosphere'))}, "
            f"and {p.he} published more than {r.randint(50, 400)} papers.",
            f"{p.He} directed the {p.fake.last_name()} Institute for {fieldname.capitalize()} from {y + r.randint(10, 20)} "
            f"to {y + r.randint(21, 30)}.",
            f"{p.He} was elected a member of the {p.nationality} Academy of Sciences in {y + r.randint(10, 25)}.",
            f"{p.He} received the {self.award('science', p)} in {y + r.randint(12, 30)} for {p.his} work on {self.topic()}.",
            f"Among {p.his} doctoral students were {self.other_person(p)} and {self.other_person(p, False)}.",
            f"The {p.last} reaction, which {p.he} described in {y + r.randint(4, 15)}, is named after {p.him}.",
        ]
        return [(self.pick(("Scientific career", "Career", "Research")), s)]

    def career_actor(self, p: Person) -> list[tuple[str, list[str]]]:
        r = self.rng
        y = p.born[0] + r.randint(18, 26)
        s = [
            f"{p.last} trained at the drama school of {p.town()} and joined the ensemble of the {p.town()} "
            f"{self.pick(('State Theatre', 'Playhouse', 'Repertory Theatre', 'National Theatre', 'City Theatre'))} in {y}.",
            f"{p.He} made {p.his} film debut in {self.title(p.fake)} ({y + r.randint(1, 4)}), directed by {self.other_person(p)}.",
            f"{p.His} breakthrough came with the role of {p.fake.first_name()} in the television series "
            f"{self.title(p.fake)}, which ran for {r.randint(2, 9)} seasons from {y + r.randint(3, 10)}.",
            f"{p.He} appeared in more than {r.randint(20, 120)} films, among them {self.title(p.fake)} ({y + r.randint(5, 20)}) "
            f"and {self.title(p.fake)} ({y + r.randint(8, 30)}).",
            f"For {p.his} performance in {self.title(p.fake)} {p.he} won the {self.award('arts', p)} in {y + r.randint(6, 30)}.",
            f"On stage {p.he} played {self.pick(('Hamlet', 'Lady Macbeth', 'Hedda Gabler', 'King Lear', 'Nora', 'Mother Courage', 'Cyrano', 'Medea', 'Faust', 'Blanche DuBois'))} "
            f"at the {p.town()} theatre festival in {y + r.randint(3, 25)}.",
            f"{p.He} also worked as a voice actor, dubbing {self.other_person(p, False)} in {p.nationality} versions of "
            f"{r.randint(5, 40)} films.",
            f"In {y + r.randint(15, 35)} {p.he} directed {p.his} first feature film, {self.title(p.fake)}.",
        ]
        return [(self.pick(("Career", "Acting career", "Film and television")), s)]

    def career_writer(self, p: Person) -> list[tuple[str, list[str]]]:
        r = self.rng
        y = p.born[0] + r.randint(20, 35)
        publisher = (
            f"{p.fake.last_name()} {self.pick(('Verlag', 'Press', 'Éditions', 'Editore', 'Publishing', 'Books'))}"
        )
        s = [
            f"{p.last} worked as {a(self.pick(('schoolteacher', 'journalist', 'librarian', 'translator', 'bank clerk', 'civil servant')))} "
            f"in {p.town()} while writing {p.his} first stories.",
            f"{p.His} first novel, {self.title(p.fake)}, was published by {publisher} in {y}.",
            f"The novel {self.title(p.fake)} ({y + r.randint(2, 8)}), set in {p.town()} during the "
            f"{self.pick(('First World War', 'Second World War', 'Great Depression', 'occupation', 'Cold War', 'years after the war'))}, "
            f"made {p.his} name and was translated into {r.randint(3, 30)} languages.",
            f"{p.He} was awarded the {self.award('book', p)} in {y + r.randint(5, 30)} for {self.title(p.fake)}.",
            f"{p.He} also wrote {r.randint(2, 20)} collections of poetry and {r.randint(1, 12)} plays, one of which, "
            f"{self.title(p.fake)}, was staged in {p.town()} in {y + r.randint(4, 25)}.",
            f"From {y + r.randint(5, 15)} to {y + r.randint(16, 25)} {p.he} edited the literary magazine {self.title(p.fake)}.",
            f"{p.His} essays on {self.pick(('memory', 'exile', 'the countryside', 'war', 'faith', 'childhood', 'language'))} were "
            f"collected in {self.title(p.fake)} ({y + r.randint(10, 35)}).",
            f"{p.He} served as president of the {p.nationality} PEN Centre from {y + r.randint(15, 30)}.",
        ]
        works = [f"{self.title(p.fake)} ({y + i + r.randint(0, 2)})" for i in range(0, r.randint(6, 30), 3)]
        return [
            (self.pick(("Career", "Literary career", "Writing")), s),
            (self.pick(("Works", "Selected works", "Bibliography")), ["; ".join(works) + "."]),
        ]

    def career_military(self, p: Person) -> list[tuple[str, list[str]]]:
        r = self.rng
        y = p.born[0] + r.randint(18, 22)
        unit = f"{ordinal(r.randint(1, 120))} {self.pick(('Infantry Regiment', 'Cavalry Regiment', 'Artillery Regiment', 'Rifle Battalion', 'Grenadier Regiment', 'Engineer Battalion', 'Infantry Division', 'Panzer Division', 'Air Squadron'))}"
        wars = [w for w, start, end in WARS if y <= end and start <= y + 30] or ["peacekeeping mission in Cyprus"]
        war = self.pick(wars)
        s = [
            f"{p.last} entered the military academy at {p.town()} in {y} and was commissioned as a lieutenant in the {unit}.",
            f"During the {war} {p.he} served on the {self.pick(('Western Front', 'Eastern Front', 'Italian Front', 'Balkan front', 'North African front'))} and was wounded at {p.fake.city()}.",
            f"{p.He} was promoted to captain in {y + r.randint(4, 8)}, to major in {y + r.randint(9, 14)} and to "
            f"colonel in {y + r.randint(15, 20)}.",
            f"In {self.month_year(y + r.randint(18, 26))} {p.he} was given command of the {unit}.",
            f"{p.He} was promoted to {self.pick(('major general', 'lieutenant general', 'brigadier', 'general', 'rear admiral'))} "
            f"in {y + r.randint(20, 30)} and appointed chief of staff of the {self.pick(('Army', 'Third Army', 'Northern Army Group', 'General Staff', 'Navy'))}.",
            f"{p.He} received the {self.award('state', p)} for {p.his} conduct at the battle of {p.fake.city()}.",
            f"After the war {p.he} was held as a prisoner of war until {y + r.randint(25, 32)}.",
            f"{p.He} retired from the army in {y + r.randint(28, 40)} and wrote a memoir of {p.his} service.",
        ]
        return [(self.pick(("Military career", "Career", "Service")), s)]

    def career_painter(self, p: Person) -> list[tuple[str, list[str]]]:
        r = self.rng
        y = p.born[0] + r.randint(18, 25)
        movement = self.pick(
            (
                "Impressionism",
                "Expressionism",
                "Cubism",
                "Surrealism",
                "abstract art",
                "Symbolism",
                "Art Nouveau",
                "Neue Sachlichkeit",
                "pop art",
                "realism",
            )
        )
        s = [
            f"{p.last} studied painting at the Academy of Fine Arts in {p.town()} under {self.other_person(p)}.",
            f"{p.He} held {p.his} first exhibition at the {p.fake.last_name()} Gallery in {p.town()} in {y + r.randint(2, 6)}.",
            f"Influenced by {movement}, {p.he} painted landscapes of {p.town()} and portraits of {p.his} circle.",
            f"{p.He} was a founding member of the artists' group {self.title(p.fake)} in {y + r.randint(4, 12)}.",
            f"{p.His} work was shown at the Venice Biennale in {y + r.randint(10, 35)}.",
            f"{p.His} paintings are held by the National Gallery of {p.country.removeprefix('the ')} and the museum of {p.town()}.",
            f"{p.He} taught at the academy from {y + r.randint(10, 20)} to {y + r.randint(21, 35)}.",
            f"{self.title(p.fake)} ({y + r.randint(5, 30)}), {p.his} best-known canvas, was sold at auction in "
            f"{r.randint(1995, 2023)} for {r.randint(1, 30)} million.",
        ]
        return [(self.pick(("Career", "Artistic career", "Work")), s)]

    def career_athlete(self, p: Person) -> list[tuple[str, list[str]]]:
        r = self.rng
        y = p.born[0] + r.randint(17, 23)
        sport, events = self.pick(
            (
                (
                    "athletics",
                    ("100 metres", "400 metres hurdles", "marathon", "high jump", "javelin throw", "decathlon"),
                ),
                ("swimming", ("100 metres freestyle", "200 metres butterfly", "400 metres medley", "backstroke")),
                ("cycling", ("road race", "individual pursuit", "time trial", "team sprint")),
                ("tennis", ("singles", "doubles", "mixed doubles")),
                ("rowing", ("single sculls", "coxless four", "eight")),
                ("skiing", ("slalom", "downhill", "giant slalom", "cross-country skiing")),
                ("ice hockey", ("ice hockey",)),
                ("basketball", ("basketball",)),
                ("wrestling", ("Greco-Roman wrestling", "freestyle wrestling")),
                ("boxing", ("lightweight", "middleweight", "heavyweight")),
            )
        )
        event = self.pick(events)
        olympics = "Winter Olympics" if sport in ("skiing", "ice hockey") else "Summer Olympics"
        games = self.pick((olympics, olympics, "World Championships", "European Championships", "Commonwealth Games"))
        s = [
            f"{p.last} took up {sport} at the age of {r.randint(8, 15)} at a club in {p.town()}.",
            f"{p.He} won {p.his} first national title in the {event} in {y}.",
            f"At the {y + r.randint(1, 4)} {games} in {self.foreign(p)[0].city()} {p.he} won the "
            f"{self.pick(('gold', 'silver', 'bronze'))} medal in the {event}.",
            f"{p.He} set a national record of {r.randint(1, 59)}.{r.randint(10, 99)} in {y + r.randint(1, 6)}, which stood "
            f"for {r.randint(2, 20)} years.",
            f"{p.He} competed at {r.randint(2, 4)} Olympic Games, finishing {self.pick(('fourth', 'fifth', 'sixth', 'eighth'))} in {y + r.randint(5, 9)}.",
            f"{p.He} represented the club {self.club(p.fake, p.locale)} and was coached by {self.other_person(p)}.",
            f"In {y + r.randint(4, 10)} {p.he} was named {p.nationality} Sportsperson of the Year.",
            f"After retiring in {y + r.randint(8, 16)} {p.he} became a coach and later an official of the national federation.",
        ]
        return [(self.pick(("Career", "Sporting career", "Athletic career")), s)]

    def career_business(self, p: Person) -> list[tuple[str, list[str]]]:
        r = self.rng
        y = p.born[0] + r.randint(22, 32)
        company = p.fake.company()
        industry = self.pick(
            (
                "steel",
                "textiles",
                "shipping",
                "chemicals",
                "software",
                "retail",
                "banking",
                "brewing",
                "publishing",
                "telecommunications",
                "food processing",
                "insurance",
            )
        )
        s = [
            f"{p.last} began {p.his} career at {p.fake.company()} in {p.town()} as {a(self.pick(('clerk', 'salesman', 'trainee', 'engineer', 'accountant')))}.",
            f"In {y} {p.he} founded {company}, a {industry} company based in {p.town()}.",
            f"Under {p.his} leadership the firm grew to {r.randint(200, 40000)} employees and opened branches in "
            f"{r.randint(3, 30)} countries.",
            f"{company} was listed on the stock exchange in {y + r.randint(8, 25)}.",
            f"{p.He} served as chief executive until {y + r.randint(15, 35)} and then as chairman of the board.",
            f"In {y + r.randint(10, 30)} {p.he} acquired {p.fake.company()} for {r.randint(10, 900)} million.",
            f"{p.He} sat on the boards of {p.fake.company()} and {p.fake.company()}.",
            f"{p.He} established the {p.last} Foundation, which funds scholarships at the {self.university(p.fake)}.",
        ]
        return [(self.pick(("Business career", "Career")), s)]

    def career_academic(self, p: Person) -> list[tuple[str, list[str]]]:
        r = self.rng
        y = p.born[0] + r.randint(25, 32)
        discipline = self.pick(
            (
                "history",
                "economics",
                "philosophy",
                "linguistics",
                "law",
                "sociology",
                "archaeology",
                "art history",
                "classical philology",
                "political science",
            )
        )
        s = [
            f"{p.last} obtained a doctorate in {discipline} at the {self.university(p.fake)} in {y} with a dissertation on "
            f"{self.topic()}.",
            f"{p.He} taught at the {self.university(p.fake)} from {y + r.randint(1, 4)} and was made full professor of "
            f"{discipline} in {y + r.randint(6, 14)}.",
            f"{p.He} was rector of the university from {y + r.randint(15, 22)} to {y + r.randint(23, 28)}.",
            f"{p.His} book {self.title(p.fake)} ({y + r.randint(5, 25)}) became a standard work on the subject.",
            f"{p.He} was a visiting professor at the {self.university(self.foreign(p)[0])} in {y + r.randint(8, 20)}.",
            f"{p.He} was elected to the {p.nationality} Academy of Sciences and Letters in {y + r.randint(12, 30)}.",
            f"{p.He} edited the journal {self.title(p.fake)} for {r.randint(3, 20)} years.",
        ]
        return [(self.pick(("Academic career", "Career")), s)]

    def career_clergy(self, p: Person) -> list[tuple[str, list[str]]]:
        r = self.rng
        y = p.born[0] + r.randint(23, 28)
        church = self.pick(("Catholic", "Lutheran", "Anglican", "Orthodox", "Reformed"))
        s = [
            f"{p.last} studied theology at the seminary of {p.town()} and was ordained a priest of the {church} Church in {y}.",
            f"{p.He} served as a parish priest in {p.town()} and {p.town()} and as chaplain to the {self.pick(('army', 'university', 'royal court', 'hospital'))}.",
            f"In {y + r.randint(10, 20)} {p.he} was appointed auxiliary bishop of {p.town()}.",
            f"{p.He} became bishop of the diocese of {p.town()} in {y + r.randint(20, 30)} and held the see for {r.randint(5, 25)} years.",
            f"{p.He} took part in the {self.pick(('Second Vatican Council', 'Lambeth Conference', 'synod of bishops', 'World Council of Churches assembly'))} in {y + r.randint(5, 30)}.",
            f"{p.He} wrote {r.randint(2, 15)} books on {self.pick(('church history', 'liturgy', 'pastoral care', 'ethics'))}.",
        ]
        return [(self.pick(("Ecclesiastical career", "Career", "Ministry")), s)]

    def career_journalist(self, p: Person) -> list[tuple[str, list[str]]]:
        r = self.rng
        y = p.born[0] + r.randint(20, 28)
        paper = f"{p.town()} {self.pick(('Gazette', 'Herald', 'Courier', 'Tribune', 'Post', 'Journal', 'Chronicle'))}"
        s = [
            f"{p.last} began {p.his} career as a reporter for the {paper} in {y}.",
            f"{p.He} was the paper's correspondent in {self.foreign(p)[0].city()} from {y + r.randint(3, 6)} to {y + r.randint(7, 12)}.",
            f"{p.He} covered the {self.pick(('Spanish Civil War', 'Vietnam War', 'fall of the Berlin Wall', 'Yugoslav Wars', 'Olympic Games', 'elections'))} for "
            f"{p.fake.company()} and wrote a book about it, {self.title(p.fake)}.",
            f"In {y + r.randint(10, 20)} {p.he} became editor-in-chief of the {paper}.",
            f"{p.He} presented the current affairs programme {self.title(p.fake)} on national television.",
            f"{p.He} won the {p.nationality} Journalism Prize in {y + r.randint(5, 25)}.",
        ]
        return [(self.pick(("Career", "Journalism")), s)]

    def career_architect(self, p: Person) -> list[tuple[str, list[str]]]:
        r = self.rng
        y = p.born[0] + r.randint(24, 30)
        s = [
            f"{p.last} studied architecture at the {self.university(p.fake)} and worked in the office of {self.other_person(p)}.",
            f"{p.He} opened {p.his} own practice in {p.town()} in {y}.",
            f"{p.His} buildings include the town hall of {p.town()} ({y + r.randint(3, 12)}), the {p.town()} railway station "
            f"and the {p.fake.last_name()} House.",
            f"{p.He} won the competition for the {self.pick(('concert hall', 'museum', 'parliament building', 'central library', 'university campus'))} of {p.town()} in {y + r.randint(5, 20)}.",
            f"{p.His} work is associated with {self.pick(('modernism', 'brutalism', 'functionalism', 'the Bauhaus', 'Art Deco', 'historicism'))}.",
            f"{p.He} taught at the {self.university(p.fake)} from {y + r.randint(8, 20)}.",
        ]
        return [(self.pick(("Career", "Architectural career", "Work")), s)]

    def career_judge(self, p: Person) -> list[tuple[str, list[str]]]:
        r = self.rng
        y = p.born[0] + r.randint(24, 30)
        s = [
            f"{p.last} studied law at the {self.university(p.fake)} and was admitted to the bar in {y}.",
            f"{p.He} practised as a lawyer in {p.town()} and specialised in {self.pick(('criminal law', 'commercial law', 'constitutional law', 'labour law', 'family law'))}.",
            f"{p.He} was appointed a judge of the district court of {p.town()} in {y + r.randint(5, 12)}.",
            f"In {y + r.randint(13, 22)} {p.he} was appointed to the {self.pick(('Supreme Court', 'Court of Appeal', 'Constitutional Court', 'High Court'))} of {p.country}.",
            f"{p.He} served as president of the court from {y + r.randint(23, 28)} until {p.his} retirement in {y + r.randint(29, 38)}.",
            f"{p.He} wrote the court's judgment in a landmark case on {self.pick(('freedom of the press', 'property rights', 'asylum', 'privacy', 'electoral law'))}.",
        ]
        return [(self.pick(("Legal career", "Career")), s)]

    def personal(self, p: Person) -> list[str]:
        r = self.rng
        spouse = f"{p.fake.first_name_female() if p.male else p.fake.first_name_male()} {p.fake.last_name()}"
        out = [
            self.pick(
                (
                    f"{p.last} married {spouse} in {p.born[0] + r.randint(22, 38)}; they had {r.randint(1, 5)} children.",
                    f"{p.He} was married {self.pick(('twice', 'three times', 'once'))} and had {r.randint(1, 6)} children.",
                    f"In {p.born[0] + r.randint(22, 40)} {p.he} married {spouse}, {a(self.pick(PARENT_JOBS))} from {p.town()}.",
                    f"{p.He} lived in {p.town()} with {p.his} partner, {spouse}.",
                )
            )
        ]
        if r.random() < 0.5:
            relative = self.pick(("son", "daughter", "nephew", "niece", "brother", "sister", "grandson"))
            male_relative = relative in ("son", "nephew", "brother", "grandson")
            relative_name = p.fake.first_name_male() if male_relative else p.fake.first_name_female()
            out.append(
                self.pick(
                    (
                        f"{p.His} {relative} {relative_name} {p.last} is {a(self.pick(('footballer', 'politician', 'actor', 'painter', 'physician', 'journalist')))}.",
                        f"{p.He} was a keen {self.pick(('sailor', 'hunter', 'gardener', 'chess player', 'mountaineer', 'collector of stamps'))}.",
                        f"{p.He} was a supporter of {self.club(p.fake, p.locale)}.",
                    )
                )
            )
        if p.died:
            out.append(
                self.pick(
                    (
                        f"{p.last} died on {self.full_date(p, p.died)} in {p.town()}, at the age of {p.died[0] - p.born[0]}.",
                        f"{p.He} died in {p.town()} on {self.full_date(p, p.died)} after a long illness and was buried in {p.birthplace}.",
                        f"{p.He} died of a heart attack in {p.died[0]} in {p.town()}.",
                    )
                )
            )
            if r.random() < 0.5:
                out.append(f"A street in {p.town()} was named after {p.him} in {p.died[0] + r.randint(1, 20)}.")
        return out

    def honours(self, p: Person) -> list[str]:
        r, y = self.rng, p.born[0]
        kind = {
            "scientist": "science",
            "academic": "science",
            "musician": "music",
            "writer": "book",
            "actor": "arts",
            "painter": "arts",
        }.get(p.occupation, "state")
        items = {self.award(kind, p): y + r.randint(30, 70) for _ in range(r.randint(1, 4))}
        items |= {self.award("state", p): y + r.randint(35, 75) for _ in range(r.randint(0, 2))}
        if r.random() < 0.3:
            items[f"honorary doctorate, {self.university(p.fake)}"] = y + r.randint(40, 75)
        kept = sorted(f"{name} ({year})" for name, year in items.items() if year <= THIS_YEAR)
        return ["; ".join(kept) + "."] if kept else []

    def other_activities(self, p: Person) -> list[str]:
        """Sentences any biography may have (later life, legacy, public life), years from mid-career on."""
        r = self.rng
        y = p.born[0] + r.randint(35, 55)
        return [
            f"In later years {p.he} devoted {p.his} time to {self.pick(('charity work', 'writing {0} memoirs', 'teaching', 'local politics', 'gardening', 'travel')).format(p.his)}.",
            f"{p.His} papers are kept in the {self.pick(('municipal archives', 'national library', 'state archives', 'university library'))} of {p.town()}.",
            f"A biography, {self.title(p.fake)}, written by {self.other_person(p)}, was published in {y + r.randint(5, 40)}.",
            f"{p.He} was made an honorary citizen of {p.town()} in {y + r.randint(0, 20)}.",
            f"{p.He} supported the campaign for {self.pick(CAUSES)} and spoke at its meetings in {p.town()}.",
            f"In an interview with {p.fake.company()} in {y + r.randint(0, 20)}, {p.he} said that {p.his} greatest influence had been {self.other_person(p, False)}.",
            f"{p.His} life was the subject of the documentary film {self.title(p.fake)} ({y + r.randint(10, 50)}).",
            f"{p.He} spoke {self.pick(('three', 'four', 'five', 'several'))} languages and lived for some years in {self.foreign(p)[1]}.",
            f"{p.He} was a member of the {self.pick(('Rotary Club', 'Alpine Club', 'Freemasons', 'Academy of Arts', 'chamber of commerce', 'local historical society'))} of {p.town()}.",
            f"In {y + r.randint(0, 25)} {p.he} suffered a {self.pick(('stroke', 'heart attack', 'serious car accident', 'fall'))}, from which {p.he} {self.pick(('recovered', 'never fully recovered', 'recovered slowly'))}.",
            f"{p.He} was a close friend of the {self.pick(('composer', 'novelist', 'painter', 'actor', 'politician', 'physicist'))} {self.other_person(p, False)}, with whom {p.he} corresponded for {r.randint(5, 40)} years.",
            f"A {self.pick(('statue', 'bust', 'plaque', 'memorial'))} of {p.him} was unveiled in {p.town()} in {y + r.randint(5, 60)}.",
            f"{p.He} was investigated in {y + r.randint(-10, 10)} over {self.pick(('tax irregularities', 'a campaign donation', 'remarks in a newspaper interview', 'a disputed contract'))}, but no charges were brought.",
            f"The {p.last} Prize, awarded every {self.pick(('year', 'two years', 'three years'))} by the city of {p.town()}, is named after {p.him}.",
        ]

    # -- the record ----------------------------------------------------------------------------------

    def biography(self) -> str:
        r = self.rng
        p = self.person()
        sections: list[tuple[str, list[str]]] = [
            (self.pick(("Early life", "Early life and education", "Biography", "Background")), self.early_life(p))
        ]
        sections += self.career(p)
        if r.random() < 0.6:
            sections.append((self.pick(("Later life", "Legacy", "Other activities", "Public life", "")), []))
        personal = "Personal life and death" if p.died and r.random() < 0.5 else "Personal life"
        sections.append((personal, self.personal(p)))
        if r.random() < 0.35:
            sections.append((self.pick(("Honours", "Awards", "Honours and awards")), self.honours(p)))
        pool = self.other_activities(p)
        r.shuffle(pool)
        last_year = p.died[0] if p.died else THIS_YEAR
        # nothing after today; nothing but the death and what follows it after the death
        sections = [
            (h, [s for s in ss if latest_year(s) <= (THIS_YEAR if h == personal or h in HONOURS else last_year)])
            for h, ss in sections
        ]
        pool = [s for s in pool if latest_year(s) <= last_year]
        for h, ss in sections:  # the optional section of other activities gets 3 to 6 of the pool
            if h in OTHER and not ss:
                ss.extend(pool[: r.randint(3, 6)])
                del pool[: len(ss)]
        sections = [(h, ss) for h, ss in sections if ss]
        target = r.randint(MIN_WORDS, MAX_WORDS)

        def words() -> int:
            return sum(len(h.split()) + sum(len(s.split()) for s in ss) for h, ss in sections)

        refills = 0
        while words() < target and (pool or (refills < 3 and words() < MIN_WORDS)):  # short: more of the pool
            if not pool:  # under MIN_WORDS: a fresh draw of the pool (other years, towns, people)
                refills += 1
                pool = [s for s in self.other_activities(p) if latest_year(s) <= last_year]
                r.shuffle(pool)
                continue
            i = next((i for i, (h, _) in enumerate(sections) if h in OTHER), None)
            if i is None:
                i = next((i for i, (h, _) in enumerate(sections) if h == personal or h in HONOURS), len(sections))
                sections.insert(i, (self.pick(("Later life", "Legacy", "Other activities", "")), []))
            sections[i][1].append(pool.pop())
        while words() > target:  # long: a random sentence (not a section's first) of the longest section
            longest = max(range(len(sections)), key=lambda i: len(sections[i][1]))
            heading, ss = sections[longest]
            if len(ss) <= 1:
                break
            i = r.randrange(1, len(ss))
            if words() - len(ss[i].split()) < MIN_WORDS:
                break
            del ss[i]
        parts = []
        for heading, ss in sections:
            if heading:
                parts.append(heading)
            parts.extend(s.replace("..", ".") for s in ss)
        return " " + " ".join(parts) + " "


def latest_year(sentence: str) -> int:
    """The latest year a sentence names (0 for none)."""
    return max((int(y) for y in YEAR.findall(sentence)), default=0)


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 21st ..."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def a(word: str) -> str:
    """``word`` with its indefinite article."""
    return f"{'an' if word[:1].lower() in 'aeiou' else 'a'} {word}"


def generate(n: int, seed: int) -> list[dict]:
    """``n`` records ``{id, text}``, deterministic for ``seed``."""
    rng = random.Random(seed)
    fakers = {}
    for loc in LOCALES:
        fake = Faker(loc)
        fake.seed_instance(rng.randrange(2**32))
        for provider in fake.providers:  # it_IT builds its list of towns from a set: its order follows the hash seed
            if isinstance(getattr(provider, "cities", None), list):
                provider.cities = sorted(provider.cities)
        fakers[loc] = fake
    writer = Writer(rng, fakers)
    return [{"id": f"pad-{i:06d}", "text": writer.biography()} for i in range(1, n + 1)]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=DEFAULT_N, help=f"records (default {DEFAULT_N})")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"default {DEFAULT_SEED}")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="JSONL file (default out/wiki553_padding.jsonl)")
    args = ap.parse_args(argv)
    start = time.perf_counter()
    records = generate(args.n, args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8")
    args.out.write_bytes(data)
    n_words = [len(r["text"].split()) for r in records]
    print(
        f"wrote {len(records)} records to {args.out} in {time.perf_counter() - start:.1f} s "
        f"(seed {args.seed}; {min(n_words)}-{max(n_words)} words, mean {sum(n_words) / max(1, len(n_words)):.0f}; "
        f"sha256 {hashlib.sha256(data).hexdigest()[:16]})"
    )


if __name__ == "__main__":
    main()
