"""The ``textsan`` application: every command group, assembled in one place."""

import typer

from ..about import __version__
from . import evaluate, gazetteer, kanon, mapping, sanitize, training, visualize

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
app.add_typer(
    gazetteer.gazetteer_app, name="gazetteer", help="Knowledge base of wikidata_gazetteer (build, import-dump)"
)
app.command("convert")(training.convert_cmd)
app.command("silver")(training.silver_cmd)
app.command("keygen")(mapping.keygen_cmd)
app.command("restore")(mapping.restore_cmd)


@app.command()
def version() -> None:
    """Print the version."""
    print(__version__)


def main() -> None:
    app()
