"""run.personal_columns: which unselected columns look like personal data, which
hold text, and the string keys of a JSON object."""

import pytest

from spacy_textsan.run.personal_columns import (
    flatten_string_keys,
    header_term,
    personal_data_columns,
    text_columns,
)

# A CSV read column by column: the sample the reader collects.
TABLE = {
    "id": ["1", "2", "3", "4", "5", "6", "7", "8"],
    "first_name": ["Maria", "Jean", "Ahmed", "Giulia", "Sophie", "Lukas", "Priya", "Olga"],
    "email": [
        "maria.garcia@example.com",
        "jean.dupont@example.fr",
        "",
        "ahmed+orders@mail.example.org",
        "N/A",
        "g.rossi@example.it",
        "sophie@example.de",
        "lukas.k@example.at",
    ],
    "phone": [
        "+44 20 7946 0958",
        "(212) 555-0199",
        "06 12 34 56 78",
        "+49 30 12345678",
        "0033 1 42 68 53 00",
        "212-555-0147",
        "020 7946 0321",
        "",
    ],
    "comment": [
        "Great service, would order again",
        "Delivery was late by two days",
        "Package arrived damaged",
        "Fast shipping and a good price",
        "The box was too small",
        "Refund processed quickly",
        "Asked for a copy of the invoice",
        "",
    ],
    "amount": ["12.50", "1,234.00", "-3", "$45", "15%", "0", "7.5", "100"],
    "city": ["Paris", "Lyon", "Berlin", "Madrid", "London", "New York", "San Francisco", "Toulouse"],
}


def test_a_table_with_names_emails_and_phones():
    assert personal_data_columns(TABLE) == {
        "first_name": "person names in 8 of 8 values",
        "email": "e-mail addresses in 6 of 6 values",
        "phone": "phone numbers in 7 of 7 values",
    }


def test_text_columns_of_the_table():
    assert text_columns(TABLE) == ["first_name", "email", "phone", "comment", "city"]


NON_ENGLISH = {
    "Prénom": ["Jean-Pierre", "Amélie", "François", "Élodie"],
    "Nachname": ["Müller", "Schmidt", "Schneider", "Weber"],
    "Apellido": ["García", "Fernández", "Martínez", "Núñez"],
    "Teléfono": ["91 123 45 67", "+34 612 34 56 78", "", "93 456 78 90"],
    "Correo electrónico": ["ana@example.es", "", "", ""],
    "Geburtsdatum": ["1985-04-03", "03.12.1990", "", "1979-01-30"],
    "Ville": ["Paris", "Lyon", "Marseille", "Bordeaux"],
    "Kommentar": [
        "Lieferung kam pünktlich an",
        "Das Paket war beschädigt und die Rechnung fehlte",
        "Bitte Rückruf am Nachmittag",
        "Kunde zufrieden mit dem Service",
    ],
    "Remarque": ["Le colis est arrivé en retard", "Très bon service, merci", "", "RAS"],
    "Nombre completo": ["", "", "", ""],
    "Código postal": ["28001", "75008", "10115", "08001"],
}


def test_non_english_headers_and_names():
    assert personal_data_columns(NON_ENGLISH) == {
        "Prénom": "person names in 4 of 4 values",
        "Nachname": "person names in 4 of 4 values",
        "Apellido": "person names in 4 of 4 values",
        "Teléfono": "phone numbers in 3 of 3 values",
        "Correo electrónico": "e-mail addresses in 1 of 1 value",
        "Geburtsdatum": 'column name suggests personal data ("geburtsdatum")',
        "Nombre completo": 'column name suggests personal data ("nombre completo")',
    }
    assert text_columns(NON_ENGLISH) == [
        "Prénom",
        "Nachname",
        "Apellido",
        "Teléfono",
        "Correo electrónico",
        "Ville",
        "Kommentar",
        "Remarque",
        "Código postal",
    ]


@pytest.mark.parametrize(
    "values",
    [
        ["AB-1234-X", "ZX-9981-Q", "SKU 889-221", "X9-44-ZZ", "QQ-0001-A", "ORD-2023-000123"],  # product codes
        ["2023-01-05", "2023-01-06T12:30:00Z", "05/01/2023", "5 Jan 2023", "January 5, 2023", "12:30"],  # dates
        [  # free text without names
            "The order arrived late and the box was damaged",
            "Support replied quickly with a refund of 12 EUR on 2023-05-01",
            "Please call back about order 88123",
            "Would buy again",
        ],
        ["7518 1369 1728", "1234 5678 910", "42 17 9", "88 1234 77"],  # digit groups, not phones
        ["1 234 567", "12 345 678", "192.168.100.200", "1.2.3"],  # amounts, an address, a version
        ["true", "false", "yes", "no"],
    ],
    ids=["product codes", "dates", "free text", "digit groups", "numbers", "booleans"],
)
def test_columns_without_personal_data(values):
    assert personal_data_columns({"values": values}) == {}


