"""Run a command and write its wall-clock seconds to a file (for training times in project.yml).

    python scripts/timed.py training/ner/train_seconds.txt python -m spacy train ...
"""
import subprocess
import sys
import time
from pathlib import Path


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    out, cmd = Path(sys.argv[1]), sys.argv[2:]
    if cmd[0] in ("python", "python3"):          # the interpreter of spacy project run (the venv's)
        cmd[0] = sys.executable
    start = time.perf_counter()
    rc = subprocess.run(cmd).returncode
    if rc == 0:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(f"{time.perf_counter() - start:.1f} seconds: {' '.join(cmd)}\n")
    return rc


if __name__ == "__main__":
    sys.exit(main())
