"""Issue 17, item 8: pseudonyms without a key are not recoverable by a reader.
Keyless, the ``pseudonym`` strategy used to derive its date offset from the
document text alone, so a reader could test every guess at an original date
with the package's own functions. It now keys the document with a per-user
secret, made on first use (mode 0600) in the user's config directory."""

import datetime
import logging
import os
import pickle
import stat
from pathlib import Path

import pytest

from spacy_textsan.pipeline import load_pipeline
from spacy_textsan.render.keys import MissingKeyError, Secret, config_dir
from spacy_textsan.render.operators import ReplacementContext
from spacy_textsan.render.surrogates import document_shift, entity_seed, shift_dates

RULES = str(Path(__file__).parent / "fixtures" / "cli" / "rules_only.cfg")
KEYLESS = {"components.generalizer.strategy": "pseudonym", "components.generalizer.key_env": None}
PREFIX = "Date of birth: "
BORN = "7 November 1982"
SECRET = "5f0c" * 16  # a per-user secret as the package writes one: 64 hex digits
LETTER = "Ada Lee, born on 14 March 1961, lodged application no. 48213/09 on 20 March 2009."


def _config(path: Path, secret: str | None = None) -> Path:
    """A config directory holding ``secret`` as its per-user secret (mode 0600)."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    if secret is not None:
        (path / "secret.key").write_text(secret + "\n")
        os.chmod(path / "secret.key", 0o600)
    return path


def _attack(sanitized_date: str, doc_secret) -> list[str]:
    """Every date of 80 years whose document, sanitized with the offset that
    ``doc_secret(text)`` gives, would read ``sanitized_date``: the issue's attack."""
    found = []
    day = datetime.date(1940, 1, 1)
    while day.year < 2020:
        guess = f"{day.day} {day:%B %Y}"
        days, years = document_shift(entity_seed(doc_secret(PREFIX + guess), "shift"))
        if shift_dates(guess, days, years) == sanitized_date:
            found.append(guess)
        day += datetime.timedelta(days=1)
    return found


def test_a_reader_cannot_recover_the_date_of_birth(tmp_path, monkeypatch):
    monkeypatch.setenv("TEXTSAN_CONFIG_DIR", str(_config(tmp_path / "cfg", SECRET)))
    doc = load_pipeline(RULES, KEYLESS)(PREFIX + BORN)
    assert [(s.text, s.label_) for s in doc.spans["textsan"]] == [(BORN, "DATETIME")]
    assert doc._.sanitized_text == PREFIX + "15 January 1981"
    output = doc._.sanitized_text.removeprefix(PREFIX)

    def unkeyed(text: str) -> bytes:  # the old derivation: the document's digest alone
        return ReplacementContext(text, []).doc_secret

    def keyed(text: str) -> bytes:  # what the component does now, with the secret
        return ReplacementContext(text, [], user_secret=Secret(SECRET.encode())).doc_secret

    # the old derivation (what the component wrote before: checked against it) gave the original
    # away: of 80 years of dates, two would have given its output, the original one of them
    days, years = document_shift(entity_seed(unkeyed(PREFIX + BORN), "shift"))
    old_output = shift_dates(BORN, days, years)
    assert old_output == "23 February 1981" and _attack(old_output, unkeyed) == ["15 December 1976", BORN]
    # the output now is not what the text alone derives, and the same search, run by a reader
    # without the secret, finds a date that is not the original (chance: any offset is equally
    # likely); only with the secret is the original among the dates found
    assert output != old_output
    assert _attack(output, unkeyed) == ["22 October 1989"]
    # ("4 May 1979": "May" is a full month name, moved to "January", not to the abbreviation "Jan")
    assert _attack(output, keyed) == ["11 June 1972", "4 May 1979", BORN, "1 October 1989"]


def test_the_secret_is_made_once_private_in_the_config_dir(tmp_path, monkeypatch, caplog):
    where = tmp_path / "home" / "cfg"
    monkeypatch.setenv("TEXTSAN_CONFIG_DIR", str(where))
    assert config_dir() == where
    with caplog.at_level(logging.WARNING, logger="spacy_textsan"):
        first = load_pipeline(RULES, KEYLESS)(LETTER)._.sanitized_text
    secret = where / "secret.key"
    assert caplog.messages == [
        f"created a per-user secret for pseudonyms without a key at {secret} (readable by you only): the same "
        "input gives the same output for this user on this machine only; for reproducible output across users "
        "and machines, give a shared key with --key-file or $TEXTSAN_KEY"
    ]
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600 and stat.S_IMODE(where.stat().st_mode) == 0o700
    value = secret.read_text()
    assert len(value) == 65 and value.endswith("\n") and bytes.fromhex(value.strip())
    assert sorted(p.name for p in where.iterdir()) == ["secret.key"]  # no temporary file left behind
    # a second run reads the same secret, says nothing and gives the same output
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="spacy_textsan"):
        second = load_pipeline(RULES, KEYLESS)(LETTER)._.sanitized_text
    assert caplog.messages == [] and second == first and secret.read_text() == value
    assert first != LETTER and "Ada Lee" not in first and "1961" not in first


