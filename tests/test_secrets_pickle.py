"""Issue 17, item 10: secrets are never part of a pickled pipeline. A key read
from a file or a variable is pickled as where it came from and read again on
unpickling; a key made from bytes alone refuses to be pickled."""

import copy
import pickle
from pathlib import Path

import pytest

from spacy_textsan.pipeline import load_pipeline
from spacy_textsan.render.keys import Secret, read_key

RULES = str(Path(__file__).parent / "fixtures" / "cli" / "rules_only.cfg")
KEY = b"pickle-test-key-7f3a91"
TEXT = "Mr Ada Lee was born on 2 May 1961 and lodged application no. 48213/09."


def test_a_pickled_pipeline_holds_no_key_and_reads_it_again(tmp_path, monkeypatch):
    monkeypatch.setenv("TEXTSAN_KEY", KEY.decode())
    nlp = load_pipeline(RULES, {"components.generalizer.strategy": "pseudonym"})
    data = pickle.dumps(nlp)
    assert KEY not in data
    again = pickle.loads(data)
    assert again.get_pipe("generalizer").key == Secret(KEY)
    assert again(TEXT)._.sanitized_text == nlp(TEXT)._.sanitized_text
    # a key file: the pickle holds its path, not its bytes
    key_file = tmp_path / "key.txt"
    key_file.write_bytes(KEY + b"\n")
    secret = read_key(key_file)
    assert secret.source == ("file", str(key_file)) and KEY not in pickle.dumps(secret)
    key_file.write_bytes(b"rotated")  # read again at unpickling, from the same place
    assert pickle.loads(pickle.dumps(secret)) == Secret(b"rotated")
    monkeypatch.delenv("TEXTSAN_KEY")
    with pytest.raises(Exception, match=r"no key: set \$TEXTSAN_KEY"):
        pickle.loads(data)  # the key is gone: no pipeline that silently lacks it


def test_a_secret_from_bytes_alone_cannot_be_pickled_or_copied():
    with pytest.raises(TypeError, match="cannot be pickled"):
        pickle.dumps(Secret(KEY))
    with pytest.raises(TypeError, match="cannot be pickled"):
        copy.deepcopy(Secret(KEY))
    assert repr(Secret(KEY)) == "Secret(***)"
