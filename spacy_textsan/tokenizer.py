"""The tokenizer of the bundled pipelines: spaCy's own, with ``;`` and ``|``
splitting tokens too.

Records pasted into a text (``42;Halvorsen;Peder;+47 912 34 567;Bergen``,
``nurse | Bergen | +47 ...``) are one token to spaCy's English tokenizer, so
token-based components (the gazetteer's matcher, spans) cannot see the
fields. Registered as ``spacy_textsan.Tokenizer.v1``; use it in a config with
``[nlp.tokenizer] @tokenizers = "spacy_textsan.Tokenizer.v1"``.
"""

from collections.abc import Callable

from spacy.language import Language
from spacy.tokenizer import Tokenizer
from spacy.util import compile_infix_regex, registry

#: Characters that separate the fields of a record even without spaces around them.
FIELD_SEPARATORS = r"[;|]"


@registry.tokenizers("spacy_textsan.Tokenizer.v1")
def create_tokenizer() -> Callable[[Language], Tokenizer]:
    base = registry.tokenizers.get("spacy.Tokenizer.v1")()

    def make_tokenizer(nlp: Language) -> Tokenizer:
        tokenizer = base(nlp)
        infixes = list(nlp.Defaults.infixes or []) + [FIELD_SEPARATORS]
        tokenizer.infix_finditer = compile_infix_regex(infixes).finditer
        return tokenizer

    return make_tokenizer
