"""The tokenizer of the bundled pipelines: spaCy's own, with ``;`` and ``|``
splitting tokens too, and linear in the length of the text.

Records pasted into a text (``42;Halvorsen;Peder;+47 912 34 567;Bergen``,
``nurse | Bergen | +47 ...``) are one token to spaCy's English tokenizer, so
token-based components (the gazetteer's matcher, spans) cannot see the
fields. Registered as ``spacy_textsan.Tokenizer.v1``; use it in a config with
``[nlp.tokenizer] @tokenizers = "spacy_textsan.Tokenizer.v1"``.

spaCy's tokenizer is quadratic in the length of a run of text without
whitespace: each prefix or suffix it strips (``((((``, ``____``) costs a search
of the whole rest of the run, and its ``url_match`` pattern is quadratic on
``1:1:1:...``, ``ab:ab:...`` or URLs run together. A run of 20,000 such
characters took 25 s, one of 200,000 hours. :class:`LinearTokenizer` cuts every
run longer than :data:`MAX_RUN` characters into pieces of :data:`PIECE`
characters and tokenizes the pieces apart: the work is then at most linear in
the text. A run that long is no word, number or URL that a component needs
whole; the text of the ``Doc`` is the input's, character for character. A text
without such a run (every ordinary text) is tokenized by spaCy's tokenizer
alone, into exactly the tokens it gave before.
"""

import re
from collections.abc import Callable, Iterator
from itertools import pairwise
from typing import cast

import numpy
from spacy.attrs import NORM
from spacy.language import Language
from spacy.tokenizer import Tokenizer
from spacy.tokens import Doc
from spacy.util import compile_infix_regex, registry
from thinc.types import Ints2d

#: Characters that separate the fields of a record even without spaces around them.
FIELD_SEPARATORS = r"[;|]"
#: The longest run of characters without whitespace that is tokenized whole.
MAX_RUN = 1000
#: The length of the pieces a longer run is cut into: the cost of a piece is at
#: worst quadratic in this, so the cost of a run is at worst linear in its length.
PIECE = 100
#: A run of more than :data:`MAX_RUN` characters that are not whitespace (what
#: ``str.isspace`` calls whitespace, as spaCy's tokenizer does). The look-behind
#: lets it start only where a run starts, so that finding the runs is linear.
_LONG_RUN = re.compile(rf"(?<!\S)\S{{{MAX_RUN + 1},}}")


def cut_points(text: str) -> Iterator[int]:
    """The offsets at which :class:`LinearTokenizer` cuts ``text``: every
    :data:`PIECE` characters inside each run of more than :data:`MAX_RUN`
    characters without whitespace; none in a text without such a run."""
    for match in _LONG_RUN.finditer(text):
        yield from range(match.start() + PIECE, match.end(), PIECE)


class LinearTokenizer(Tokenizer):
    """spaCy's :class:`~spacy.tokenizer.Tokenizer`, except that a text with a
    run of more than :data:`MAX_RUN` characters without whitespace is cut inside
    its long runs (:func:`cut_points`) and tokenized piece by piece into one
    ``Doc``. Every cut falls between two non-whitespace characters, so the
    pieces' tokens and whitespace are those of the text outside the long runs.
    Serialisation, pickling, ``pipe``, special cases and ``explain`` are spaCy's."""

    def __call__(self, string: str) -> Doc:
        cuts = list(cut_points(string))
        if not cuts:
            return super().__call__(string)
        tokenize = super().__call__
        docs = [tokenize(string[a:b]) for a, b in pairwise([0, *cuts, len(string)])]
        # one Doc of the pieces' tokens, with their whitespace and the norms that special cases set
        words = [token.text for piece in docs for token in piece]
        spaces = [bool(token.whitespace_) for piece in docs for token in piece]
        norms = cast(Ints2d, numpy.concatenate([piece.to_array([NORM]) for piece in docs]))
        doc = Doc(self.vocab, words=words, spaces=spaces)
        doc.from_array([NORM], norms)
        assert doc.text == string
        return doc


def linear_tokenizer(tokenizer: Callable[[str], Doc]) -> Callable[[str], Doc]:
    """A :class:`LinearTokenizer` with the settings of the spaCy ``tokenizer``
    (vocab, special cases, affix and URL patterns, cache size): the same tokens
    on every text without a run of more than :data:`MAX_RUN` characters
    without whitespace. For the tokenizer of a pipeline loaded apart (a source
    NER): ``nlp.tokenizer = linear_tokenizer(nlp.tokenizer)``. A tokenizer that
    is not spaCy's rule-based one (or is already linear) is returned as it is."""
    if not isinstance(tokenizer, Tokenizer) or isinstance(tokenizer, LinearTokenizer):
        return tokenizer
    return LinearTokenizer(
        tokenizer.vocab,
        rules=tokenizer.rules,
        prefix_search=tokenizer.prefix_search,
        suffix_search=tokenizer.suffix_search,
        infix_finditer=tokenizer.infix_finditer,
        token_match=tokenizer.token_match,
        url_match=tokenizer.url_match,
        faster_heuristics=tokenizer.faster_heuristics,
        max_cache_size=tokenizer.max_cache_size,
    )


@registry.tokenizers("spacy_textsan.Tokenizer.v1")
def create_tokenizer() -> Callable[[Language], Tokenizer]:
    base = registry.tokenizers.get("spacy.Tokenizer.v1")()

    def make_tokenizer(nlp: Language) -> Tokenizer:
        # spaCy's own tokenizer (spacy.Tokenizer.v1), with the field separators among the infixes, made linear
        tokenizer = base(nlp)
        infixes = list(nlp.Defaults.infixes or []) + [FIELD_SEPARATORS]
        tokenizer.infix_finditer = compile_infix_regex(infixes).finditer
        return cast(Tokenizer, linear_tokenizer(tokenizer))

    return make_tokenizer
