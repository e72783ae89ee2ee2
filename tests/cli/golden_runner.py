"""Runs one command line in-process, as the shell would, and renders what it did as text.

The golden set (``tests/cli/test_golden_invocations.py``) pins the whole observable result of
each command line: its exit status, standard output and standard error, with only what varies
from run to run (seconds, node counts of threaded searches, temporary paths) masked.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from popejoan_solver.cli import main

SECONDS = re.compile(r"\b\d+\.\d+ ?s\b")
RATE = re.compile(r"\(\d+\.\d+ [a-z-]+/s\)")
STATS_LINE = re.compile(r"^\d+ nodes, .* engine.*$", re.MULTILINE)
REPO = Path(__file__).resolve().parents[2]
VOLATILE_JSON_KEYS = frozenset({"seconds", "nodes", "core", "threads", "elapsed",
                                "median_seconds", "mean_seconds", "worst_seconds"})


@contextlib.contextmanager
def _streams(stdin: bytes | None) -> Iterator[tuple[io.StringIO, io.StringIO]]:
    """Standard input from ``stdin`` (closed when None), output and error captured."""
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin, sys.stdout, sys.stderr
    new_in = io.TextIOWrapper(io.BytesIO(stdin or b""), encoding="utf-8")
    sys.stdin, sys.stdout, sys.stderr = new_in, out, err
    try:
        yield out, err
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved


def _mask_json(data: object) -> object:
    if isinstance(data, dict):
        return {k: (0 if k in VOLATILE_JSON_KEYS and isinstance(v, (int, float))
                    and not isinstance(v, bool) else _mask_json(v)) for k, v in data.items()}
    if isinstance(data, list):
        return [_mask_json(v) for v in data]
    return data


def mask(text: str, tmp: Path) -> str:
    """The text with what varies between runs replaced by fixed marks."""
    text = text.replace(str(tmp), "<TMP>").replace(str(REPO), "<REPO>")
    stripped = text.strip()
    if stripped.startswith(("{", "[")):
        try:
            data = json.loads(stripped)
        except ValueError:
            pass
        else:
            return json.dumps(_mask_json(data), indent=2, ensure_ascii=False) + "\n"
    text = STATS_LINE.sub("<stats>", text)
    text = RATE.sub("(<rate>)", text)
    return SECONDS.sub("<t> s", text)


def run(argv: Sequence[str], tmp: Path, stdin: bytes | None = None) -> str:
    """Run ``popejoan ARGV`` in-process; its status, output and errors as one masked text."""
    args = [a.replace("<TMP>", str(tmp)) for a in argv]
    with _streams(stdin) as (out, err):
        try:
            status = main(args)
        except SystemExit as exc:  # --help, --version
            status = int(exc.code or 0)
    shown = " ".join(argv).replace(str(REPO), "<REPO>")
    return (f"$ popejoan {shown}\nstatus: {status}\n"
            f"--- stdout\n{mask(out.getvalue(), tmp)}--- stderr\n{mask(err.getvalue(), tmp)}")
