"""Reading the text a user hands over (deal, case and record files, standard input): bounded,
UTF-8, with one clear error for anything else."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Final

from ..model.errors import InputError, clip

MAX_INPUT_BYTES: Final = 1 << 20
"""The largest deal, case or record file read (1 MiB)."""


def read_bounded(stream: Any, where: str, limit: int = MAX_INPUT_BYTES) -> str:
    """At most ``limit`` bytes of UTF-8 text from a binary (or text) stream: a device such as
    /dev/zero, whose size reads as 0, is never read past the limit."""
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise InputError(f"{where} is larger than {limit} bytes")
    if isinstance(data, str):
        return data
    try:
        return bytes(data).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{where} is not UTF-8 text (byte {exc.start})") from None


def read_text_file(path: Path | str, limit: int = MAX_INPUT_BYTES) -> str:
    """A text file's contents, refusing a folder, a missing file and more than ``limit`` bytes."""
    name = clip(str(path))
    if os.path.isdir(path):
        raise InputError(f"{name} is a directory, not a file")
    try:
        with open(path, "rb") as handle:
            return read_bounded(handle, name, limit)
    except FileNotFoundError:
        raise InputError(f"no such file: {name}") from None
    except PermissionError:
        raise InputError(f"{name}: permission denied") from None
