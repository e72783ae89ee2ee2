"""Writing the files a user names (records, graphs, plots, reports, batch and match files, the
folders of reports and certificates): one set of rules, checked before the work and kept while
writing (``docs/contract.md``, "Output paths").

- A device, a pipe or a socket is refused, before the work: it is not a file (``/dev/null``
  would be replaced by one, a pipe with no reader blocks).
- A symbolic link is written through: the file it points to gets the text; the link stays.
- A file is written whole or not at all: to a temporary file in the same folder, synced, then
  renamed over the target; a failed or interrupted write (a full disk, Ctrl-C) leaves the old
  file, or none, and no temporary file.
- Every error is a :class:`OutputPathError` naming the path as the user gave it.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, Final

from ..model.errors import PopeJoanError, clip


class OutputPathError(PopeJoanError):
    """An output path that cannot be written: not a regular file, no such folder, read-only,
    or a write that failed (a full disk)."""


PATH_SHOWN: Final = 200
"""The most characters of a path a message shows."""


def _shown(path: Path | str) -> str:
    return clip(str(path), PATH_SHOWN)


def _label(path: Path | str, option: str | None) -> str:
    """How a message names the path: ``--record 'x.json'``, or the path alone."""
    name = repr(_shown(path))
    return f"{option} {name}" if option else name


def _kind(path: Path | str, label: str) -> os.stat_result | None:
    """The file's status through any link, None when there is none; refuses a folder, a
    device, a pipe and a socket."""
    try:
        info = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):  # the folder is checked next
        return None
    except OSError as exc:  # a loop of links, a folder on the way that cannot be searched
        raise OutputPathError(f"{label}: cannot use it: {exc.strerror or exc}") from None
    if stat.S_ISDIR(info.st_mode):
        raise OutputPathError(f"{label} is a folder, not a file")
    if not stat.S_ISREG(info.st_mode):
        raise OutputPathError(f"{label} is not a regular file (a device, pipe or socket): "
                              "only a file is written")
    return info


def _target(path: Path | str, option: str | None) -> Path:
    """Where the bytes go: ``path``, or the file its symbolic link points to (which need not
    exist yet); its folder must exist."""
    label = _label(path, option)
    if str(path) == "":
        raise OutputPathError(f"{option or 'the output path'} names no file")
    target = Path(os.path.realpath(path))
    _kind(target, label)
    folder = target.parent
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist"
        raise OutputPathError(f"{label}: cannot write it: its folder {_shown(folder)!r} "
                              f"{what}")
    return target


def check_output_path(path: Path | str, option: str | None = None) -> Path:
    """Refuse, before the work, a path that could not be written (see the module's rules):
    returns the file that will get the bytes (``path`` through any symbolic link). A probe
    file is made and removed in its folder: a read-only folder or file system is found now."""
    label = _label(path, option)
    target = _target(path, option)
    if target.exists() and not os.access(target, os.W_OK):
        raise OutputPathError(f"{label}: cannot write it: it is read-only")
    try:
        fd, probe = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.",
                                     suffix=".probe")
    except OSError as exc:
        raise OutputPathError(f"{label}: cannot write it: {exc.strerror or exc}") from None
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(probe)
    return target


def check_output_folder(path: Path | str, option: str | None = None, *,
                        parents: bool = False) -> Path:
    """Refuse, before the work, a folder that could not be made or written into: a file, a
    device, a pipe or a socket in its place, or no folder to make it in (with ``parents``, the
    nearest folder that exists). Returns the folder through any symbolic link (it need not
    exist yet)."""
    label = _label(path, option)
    if str(path) == "":
        raise OutputPathError(f"{option or 'the output folder'} names no folder")
    target = Path(os.path.realpath(path))
    nearest = target
    while True:
        try:
            info = os.stat(nearest)
        except (FileNotFoundError, NotADirectoryError):
            if nearest == target or parents:
                nearest = nearest.parent
                continue
            raise OutputPathError(f"{label}: cannot make it: no folder "
                                  f"{_shown(nearest)!r}") from None
        except OSError as exc:
            raise OutputPathError(f"{label}: cannot use it: {exc.strerror or exc}") from None
        break
    if not stat.S_ISDIR(info.st_mode):
        what = "a file" if stat.S_ISREG(info.st_mode) else "a device, pipe or socket"
        if nearest == target:
            raise OutputPathError(f"{label} is {what}, not a folder")
        raise OutputPathError(f"{label}: cannot make it: no folder {_shown(nearest)!r} "
                              f"(it is {what})")
    if not os.access(nearest, os.W_OK | os.X_OK):
        raise OutputPathError(f"{label}: cannot write into it: it is read-only")
    return target


def _mode(existing: os.stat_result | None) -> int:
    """The permissions the new file gets: the old file's, or a new file's under the umask."""
    if existing is not None:
        return stat.S_IMODE(existing.st_mode)
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


@contextlib.contextmanager
def open_output(path: Path | str, option: str | None = None) -> Iterator[IO[bytes]]:
    """A binary file to write ``path``'s new contents into (for writers that stream, such as
    matplotlib): renamed over ``path`` (through a symbolic link) once the block ends and the
    bytes are on disk; removed if the block or the write fails. A failed write is a
    :class:`OutputPathError` naming ``path``."""
    target = _target(path, option)
    existing = _kind(target, _label(path, option))
    try:
        fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.",
                                         suffix=".part")
    except OSError as exc:
        raise OutputPathError(f"cannot write {_shown(path)}: {exc.strerror or exc}") \
            from None
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, _mode(existing))
        if existing is not None:
            with contextlib.suppress(OSError):  # kept when we may (root writing a user's file)
                os.chown(temporary, existing.st_uid, existing.st_gid)
        os.replace(temporary, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(exc, OSError):
            raise OutputPathError(f"cannot write {_shown(path)}: "
                                  f"{exc.strerror or exc}") from None
        raise


def write_output(path: Path | str, data: str | bytes, option: str | None = None) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` whole or not at all, by the module's rules."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    with open_output(path, option) as handle:
        handle.write(raw)


def save_figure(figure: Any, path: Path | str, option: str | None = None) -> None:
    """Save a matplotlib figure to ``path`` (its format by the suffix, ``.png`` or ``.svg``)
    whole or not at all, by the module's rules."""
    with open_output(path, option) as handle:
        figure.savefig(handle, format=Path(path).suffix.lower().lstrip(".") or None)
