"""Code shipped inside a pipeline packaged with ``python -m spacy package --code``.

``spacy package`` copies this file into the package and imports it when the
pipeline loads, so that every spacy-textsan factory and registered function
(``supervised_risk``, ``privacy_ner``, the suggester...) is registered even where
entry points are not scanned. The components' code itself comes from the
``spacy-textsan`` distribution, which the package lists as a requirement.
"""

import spacy_textsan  # noqa: F401  (registers the factories)
from spacy_textsan import decide, detect, render, risk  # noqa: F401
from spacy_textsan.decide import reid_risk, residual_risk  # noqa: F401
from spacy_textsan.detect import gazetteer, privacy_ner  # noqa: F401
from spacy_textsan.risk import supervised_risk  # noqa: F401
