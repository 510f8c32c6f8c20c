"""Month and weekday names from CLDR (spacy_textsan.calendar_names): every
reader reads exactly the forms its hand-written list held before."""

import re

import pytest

from spacy_textsan.calendar_names import (
    DATE_LOCALES,
    TYPED_MONTH_FORMS,
    day_names,
    english_month_forms,
    month_names,
)
from spacy_textsan.detect.privacy_ner import addresses, rules
from spacy_textsan.render import surrogates
from spacy_textsan.run import personal_columns

# -- the hand-written lists these names replaced (as they were) ------------------------------------------------------

#: rules._MONTHS, surrogates' English names ("sept" added) and personal_columns._MONTH, any case there.
OLD_ENGLISH = (
    "January February March April May June July August September October November December "
    "Jan Feb Mar Apr Jun Jul Aug Sept Sep Oct Nov Dec"
).split()
#: rules._FOREIGN_MONTHS (read in any case).
OLD_FOREIGN = (
    "janvier février fevrier mars avril mai juin juillet août aout septembre octobre novembre décembre decembre "
    "Januar Jänner Februar März Maerz Juni Juli Oktober Dezember "
    "januari februari maart mei augustus "
    "enero febrero marzo abril mayo junio julio agosto septiembre setiembre octubre noviembre diciembre "
    "janeiro fevereiro março maio junho julho setembro outubro dezembro "
    "gennaio febbraio aprile maggio giugno luglio settembre ottobre dicembre "
    "Ocak Şubat Subat Mart Nisan Mayıs Mayis Haziran Temmuz Ağustos Agustos Eylül Eylul Ekim Kasım Kasim Aralık Aralik "
    "stycznia lutego marca kwietnia maja czerwca lipca sierpnia września wrzesnia października pazdziernika "
    "listopada grudnia februar mars april juni juli oktober desember december maj"
).split()
#: surrogates.FOREIGN_MONTHS, January first.
OLD_SURROGATE_MONTHS = {
    "fr": "janvier février mars avril mai juin juillet août septembre octobre novembre décembre",
    "de": "Januar Februar März April Mai Juni Juli August September Oktober November Dezember",
    "es": "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre",
    "it": "gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre novembre dicembre",
    "pt": "janeiro fevereiro março abril maio junho julho agosto setembro outubro novembro dezembro",
    "nl": "januari februari maart april mei juni juli augustus september oktober november december",
    "tr": "Ocak Şubat Mart Nisan Mayıs Haziran Temmuz Ağustos Eylül Ekim Kasım Aralık",
    "pl": "stycznia lutego marca kwietnia maja czerwca lipca sierpnia września października listopada grudnia",
    "no": "januar februar mars april mai juni juli august september oktober november desember",
}


def candidate_forms() -> set[str]:
    """Every month form any reader could read, and its case variants."""
    forms = set(OLD_ENGLISH) | set(OLD_FOREIGN)
    for locale in (*DATE_LOCALES, "en", "en_GB", "ro", "cs"):
        forms |= set(month_names(locale)) | set(month_names(locale, "abbreviated"))
    forms |= {f for typed in TYPED_MONTH_FORMS.values() for f in typed} | {"Marz", "marco", "Septemb", "Ju"}
    return {v for f in forms for v in (f, f.lower(), f.upper(), f.capitalize(), f.rstrip("."))}


def test_the_english_month_forms_are_cldrs_with_the_british_sept():
    assert set(english_month_forms()) == set(OLD_ENGLISH)
    assert english_month_forms()[:12] == month_names("en") and english_month_forms() is english_month_forms()


def test_rules_read_the_english_month_forms_they_read_before():
    english = re.compile(rules._MONTHS)
    for form in candidate_forms():  # in their case, with an optional dot
        assert bool(english.fullmatch(form)) == (form.removesuffix(".") in OLD_ENGLISH), form


def test_rules_read_the_month_forms_of_other_languages_they_read_before():
    foreign = re.compile(rules._FOREIGN_MONTHS, re.IGNORECASE)
    old = {f.lower() for f in OLD_FOREIGN}
    for form in candidate_forms():
        assert bool(foreign.fullmatch(form)) == (form.lower() in old), form
    english = {"april", "august", "september", "november", "december"}
    assert set(rules._FOREIGN_MONTH_WORDS) == old - english


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("né le 3 avril 1985 à Lyon", "3 avril 1985"),
        ("born 3 Sept 1985", "3 Sept 1985"),
        ("am 3. Jänner 1985", "3. Jänner 1985"),
        ("el 3 de setiembre de 1985 y", "3 de setiembre de 1985"),
        ("doğum 3 Subat 1985 avril", "3 Subat 1985"),
        ("w dniu 3 maja 1985", "3 maja 1985"),
    ],
)
def test_dates_in_other_languages_are_found(text, date):
    matches = rules.find_rule_matches(text, rules.compile_patterns(rules.DEFAULT_PATTERNS))
    assert date in {text[m.start : m.end] for m in matches if m.label == "DATETIME"}


def test_forms_the_old_list_lacked_stay_unread():
    """Portuguese "novembro", Danish "marts", Swedish "augusti": CLDR has them, the old list did not."""
    foreign = re.compile(rules._FOREIGN_MONTHS, re.IGNORECASE)
    assert not any(foreign.fullmatch(w) for w in ("novembro", "marts", "augusti", "august", "november"))


def test_the_surrogates_read_and_write_the_months_they_did():
    assert [list(names) for names in surrogates._FOREIGN.values()] == [n.split() for n in OLD_SURROGATE_MONTHS.values()]
    # the table's keys are folded as the date patterns match ("mayıs" and "mayis" are one key)
    assert {m for m, n in surrogates._MONTHS.items() if n} == {f.lower() for f in OLD_ENGLISH} | {
        name.lower().replace("ı", "i") for names in OLD_SURROGATE_MONTHS.values() for name in names.split()
    }
    assert surrogates.shift_dates("Monday, 3 Sept 1985", 31, 0) == "Friday, 4 Oct 1985"
    assert surrogates.shift_dates("Tue 14 MARCH 2009", 1, 0) == "Sun 15 MARCH 2009"
    assert surrogates.shift_dates("le 3 avril 1985", 92, 0) == "le 4 juillet 1985"


def test_the_weekdays_are_cldrs_english_ones():
    assert day_names("en") == ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
    assert day_names("en", "abbreviated") == ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def test_the_column_sniffer_and_the_addresses_read_the_english_forms():
    dates = re.compile(personal_columns._MONTH, re.IGNORECASE)
    for form in candidate_forms():
        assert bool(dates.fullmatch(form)) == (form.removesuffix(".").lower() in {f.lower() for f in OLD_ENGLISH}), form
    postcode_city = next(p for p in addresses.address_patterns() if p["name"] == "postcode_city")
    city = re.compile(postcode_city["pattern"])
    assert city.search("75001 Paris") and city.search("75001 Marchmont")
    assert not any(city.search(f"75001 {m}") for m in OLD_ENGLISH)


def test_locales_are_read_once():
    month_names.cache_clear()
    for _ in range(3):
        month_names("fr")
    assert month_names.cache_info().misses == 1
