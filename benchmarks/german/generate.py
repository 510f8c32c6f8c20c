"""Synthetic German documents annotated by construction with TAB's types (PERSON, CODE, LOC, ORG,
DATETIME, DEM, QUANTITY, MISC): the training set of the project's German NER and, from other
templates and another seed, its evaluation set.

    python benchmarks/german/generate.py train --n 3000 --seed 1 -o corpus/de/train.spacy --dev corpus/de/dev.spacy
    python benchmarks/german/generate.py eval --n 600 --seed 2024 -o out/german/eval.jsonl

Values come from Faker's German locales (``de_DE``, ``de_AT``, ``de_CH``: names, streets, cities,
postcodes, phone numbers, IBANs, companies, jobs), a Steuer-ID valid under python-stdnum
(``stdnum.de.idnr``), and small hand lists (courts, clinics, diagnoses, case-number shapes). A
template is a string with ``{slot}`` fields; each slot writes its text and, where it names something,
the span with its TAB type. ``train`` uses :data:`train_templates.TEMPLATES` (court rulings, clinical
notes, HR files as single sentences, mixed into documents of 3 to 7 sentences) and writes a DocBin for
``spacy train``; ``eval`` uses :data:`eval_templates.FAMILIES` (letters, HR notes, clinical letters,
court paragraphs: whole documents of their own shape) and writes JSON lines ``{"id", "family", "text",
"spans": [[start, end, label, text], ...]}``. The two sets share no template
(:func:`check_disjoint`), and a fixed seed gives the same files on every run.
"""

from __future__ import annotations

import json
import random
import re
import string
import sys
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path

from faker import Faker
from stdnum.de import idnr

sys.path.insert(0, str(Path(__file__).parent))
import eval_templates  # noqa: E402
import train_templates  # noqa: E402

LOCALES = ("de_DE", "de_DE", "de_DE", "de_AT", "de_CH")
Span = tuple[int, int, str]
Part = tuple[str, str | None]

COURTS = (
    "Amtsgericht", "Landgericht", "Oberlandesgericht", "Verwaltungsgericht", "Sozialgericht", "Arbeitsgericht",
    "Landesarbeitsgericht", "Finanzgericht", "Landessozialgericht", "Bezirksgericht", "Kantonsgericht",
)  # fmt: skip
CLINICS = (
    "Klinikum {city}", "Universitätsklinikum {city}", "Krankenhaus {city}", "Kreisklinik {city}",
    "St.-Marien-Hospital {city}", "Evangelisches Krankenhaus {city}", "Kantonsspital {city}", "Landeskrankenhaus {city}",
)  # fmt: skip
AUTHORITIES = (
    "Jobcenter {city}", "Finanzamt {city}", "Ausländerbehörde {city}", "Stadtverwaltung {city}",
    "Agentur für Arbeit {city}", "Polizeipräsidium {city}", "Staatsanwaltschaft {city}", "Jugendamt {city}",
)  # fmt: skip
NATIONALITIES = (
    "deutsche", "österreichische", "schweizerische", "türkische", "polnische", "syrische", "italienische",
    "rumänische", "kroatische", "russische", "ukrainische", "griechische", "afghanische", "serbische",
)  # fmt: skip
FAMILY = ("verheiratet", "ledig", "geschieden", "verwitwet", "in eingetragener Partnerschaft")
DIAGNOSES = (
    "Diabetes mellitus Typ 2", "arterielle Hypertonie", "Depression", "Bandscheibenvorfall L4/L5",
    "Vorhofflimmern", "COPD", "Migräne", "Morbus Crohn", "Multiple Sklerose", "Asthma bronchiale",
    "Schizophrenie", "HIV-Infektion", "Alkoholabhängigkeit", "Mammakarzinom", "Epilepsie",
)  # fmt: skip
RELIGIONS = ("katholisch", "evangelisch", "muslimisch", "jüdisch", "konfessionslos", "orthodox")
TITLES_M = ("Herr", "Herr Dr.", "Herr Prof. Dr.", "Herrn", "Herr Dr. med.", "Herr Mag.")
TITLES_F = ("Frau", "Frau Dr.", "Frau Prof. Dr.", "Frau Dr. med.", "Frau Mag.", "Frau Dipl.-Ing.")


