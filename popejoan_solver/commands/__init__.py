"""Subcommands kept in modules of their own: each module here defines ``register(sub)``.

``register`` adds its parser to the ``popejoan`` subparsers and sets ``func`` to a function
``(argparse.Namespace) -> int``; ``cli.build_parser`` finds every module of this package, so a
new command touches no shared file. Heavy imports belong inside the command's function.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
from typing import Any


def register_all(sub: Any) -> None:
    """Add every command module's parser to ``sub`` (argparse's subparsers action)."""
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(sub)


def add_help_parser(sub: Any, name: str, help_text: str) -> argparse.ArgumentParser:
    """A subcommand parser whose description is its help line, as the built-in ones."""
    parser: argparse.ArgumentParser = sub.add_parser(name, help=help_text,
                                                     description=help_text)
    return parser
