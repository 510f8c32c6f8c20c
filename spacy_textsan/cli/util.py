"""Small helpers shared by the ``textsan`` sub-commands."""

from typing import NoReturn

import typer
from wasabi import color, msg


def fail(message: str) -> NoReturn:
    """Print an error and exit with code 1.

    Unlike ``msg.fail`` the message is not wrapped at 80 columns, so a file path
    with its line number (``/long/path/file.csv:3: ...``) stays on one line and can
    be copied or matched as it is.
    """
    text = f"✘ {message}"
    typer.echo(color(text, fg="red") if msg.show_color else text)
    raise typer.Exit(code=1)