@cache
def _faker(locale: str) -> Faker:
    """One Faker per locale, reseeded per document (making one is slow)."""
    return Faker(locale)


class Filler:
    """The slot values of one document: a Faker of a German locale and a seeded random generator.
    Names drawn once per document are reused by ``{same}`` / ``{same_last}`` (a person named again)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.fake = _faker(rng.choice(LOCALES))
        self.fake.seed_instance(rng.randrange(1 << 30))
        self.jobs = _faker("de_DE")  # German job names in every locale (de_CH's are English)
        self.jobs.seed_instance(rng.randrange(1 << 30))
        self.people: list[tuple[str, str, bool]] = []  # (first, last, female)

    # -- people -------------------------------------------------------------------------------------------
    def person(self) -> tuple[str, str, bool]:
        female = self.rng.random() < 0.5
        first = self.fake.first_name_female() if female else self.fake.first_name_male()
        if self.rng.random() < 0.15:
            first += "-" + (self.fake.first_name_female() if female else self.fake.first_name_male())
        last = self.fake.last_name()
        if self.rng.random() < 0.1:
            last += "-" + self.fake.last_name()
        self.people.append((first, last, female))
        return first, last, female

    def known(self) -> tuple[str, str, bool]:
        return self.rng.choice(self.people) if self.people else self.person()

    def title(self, female: bool) -> str:
        return self.rng.choice(TITLES_F if female else TITLES_M)

    # -- slots: each returns parts (text, label or None) ----------------------------------------------------
    def slot(self, name: str) -> list[Part]:
        f, r = self.fake, self.rng
        if name == "name":
            first, last, _ = self.person()
            return [(f"{first} {last}", "PERSON")]
        if name == "tname":
            first, last, female = self.person()
            return [(self.title(female) + " ", None), (f"{first} {last}", "PERSON")]
        if name == "tlast":
            first, last, female = self.person()
            return [(self.title(female) + " ", None), (last, "PERSON")]
        if name == "dear":
            first, last, female = self.person()
            return [("Sehr geehrte Frau " if female else "Sehr geehrter Herr ", None), (last, "PERSON")]
        if name == "iname":
            first, last, _ = self.person()
            return [(f"{first[0]}. {last}", "PERSON")]
        if name == "fname":
            return [(self.person()[0], "PERSON")]
        if name == "same":
            first, last, _ = self.known()
            return [(r.choice((f"{first} {last}", last)), "PERSON")]
        if name == "same_t":
            first, last, female = self.known()
            return [(("Frau " if female else "Herr ") if r.random() < 0.8 else "", None), (last, "PERSON")]
        if name == "date":
            return [(self.date(), "DATETIME")]
        if name == "date_num":
            d = f.date_between("-80y", "today")
            return [(d.strftime(r.choice(("%d.%m.%Y", "%d.%m.%Y", "%-d.%-m.%Y", "%d.%m.%y"))), "DATETIME")]
        if name == "month_year":
            return [(self.date().split(" ", 1)[1], "DATETIME")]
        if name == "year":
            return [(str(r.randint(1950, 2024)), "DATETIME")]
        if name == "city":
            return [(f.city(), "LOC")]
        if name == "country":
            return [(r.choice(("Deutschland", "Österreich", "der Schweiz", "Polen", "der Türkei", "Syrien", "Italien", "Rumänien", "Frankreich")), "LOC")]  # fmt: skip
        if name == "street":
            return [(f.street_address(), "LOC")]
        if name == "address":
            return [(f"{f.street_address()}, {f.postcode()} {f.city()}", "LOC")]
        if name == "org":
            return [(f.company(), "ORG")]
        if name == "court":
            return [(f"{r.choice(COURTS)} {f.city()}", "ORG")]
        if name == "clinic":
            return [(r.choice(CLINICS).format(city=f.city()), "ORG")]
        if name == "authority":
            return [(r.choice(AUTHORITIES).format(city=f.city()), "ORG")]
        if name == "phone":
            return [(f.phone_number(), "CODE")]
        if name == "iban":
            iban = f.iban()
            if r.random() < 0.6:
                iban = " ".join(iban[i : i + 4] for i in range(0, len(iban), 4))
            return [(iban, "CODE")]
        if name == "steuer_id":
            return [(self.steuer_id(), "CODE")]
        if name == "case":
            return [(self.case_number(), "CODE")]
        if name == "email":
            return [(f.email(), "CODE")]
        if name == "svnr":
            d = f.date_of_birth()
            return [(f"{r.randint(10, 89)} {d:%d%m%y} {f.last_name()[0].upper()} {r.randint(0, 999):03d}", "CODE")]
        if name == "idnum":
            prefix = r.choice(("P", "PN", "M", "K", "V", ""))
            prefix += r.choice(("-", "", "/")) if prefix else ""
            return [(f"{prefix}{r.randint(2000, 2024)}-{r.randint(1, 99999):05d}" if r.random() < 0.5 else f"{prefix}{r.randint(100000, 9999999)}", "CODE")]  # fmt: skip
        if name == "plate":
            letters = "".join(r.choices(string.ascii_uppercase, k=r.randint(1, 2)))
            return [(f"{r.choice(('M', 'B', 'HH', 'K', 'S', 'F', 'DO', 'N', 'L'))}-{letters} {r.randint(1, 9999)}", "CODE")]  # fmt: skip
        if name == "age":
            return [(r.choice(("{} Jahre", "{} Jahren", "{}-jährige", "{}-jährigen")).format(r.randint(18, 92)), "QUANTITY")]  # fmt: skip
        if name == "amount":
            n = f"{r.randint(50, 250000):,}"
            return [(r.choice((f"{n} Euro".replace(",", "."), n.replace(",", ".") + ",00 €", f"EUR {n}".replace(",", "."), f"CHF {n}".replace(",", "'"))), "QUANTITY")]  # fmt: skip
        if name == "job":
            return [(self.jobs.job(), "DEM")]
        if name == "nationality":
            return [(f"{r.choice(NATIONALITIES)} Staatsangehörige{r.choice(('', 'r'))}", "DEM")]
        if name == "family":
            return [(r.choice(FAMILY), "DEM")]
        if name == "religion":
            return [(r.choice(RELIGIONS), "DEM")]
        if name == "diagnosis":
            return [(r.choice(DIAGNOSES), "MISC")]
        if name == "n":
            return [(str(r.randint(2, 12)), None)]
        raise KeyError(f"unknown slot {{{name}}}")

    def date(self) -> str:
        d = self.fake.date_between("-80y", "today")
        months = ("Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November", "Dezember")  # fmt: skip
        month = months[d.month - 1]
        if self.fake.current_country_code() == "AT" and d.month == 1 and self.rng.random() < 0.5:
            month = "Jänner"
        return f"{d.day}. {month} {d.year}"

    def steuer_id(self) -> str:
        while True:
            body = str(self.rng.randint(1, 9)) + "".join(self.rng.choices(string.digits, k=9))
            number = body + idnr.mod_11_10.calc_check_digit(body)
            if idnr.is_valid(number):
                return idnr.format(number) if self.rng.random() < 0.5 else number

    def case_number(self) -> str:
        r = self.rng
        yy = r.randint(0, 24)
        shapes = (
            f"{r.randint(1, 40)} {r.choice(('K', 'O', 'C', 'S', 'Ca', 'Sa', 'L', 'F', 'Ls', 'Js'))} {r.randint(1, 9999)}/{yy:02d}",
            f"{r.choice(('I', 'II', 'III', 'IV', 'V', 'VI', 'VII', 'VIII', 'IX', 'X', 'XI'))} ZR {r.randint(1, 999)}/{yy:02d}",
            f"{r.randint(1, 2)} BvR {r.randint(1, 3000)}/{yy:02d}",
            f"L {r.randint(1, 20)} {r.choice(('R', 'AS', 'U', 'KR'))} {r.randint(1, 9999)}/{yy:02d}",
            f"{r.randint(10000, 99999)}/{yy:02d}",
            f"{r.randint(1, 99)} Js {r.randint(100, 99999)}/{2000 + yy}",
        )
        return r.choice(shapes)


_SLOT = re.compile(r"\{(\w+)\}")


def render(template: str, filler: Filler) -> tuple[str, list[Span]]:
    """The text of ``template`` with its slots filled, and the spans of the filled values."""
    text, spans, pos = [], [], 0
    pieces = _SLOT.split(template)
    for i, piece in enumerate(pieces):
        parts: list[Part] = [(piece, None)] if i % 2 == 0 else filler.slot(piece)
        for value, label in parts:
            if label is not None:
                spans.append((pos, pos + len(value), label))
            text.append(value)
            pos += len(value)
    return "".join(text), spans


def join(pieces: Sequence[tuple[str, list[Span]]], sep: str = " ") -> tuple[str, list[Span]]:
    text, spans, pos = [], [], 0
    for i, (t, s) in enumerate(pieces):
        if i:
            text.append(sep)
            pos += len(sep)
        spans += [(a + pos, b + pos, label) for a, b, label in s]
        text.append(t)
        pos += len(t)
    return "".join(text), spans


def train_document(rng: random.Random) -> tuple[str, list[Span]]:
    """3 to 7 sentences of the training templates (a third of them naming no one), one person or two
    named again."""
    filler = Filler(rng)
    n = rng.randint(3, 7)
    pick = [rng.choice(train_templates.NEUTRAL if rng.random() < 0.3 else train_templates.TEMPLATES) for _ in range(n)]
    return join([render(t, filler) for t in pick])


def eval_document(rng: random.Random) -> tuple[str, str, list[Span]]:
    """One document of an evaluation family: its family's name, text and spans."""
    family = rng.choice(sorted(eval_templates.FAMILIES))
    filler = Filler(rng)
    build: Callable[[random.Random], str] = eval_templates.FAMILIES[family]
    text, spans = render(build(rng), filler)
    return family, text, spans


