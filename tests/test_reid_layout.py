"""reid_risk's layout: the groups the attack masks words in are what its masks hide in the text."""

import spacy

from spacy_textsan.decide.reid_layout import Layout
from spacy_textsan.extensions import register_extensions

register_extensions()


def test_the_words_of_one_written_word_or_token_are_one_group():
    # the analyser reads the IPA token `ˈkaɪ̯tl̩` as two words (a combining mark is no word character) and
    # `Montreal-based` as two; a mask hides the whole token (reid_risk's _apply grows it to tokens), so the
    # attack must not count `tl` or `based` as visible once `ˈkaɪ` or `Montreal` is masked
    doc = spacy.blank("en")("Keitel (pronunciation: [ˈkaɪ̯tl̩]) was a Montreal-based general.")
    layout = Layout(doc, "textsan")
    words = layout.words
    assert [(w.folded, g) for w, g in zip(words.words, words.group, strict=True)] == [
        ("keitel", 0),
        ("pronunciation", 1),
        ("ˈkaɪ", 2),
        ("tl", 2),
        ("was", 3),
        ("a", 4),
        ("montreal", 5),
        ("based", 5),
        ("general", 6),
    ]
    # a group's cost and offsets are its whole token (`ˈkaɪ̯tl̩`: 8 characters, its two combining marks too)
    assert layout.free[2] == (24, 32) and doc.text[24:32] == "ˈkaɪ̯tl̩" and words.group_cost[2] == 8
    assert layout.free[5] == (41, 55) and words.group_cost[5] == len("Montreal-based")
