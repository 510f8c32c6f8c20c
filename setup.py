"""spacy-textsan: privacy-risk-aware text sanitization for spaCy.

All metadata lives in setup.cfg; this file exists so that `pip install .`
and `python setup.py` both work on older tool chains.
"""
from setuptools import setup

if __name__ == "__main__":
    setup()