def check_disjoint() -> None:
    """The evaluation templates share no sentence with the training ones."""
    train = {t.strip() for t in train_templates.TEMPLATES + train_templates.NEUTRAL}
    for sentence in eval_templates.all_sentences():
        if sentence.strip() in train:
            raise ValueError(f"evaluation template is a training template: {sentence[:60]!r}")


def write_docbin(docs: Sequence[tuple[str, list[Span]]], path: Path) -> int:
    import spacy
    from spacy.tokens import DocBin

    nlp = spacy.blank("de")
    db = DocBin(store_user_data=False)
    for text, spans in docs:
        doc = nlp.make_doc(text)
        ents = []
        for a, b, label in spans:
            span = doc.char_span(a, b, label=label, alignment_mode="expand")
            if span is not None and len(span):
                ents.append(span)
        doc.ents = spacy.util.filter_spans(ents)
        db.add(doc)
    path.parent.mkdir(parents=True, exist_ok=True)
    db.to_disk(path)
    return len(docs)


def main(argv: Sequence[str] | None = None) -> None:
    import argparse

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("split", choices=("train", "eval"))
    p.add_argument("--n", type=int, default=3000)
    p.add_argument("--seed", type=int, default=None, help="default: 1 for train, 2024 for eval")
    p.add_argument("-o", "--output", type=Path, required=True)
    p.add_argument("--dev", type=Path, default=None, help="train: also write this many dev documents (--n-dev)")
    p.add_argument("--n-dev", type=int, default=300)
    a = p.parse_args(argv)
    check_disjoint()
    if a.split == "train":
        rng = random.Random(1 if a.seed is None else a.seed)
        docs = [train_document(rng) for _ in range(a.n)]
        write_docbin(docs, a.output)
        print(f"{a.output}: {len(docs)} documents, {sum(len(s) for _, s in docs)} entities")
        if a.dev:
            dev = [train_document(rng) for _ in range(a.n_dev)]
            write_docbin(dev, a.dev)
            print(f"{a.dev}: {len(dev)} documents")
        return
    rng = random.Random(2024 if a.seed is None else a.seed)
    a.output.parent.mkdir(parents=True, exist_ok=True)
    with a.output.open("w", encoding="utf-8") as out:
        for i in range(a.n):
            family, text, spans = eval_document(rng)
            row = {"id": f"de-{i:04d}", "family": family, "text": text, "spans": [[s, e, lab, text[s:e]] for s, e, lab in spans]}  # fmt: skip
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{a.output}: {a.n} documents")


if __name__ == "__main__":
    main()
