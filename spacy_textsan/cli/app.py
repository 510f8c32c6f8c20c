"""The ``textsan`` application: every command group, assembled in one place."""

import sys

import typer
from typer._click.exceptions import ClickException  # typer's own click (typer >= 0.26)

from ..about import __version__
from . import background, evaluate, gazetteer, kanon, mapping, sanitize, serve, training, visualize

app = typer.Typer(
    name="textsan",
    add_completion=False,
    no_args_is_help=True,
    help="spacy-textsan: find, measure and mask personal identifiers in text.",
)
app.command("sanitize")(sanitize.sanitize)
app.command("evaluate")(evaluate.evaluate)
app.command("visualize")(visualize.visualize)
app.add_typer(kanon.kanon_app, name="kanon", help="Background knowledge for kanon_risk (inverted index)")
app.add_typer(background.background_app, name="background", help="Background records of reid_risk (BM25 index)")
app.add_typer(
    gazetteer.gazetteer_app, name="gazetteer", help="Knowledge base of wikidata_gazetteer (build, import-dump)"
)
app.command("convert")(training.convert_cmd)
app.command("silver")(training.silver_cmd)
app.command("keygen")(mapping.keygen_cmd)
app.command("restore")(mapping.restore_cmd)
app.command("serve")(serve.serve_cmd)


@app.command()
def version() -> None:
    """Print the version."""
    print(__version__)


def main() -> None:
    """The ``textsan`` command: a usage error (an unknown option, a value of the
    wrong type) exits with 1, as every bad input or option does; 2 and 3 are
    left to runs whose documents fell back or failed closed."""
    try:
        code = app(standalone_mode=False)
    except ClickException as e:  # a usage error found by the parser
        e.show()
        sys.exit(1)
    except typer.Abort:
        typer.echo("Aborted!", err=True)
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)
