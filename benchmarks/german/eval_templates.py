"""The evaluation set's document families (``generate.py eval``): whole documents of four shapes
(letters, HR notes, clinical letters, court paragraphs) whose sentences are none of the training set's
(``train_templates.py``; ``generate.check_disjoint``). Each family is a function of a random generator
that returns one template (its parts chosen and ordered at random); the slots are ``generate.py``'s."""

import random

LETTER_OPENINGS = (
    "{tname}\n{address}\n\n{city}, den {date}\n\nBetreff: Ihr Schreiben vom {date}, Zeichen {case}\n\n{dear},\n\n",
    "{org}\n{address}\n\nAn\n{tname}\n{address}\n\n{date}\n\nSehr geehrte Damen und Herren,\n\n",
    "Von: {name} <{email}>\nAn: {tname}\nDatum: {date_num}\n\nHallo {fname},\n\n",
)
LETTER_BODY = (
    "vielen Dank für Ihre Nachricht. Wie telefonisch besprochen, erreichen Sie mich unter {phone}.",
    "anbei erhalten Sie die Unterlagen zu Ihrem Antrag; bitte geben Sie stets die Kundennummer {idnum} an.",
    "die Erstattung über {amount} erfolgt auf Ihr Konto mit der IBAN {iban}.",
    "unser Mitarbeiter {tname} wird Sie am {date} zwischen 9 und 12 Uhr besuchen.",
    "für die Steuererklärung benötigen wir noch Ihre Identifikationsnummer {steuer_id}.",
    "Ihre Mutter, {name}, hat uns mitgeteilt, dass sie nach {city} umgezogen ist.",
    "bitte senden Sie die Antwort an {email} oder per Fax an {phone}.",
)
LETTER_CLOSINGS = (
    "\n\nMit freundlichen Grüßen\n\n{name}\n{job}",
    "\n\nFreundliche Grüße\n{tname}\nTel.: {phone}",
    "\n\nHochachtungsvoll\n{iname}",
)

HR_FIELDS = (
    "Name: {name}",
    "Geburtsdatum: {date_num}",
    "Geburtsort: {city}",
    "Anschrift: {address}",
    "Personalnummer: {idnum}",
    "Steuer-ID: {steuer_id}",
    "Bankverbindung: {iban}",
    "Telefon privat: {phone}",
    "E-Mail: {email}",
    "Familienstand: {family}",
    "Staatsangehörigkeit: {nationality}",
    "Eintritt: {date}",
    "Position: {job}",
    "Vorgesetzte(r): {tname}",
    "SV-Nummer: {svnr}",
)
HR_NOTES = (
    "Gesprächsnotiz vom {date_num}: {same_t} bat um eine Versetzung in die Filiale {city}.",
    "Im Mitarbeitergespräch am {date} äußerte {same_t} den Wunsch nach Teilzeit.",
    "{same_t} war vom {date_num} bis zum {date_num} arbeitsunfähig erkrankt.",
    "Die Gehaltserhöhung auf {amount} brutto wurde von {tname} genehmigt.",
    "Vertretung während des Urlaubs übernimmt {name} (Durchwahl {phone}).",
    "Der Aufhebungsvertrag mit {same_t} wurde am {date} vor dem {court} geschlossen (Az. {case}).",
)

CLINIC_OPENINGS = (
    "{clinic}\nKlinik für Innere Medizin\n\nArztbrief\n\nPatient: {name}, geb. {date_num}\nAnschrift: {address}\n\n",
    "{clinic}, Station 4B\n\nSehr geehrter {tname},\n\nwir berichten über Ihre Patientin {name}, geboren am {date}, ",
    "Entlassungsbericht\nFallnummer: {idnum}\nVersicherter: {name}, {address}\n\n",
)
CLINIC_BODY = (
    "Die Aufnahme erfolgte am {date} über den Rettungsdienst.",
    "Es besteht eine bekannte {diagnosis}; die Mutter der Patientin, {name}, ist pflegebedürftig.",
    "Die {age} Patientin ist {family} und arbeitet als {job}.",
    "Eine Kontrolle beim Hausarzt {tname} in {city} ist in zwei Wochen vorgesehen.",
    "Angehörige: {name}, Telefon {phone}.",
    "Der Befund wurde am {date_num} mit {same_t} besprochen.",
    "Die Krankenversichertennummer lautet {idnum}.",
)
CLINIC_CLOSINGS = (
    "\n\nMit kollegialen Grüßen\n{tname}\nOberarzt",
    "\n\n{tname}, Chefärztin\n{tname}, Assistenzarzt",
)

