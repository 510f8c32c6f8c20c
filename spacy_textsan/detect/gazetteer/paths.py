"""Where the gazetteer's files are: the data shipped in the package, the
user's cache directory, and the knowledge base ``kb_path = null`` reads.

Light on purpose: the ``wikidata_gazetteer`` component needs it at run time,
without the build-time modules (``offline_build``, ``wordnet``).
"""

import os
from pathlib import Path

from .kb import GazetteerKB

__all__ = ["DATA_DIR", "SHIPPED_KB_PATH", "default_cache_dir", "user_kb_path", "default_kb_path"]

#: Data files shipped in the package (lists, curated tables, the KB).
DATA_DIR = Path(__file__).parent / "data"
#: The knowledge base shipped with the package (``make kb`` rebuilds it).
SHIPPED_KB_PATH = DATA_DIR / "kb"


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/spacy_textsan``, else ``~/.cache/spacy_textsan``."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "spacy_textsan"


def user_kb_path() -> Path:
    """Where ``textsan gazetteer build`` writes a KB by default: ``$TEXTSAN_KB``,
    else ``~/.cache/spacy_textsan/kb_offline``."""
    env = os.environ.get("TEXTSAN_KB")
    return Path(env) if env else default_cache_dir() / "kb_offline"


def default_kb_path() -> Path:
    """The KB that ``kb_path = null`` reads: :func:`user_kb_path` when it holds
    a KB (one the user built), else the KB shipped with the package
    (:data:`SHIPPED_KB_PATH`)."""
    user = user_kb_path()
    return user if GazetteerKB.file_in(user) is not None else SHIPPED_KB_PATH
