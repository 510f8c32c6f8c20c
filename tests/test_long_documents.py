"""Issue 17, item 5: a document over spaCy's 1,000,000-character limit is
sanitized (in pieces where a model runs), never redacted whole for its length."""

from pathlib import Path

from spacy_textsan.pipeline import MAX_DOCUMENT_CHARS, load_pipeline
from spacy_textsan.run import sanitize_texts

RULES = str(Path(__file__).parent / "fixtures" / "cli" / "rules_only.cfg")


def test_a_document_over_a_million_characters_is_sanitized_not_redacted():
    nlp = load_pipeline(RULES)
    assert nlp.max_length == MAX_DOCUMENT_CHARS
    filler = "The hearing was adjourned and the parties were heard again. " * 40
    text = "\n\n".join([filler] * 420) + "\n\nMr Ada Lee lodged application no. 48213/09 on 2 May 1961."
    assert len(text) > 1_000_000
    (result,) = sanitize_texts(nlp, [text])
    assert result.status == "ok" and not result.errors
    assert result.sanitized.endswith("[PERSON 1] lodged application no. [CODE 1] on [DATETIME 1].")
    assert result.sanitized[:200] == text[:200]
