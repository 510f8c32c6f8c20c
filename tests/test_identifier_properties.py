"""Property: no generated direct identifier survives sanitization.

Identifiers come from Faker in many locales (phones in national and
international formats, IBANs, cards, e-mails, IP and MAC addresses, URLs,
SSNs, names, dates of birth), are written after the words that announce them
in real documents, optionally with invisible characters inside, and the
default detectors without a statistical NER (deterministic and fast) must
remove every one of them.
"""

import unicodedata

import pytest
import spacy
from faker import Faker
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

LOCALES = [
    "en_US",
    "en_GB",
    "de_DE",
    "fr_FR",
    "nl_NL",
    "it_IT",
    "es_ES",
    "pl_PL",
    "tr_TR",
    "no_NO",
    "pt_BR",
    "en_IN",
    "en_AU",
    "sv_SE",
    "da_DK",
    "fi_FI",
]
KINDS = {
    "phone": ("Tel: {}", lambda f: f.phone_number()),
    "email": ("E-mail {} for replies.", lambda f: f.email()),
    "iban": ("Pay to IBAN {}.", lambda f: f.iban()),
    "card": ("Card number {} was charged.", lambda f: f.credit_card_number()),
    "ipv4": ("Login from {} at night.", lambda f: f.ipv4()),
    "ipv6": ("Login from {} at night.", lambda f: f.ipv6()),
    "mac": ("Device MAC {} seen.", lambda f: f.mac_address()),
    "url": ("Profile at {} today.", lambda f: f.url()),
    "dob": ("Date of birth: {}.", lambda f: f.date_of_birth().strftime("%d %B %Y")),
    "dob_numeric": ("DOB {}", lambda f: f.date_of_birth().strftime("%d/%m/%Y")),
    "name": ("Patient: {}.", lambda f: f"{f.first_name()} {f.last_name()}"),
}
INVISIBLE = ["", "\u200b", "\u00ad", "\u2060"]


def fold(text):
    return unicodedata.normalize("NFC", text).casefold()


@pytest.fixture(scope="module")
def nlp():
    nlp = spacy.blank("en")
    nlp.add_pipe("privacy_ner", config={"sources": []})
    nlp.add_pipe("mask_all")
    nlp.add_pipe("generalizer")
    return nlp


@st.composite
def documents(draw):
    locale = draw(st.sampled_from(LOCALES))
    kind = draw(st.sampled_from(sorted(KINDS)))
    faker = Faker(locale)
    faker.seed_instance(draw(st.integers(0, 10**6)))
    template, make = KINDS[kind]
    value = make(faker)
    if kind == "name":  # a hidden character inside the name
        cut = draw(st.integers(1, len(value) - 1))
        value = value[:cut] + draw(st.sampled_from(INVISIBLE)) + value[cut:]
    return kind, value, template.format(value)


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(doc=documents())
def test_no_generated_identifier_survives(nlp, doc):
    kind, value, text = doc
    out = nlp(text)._.sanitized_text
    visible = "".join(ch for ch in value if ch not in INVISIBLE)
    assert fold(value) not in fold(out) and fold(visible) not in fold(out), (kind, text, out)
