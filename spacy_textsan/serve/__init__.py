"""``textsan serve``: spacy-textsan as a local web service (FastAPI + uvicorn,
``pip install spacy-textsan[serve]``).

:func:`spacy_textsan.serve.app.create_app` makes the application of a loaded
pipeline with :class:`spacy_textsan.serve.settings.ServeSettings`: the review
page, its JSON API (``/api/...``), Presidio-shaped ``/analyze`` and
``/anonymize``, ``/health``, ``/metrics`` and offline ``/docs``. This package
imports nothing of FastAPI itself, so that ``textsan`` runs without it.

An entry layer like ``cli/``: it may use the run layer (the fail-closed
:func:`~spacy_textsan.run.runner.sanitize_texts`); nothing below imports it.
"""