COURT_OPENINGS = (
    "{court}\nAktenzeichen: {case}\n\nIm Namen des Volkes\n\nUrteil\n\nIn dem Rechtsstreit\n\n{tname}, {address},\n- Kläger -\n\ngegen\n\n{org}, vertreten durch den Geschäftsführer {name},\n- Beklagte -\n\n",
    "Beschluss\n\nIn der Strafsache gegen {name}, geboren am {date} in {city}, wohnhaft {address},\nwegen Betruges\n\n",
    "Verfahren Nr. {case}\n\n{name} gegen {country}\n\n",
)
COURT_BODY = (
    "Der Kläger ist seit dem {date} bei der Beklagten als {job} tätig und bezog zuletzt ein Monatsgehalt von {amount}.",
    "Am {date} kam es in {city} zu einer Auseinandersetzung zwischen {same_t} und dem Zeugen {name}.",
    "Die Polizei vernahm {same_t} am Folgetag auf der Wache in {city}.",
    "Der Antragsgegner, {tname}, ist {nationality} und hält sich seit {year} in {country} auf.",
    "Mit Schreiben vom {date} legte der Verteidiger {tname} Berufung ein.",
    "Der Betrag wurde vom Konto {iban} auf ein Konto der {org} überwiesen.",
    "Die Kammer hat die Zeugin {tname} in der Sitzung vom {date} angehört.",
    "Das Gericht hat {iname} als Sachverständigen beauftragt.",
)
COURT_CLOSINGS = (
    "\n\n{tname}\nVorsitzende Richterin am {court}",
    "\n\n{city}, den {date}\n{tname}   {tname}   {tname}",
)


def _body(rng: random.Random, sentences: tuple[str, ...], lo: int, hi: int, sep: str = " ") -> str:
    return sep.join(rng.sample(sentences, rng.randint(lo, min(hi, len(sentences)))))


def letter(rng: random.Random) -> str:
    return rng.choice(LETTER_OPENINGS) + _body(rng, LETTER_BODY, 2, 4) + rng.choice(LETTER_CLOSINGS)


def hr_note(rng: random.Random) -> str:
    fields = rng.sample(HR_FIELDS, rng.randint(5, 10))
    fields.sort(key=HR_FIELDS.index)
    return "Personalakte\n\n" + "\n".join(fields) + "\n\n" + _body(rng, HR_NOTES, 1, 3, "\n")


def clinical(rng: random.Random) -> str:
    return rng.choice(CLINIC_OPENINGS) + _body(rng, CLINIC_BODY, 2, 5) + rng.choice(CLINIC_CLOSINGS)


def court(rng: random.Random) -> str:
    return rng.choice(COURT_OPENINGS) + "Tatbestand\n\n" + _body(rng, COURT_BODY, 2, 5) + rng.choice(COURT_CLOSINGS)


FAMILIES = {"letter": letter, "hr_note": hr_note, "clinical": clinical, "court": court}


def all_sentences() -> list[str]:
    """Every template piece of the families (for the check that none is a training sentence)."""
    groups = (LETTER_OPENINGS, LETTER_BODY, LETTER_CLOSINGS, HR_FIELDS, HR_NOTES, CLINIC_OPENINGS, CLINIC_BODY)
    groups += (CLINIC_CLOSINGS, COURT_OPENINGS, COURT_BODY, COURT_CLOSINGS)
    return [s for group in groups for s in group]
