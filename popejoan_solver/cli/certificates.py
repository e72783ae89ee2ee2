"""``--certificate DIR`` of ``prove`` and ``find``: the folder checked as every output path
is, and the command line its manifest records."""

from __future__ import annotations

import argparse
import sys

from ..files.writing import check_output_folder


def certificate_folder(args: argparse.Namespace) -> str | None:
    """``--certificate DIR`` checked as every output path is (``files.writing``): the
    folder through any symbolic link, or None."""
    if args.certificate is None:
        return None
    return str(check_output_folder(args.certificate, "--certificate"))


def command_line(args: argparse.Namespace) -> list[str]:
    """The command line, for a certificate's manifest."""
    return ["popejoan", *(sys.argv[1:] if args.argv is None else args.argv)]


def internal_error(exc: Exception, advice: str) -> None:
    """The one line of a proof that failed its own check: a bug of the tool, not a verdict."""
    from ..model.errors import clip

    print(f"error: internal error: {clip(str(exc), 400)} ({advice})", file=sys.stderr)
