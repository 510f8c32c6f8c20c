"""Install a pipeline made by ``python -m spacy package`` in a clean virtual
environment (with spacy-textsan from this checkout) and sanitize a sentence.

    python scripts/check_package.py packages/en_textsan_trained-0.1.0 [--venv /tmp/venv]
    python scripts/check_package.py packages/en_textsan_trained-0.1.0 --site-packages [DIR]

By default the venv is empty and pip installs spacy-textsan (this checkout) and the package with
their dependencies. With ``--site-packages [DIR]`` the venv sees the packages of DIR (default: those of the
interpreter running this script, e.g. this project's venv: no download) and the package is installed with ``--no-deps``. The sentence is
sanitized from a temporary working directory, so the installed code runs, not the checkout's.
With ``--evaluate RESULTS`` the installed package is then scored on TAB dev by
``benchmarks/trained_eval.py --only-assembled`` in that venv, from the temporary working directory,
and its result added to RESULTS (e.g. benchmarks/results/trained_dev.json) as "installed package
<name> (...)".
Exits non-zero when the install, the import or the sanitization fails.
"""
import argparse
import json
import subprocess
import sys
import sysconfig
import tempfile
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SENTENCE = "Mr Galip Yalman, a lawyer in Ankara, lodged application no. 48213/09 on 14 March 2009."


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("package_dir", type=Path, help="packages/<lang>_<name>-<version> (made by spacy package)")
    ap.add_argument("--venv", type=Path, default=None, help="where to create the venv (default: a temp folder)")
    ap.add_argument("--site-packages", type=Path, nargs="?", default=None, const=Path(sysconfig.get_paths()["purelib"]),
                    help="a site-packages folder the venv sees (alone: this interpreter's); the package is then "
                         "installed with --no-deps")
    ap.add_argument("--evaluate", type=Path, default=None,
                    help="a trained_eval results file to add the installed package's TAB dev scores to")
    args = ap.parse_args()
    dists = sorted((args.package_dir / "dist").glob("*.tar.gz")) + sorted((args.package_dir / "dist").glob("*.whl"))
    if not dists:
        print(f"{args.package_dir}/dist holds no sdist or wheel (run spacy package with --build sdist)")
        return 1
    meta = json.loads((args.package_dir / "meta.json").read_text()) if (args.package_dir / "meta.json").exists() \
        else {}
    name = f"{meta.get('lang', 'en')}_{meta.get('name', '')}" if meta else dists[-1].name.split("-")[0]
    with tempfile.TemporaryDirectory() as tmp:
        env_dir = args.venv or Path(tmp) / "venv"
        venv.create(env_dir, with_pip=True)
        py = str(env_dir / "bin" / "python")
        if args.site_packages:
            site = subprocess.run([py, "-c", "import site; print(site.getsitepackages()[0])"],
                                  capture_output=True, text=True, check=True).stdout.strip()
            Path(site, "_check_package_base.pth").write_text(
                f"import site; site.addsitedir({str(args.site_packages.resolve())!r})\n")
            steps = [[py, "-m", "pip", "install", "-q", "--no-deps", str(dists[-1])]]
        else:
            steps = [[py, "-m", "pip", "install", "-q", str(ROOT)],
                     [py, "-m", "pip", "install", "-q", str(dists[-1])]]
        for cmd in steps:
            print("$", " ".join(cmd), flush=True)
            if subprocess.run(cmd).returncode != 0:
                return 1
        code = (f"import spacy, json; nlp = spacy.load({name!r}); doc = nlp({SENTENCE!r}); "
                "print(json.dumps({'pipeline': nlp.pipe_names, 'sanitized': doc._.sanitized_text}))")
        out = subprocess.run([py, "-c", code], capture_output=True, text=True, cwd=tmp)
        print(out.stdout or out.stderr)
        if out.returncode != 0:
            return 1
        result = json.loads(out.stdout.strip().splitlines()[-1])
        if "Galip" in result["sanitized"] or "48213/09" in result["sanitized"]:
            print("the packaged pipeline left a direct identifier in clear")
            return 1
        if args.evaluate:
            how = "pip install --no-deps of the sdist" if args.site_packages else "pip install of the sdist"
            cmd = [py, str(ROOT / "benchmarks" / "trained_eval.py"), "--only-assembled", "--assembled", name,
                   "--merge-as", f"installed package {name} ({how}, fresh venv)",
                   "--out", str(args.evaluate.resolve())]
            print("$", " ".join(cmd), flush=True)
            if subprocess.run(cmd, cwd=tmp).returncode != 0:
                return 1
    print(f"OK: {name} installs and sanitizes in a clean venv")
    return 0


if __name__ == "__main__":
    sys.exit(main())
