"""The entry point of privacy_ner's NER process (``python -m
spacy_textsan.privacy_ner.source_child``): :func:`.source_process.main`. A
module of its own, which the package never imports, so that ``-m`` runs it
cleanly."""

from .source_process import main

if __name__ == "__main__":
    main()
