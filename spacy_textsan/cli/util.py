"""Small helpers shared by the ``textsan`` sub-commands."""

from typing import NoReturn

import typer
from wasabi import color, msg


class BadUsage(typer.Exit):
    """Bad input or options: exit code 1, nothing written (see :func:`fail`)."""

    def __init__(self, message: str) -> None:
        super().__init__(1)
        self.message = message

    def __str__(self) -> str:
        return self.message


def fail(message: str) -> NoReturn:
    """Print ``message`` on stderr and stop the command with exit code 1.

    Unlike ``msg.fail`` the message is not wrapped at 80 columns, so a file path
    with its line number (``/long/path/file.csv:3: ...``) stays on one line and can
    be copied or matched as it is.
    """
    text = f"✘ {message}"
    typer.echo(color(text, fg="red") if msg.show_color else text, err=True)
    raise BadUsage(message)