def test_the_config_dir_falls_back_to_xdg_then_home(tmp_path, monkeypatch):
    monkeypatch.delenv("TEXTSAN_CONFIG_DIR")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert config_dir() == tmp_path / "xdg" / "spacy-textsan"
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/xdg")  # ignored, as the XDG spec says
    monkeypatch.setenv("HOME", str(tmp_path / "me"))
    assert config_dir() == tmp_path / "me" / ".config" / "spacy-textsan"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    assert config_dir() == tmp_path / "me" / ".config" / "spacy-textsan"
    monkeypatch.setenv("TEXTSAN_CONFIG_DIR", "rel/cfg")  # made absolute: a pickle re-reads it from anywhere
    monkeypatch.chdir(tmp_path)
    assert config_dir() == tmp_path / "rel" / "cfg"


def test_another_secret_gives_other_pseudonyms_within_a_document_they_agree(tmp_path, monkeypatch):
    outputs = []
    for name, secret in [("a", SECRET), ("b", "a1b2" * 16)]:
        monkeypatch.setenv("TEXTSAN_CONFIG_DIR", str(_config(tmp_path / name, secret)))
        doc = load_pipeline(RULES, KEYLESS)(LETTER + " Ada Lee signed.")
        reps = [s._.replacement for s in doc.spans["textsan"] if s.text == "Ada Lee"]
        assert len(reps) == 2 and reps[0] == reps[1]
        outputs.append(doc._.sanitized_text)
    assert outputs[0] != outputs[1]


def test_with_a_key_the_user_secret_plays_no_part(tmp_path, monkeypatch):
    key = tmp_path / "key"
    key.write_text("shared-key")
    with_key = {"components.generalizer.strategy": "pseudonym", "components.generalizer.key_file": str(key)}
    outputs = []
    for name, secret in [("a", SECRET), ("b", None)]:
        where = _config(tmp_path / name, secret)
        monkeypatch.setenv("TEXTSAN_CONFIG_DIR", str(where))
        outputs.append(load_pipeline(RULES, with_key)(LETTER)._.sanitized_text)
        # and no other strategy with a key, nor mask, makes a secret
        load_pipeline(RULES, {"components.generalizer.strategy": "mask"})
        monkeypatch.setenv("TEXTSAN_KEY", "k")
        load_pipeline(RULES, {"components.generalizer.strategy": "hash"})
        monkeypatch.delenv("TEXTSAN_KEY")
    assert outputs[0] == outputs[1]
    assert not (tmp_path / "b" / "secret.key").exists()
    monkeypatch.setenv("TEXTSAN_CONFIG_DIR", str(tmp_path / "a"))
    assert load_pipeline(RULES, KEYLESS)(LETTER)._.sanitized_text != outputs[0]


def test_a_pickled_pipeline_holds_no_user_secret_and_reads_it_again(tmp_path, monkeypatch):
    where = _config(tmp_path / "cfg", SECRET)
    monkeypatch.setenv("TEXTSAN_CONFIG_DIR", str(where))
    nlp = load_pipeline(RULES, KEYLESS)
    data = pickle.dumps(nlp)
    assert SECRET.encode() not in data and bytes.fromhex(SECRET) not in data
    monkeypatch.setenv("TEXTSAN_CONFIG_DIR", str(tmp_path / "elsewhere"))  # the pickle names its file
    again = pickle.loads(data)
    assert again.get_pipe("generalizer").user_secret == Secret(SECRET.encode())
    assert again(LETTER)._.sanitized_text == nlp(LETTER)._.sanitized_text
    assert not (tmp_path / "elsewhere").exists()
    (where / "secret.key").unlink()  # gone: refused, never silently replaced by a new one
    with pytest.raises(MissingKeyError) as e:
        pickle.loads(data)
    assert str(e.value) == (
        f"the per-user secret {where / 'secret.key'} is missing (output without a key is reproducible only "
        "where its secret is); give a surrogate key instead (key_file, --key-file or $TEXTSAN_KEY)"
    )
    assert not (where / "secret.key").exists()


def test_a_secret_open_to_others_empty_or_unmakeable_is_refused(tmp_path, monkeypatch):
    where = _config(tmp_path / "cfg", SECRET)
    secret = where / "secret.key"
    monkeypatch.setenv("TEXTSAN_CONFIG_DIR", str(where))
    give = "give a surrogate key instead (key_file, --key-file or $TEXTSAN_KEY)"
    os.chmod(secret, 0o640)
    with pytest.raises(ValueError) as e:
        load_pipeline(RULES, KEYLESS)
    assert str(e.value).endswith(
        f"generalizer: the pseudonym strategy without a key: the per-user secret {secret} is open to other "
        f"users (mode 0640): make it private (chmod 600 {secret}), or {give}"
    )
    secret.write_text("\n")
    os.chmod(secret, 0o600)
    with pytest.raises(ValueError) as e:
        load_pipeline(RULES, KEYLESS)
    assert str(e.value).endswith(f"the per-user secret {secret} is empty: remove it to have a new one made, or {give}")
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("TEXTSAN_CONFIG_DIR", str(tmp_path / "file" / "cfg"))
    with pytest.raises(ValueError) as e:
        load_pipeline(RULES, KEYLESS)
    assert str(e.value).endswith(
        f"cannot create the per-user secret {tmp_path / 'file' / 'cfg' / 'secret.key'}: Not a directory; {give}"
    )