def test_the_column_name_alone():
    sample = {
        "surname": ["", "", ""],  # nothing sampled: the name is what is left to go by
        "email_verified": ["true", "false", "yes"],  # booleans about the data
        "employee_count": ["12", "15", "3"],  # short numbers
        "contact_date": ["2023-01-05", "2023-02-01"],  # dates, and not of birth
        "date_of_birth": ["1985-04-03", "1990-12-01"],
        "ssn_hash": ["9f86d081884c7d65", "5e884898da280471"],
        "product_name": ["Widget", "Gadget Pro"],
    }
    assert personal_data_columns(sample, ["phone", *sample]) == {
        "phone": 'column name suggests personal data ("phone")',
        "surname": 'column name suggests personal data ("surname")',
        "date_of_birth": 'column name suggests personal data ("date of birth")',
        "ssn_hash": 'column name suggests personal data ("ssn")',
    }


@pytest.mark.parametrize(
    "name, term",
    [
        ("first_name", "first name"),
        ("FirstName", "first name"),
        ("LAST NAME", "last name"),
        ("E-Mail", "email"),
        ("customer_email_address", "email address"),
        ("Date of Birth", "date of birth"),
        ("Téléphone portable", "telephone"),
        ("Vorname", "vorname"),
        ("apellidos", "apellidos"),
        ("Cognome", "cognome"),
        ("achternaam", "achternaam"),
        ("IBAN", "iban"),
        ("customer_name", "customer name"),
        ("Nom du client", "nom du client"),
        ("name", "name"),
        ("product_name", None),
        ("nombre de commandes", None),  # French: "number of orders"
        ("hotel", None),
        ("amount", None),
        ("tags[]", None),
    ],
)
def test_header_term(name, term):
    assert header_term(name) == term


def test_an_email_or_an_international_phone_in_one_value_is_enough():
    notes = ["Customer happy", "Call me on +44 20 7946 0958", "no answer", "ok", "closed", "resolved"]
    assert personal_data_columns({"notes": notes}) == {"notes": "phone numbers in 1 of 6 values"}
    notes[1] = "Call me on 020 7946 0958"  # a national number: one value of six is not enough
    assert personal_data_columns({"notes": notes}) == {}
    notes[2] = "wrote from jane.doe@example.com"
    assert personal_data_columns({"notes": notes}) == {"notes": "e-mail addresses in 1 of 6 values"}


def test_min_share_for_names():
    notes = ["Spoke with John Smith about the refund", "no answer", "ok", "closed", "resolved"]
    assert personal_data_columns({"notes": notes}) == {}
    assert personal_data_columns({"notes": notes}, min_share=0.2) == {"notes": "person names in 1 of 5 values"}
    notes[1] = "Called Maria García back"
    assert personal_data_columns({"notes": notes}) == {"notes": "person names in 2 of 5 values"}


def test_identifiers_and_several_findings():
    sample = {
        "account": ["DE89 3704 0044 0532 0130 00", "", "n/a", "pending"],
        "card": ["4111 1111 1111 1111", "5500 0000 0000 0004", "unknown"],
        "contact": ["maria.garcia@example.com", "+33 6 12 34 56 78", "Maria García"],
    }
    assert personal_data_columns(sample) == {
        "account": "IBANs in 1 of 2 values",
        "card": "payment card numbers in 2 of 3 values",
        "contact": "e-mail addresses in 1 of 3 values; phone numbers in 1 of 3 values; person names in 1 of 3 values",
    }


def test_header_names_give_the_order():
    sample = {"b": ["Maria", "Jean"], "a": ["x@example.com"]}
    assert list(personal_data_columns(sample, ["a", "b"])) == ["a", "b"]
    assert list(personal_data_columns(sample)) == ["b", "a"]


def test_text_columns():
    sample = {
        "empty": ["", "  ", "NA", "null", "-"],
        "numbers": ["1", "-2.5", "1.234.567,89", "€12", "3e5", "100 %"],
        "dates": ["2023-01-05", "2023-01-05 12:30", "5/1/2023", "12:30 pm", "2023"],
        "booleans": ["TRUE", "no", "Y"],
        "bare_phones": ["2125550199", "4155552671"],
        "zip_codes": ["02139", "10115"],
        "phones": ["+44 20 7946 0958"],
        "one_word": ["1", "2", "three"],
    }
    assert text_columns(sample) == ["zip_codes", "phones", "one_word"]


def test_flatten_string_keys():
    obj = {
        "id": 7,
        "text": "Hello",
        "user": {"email": "x@example.com", "age": 40, "tags": ["a", "b"], "address": {"city": "Lyon"}},
        "messages": [{"text": "first"}, {"text": "second", "read": True}],
        "flag": None,
        "user.age": "a top-level key with a dot",
    }
    assert flatten_string_keys(obj) == {
        "text": "Hello",
        "user.age": "a top-level key with a dot",
        "user.email": "x@example.com",
        "user.tags[]": "a\nb",
        "user.address.city": "Lyon",
        "messages[].text": "first\nsecond",
    }
