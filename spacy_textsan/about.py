__title__ = "spacy-textsan"
__version__ = "0.1.0"
