"""``popejoan serve`` without the web extra (``web/serve.py``): the command is listed and its
``--help`` shown all the same, and running it is one ``error:`` line naming the extra and
status 2, never a traceback. Starlette and uvicorn are hidden from a child process, whether
or not they are installed here."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT

WITHOUT_EXTRA = """\
import sys

class Hidden:
    \"\"\"Starlette and uvicorn as if not installed.\"\"\"
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("starlette", "uvicorn"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, Hidden())
sys.argv[0] = "popejoan"
from popejoan_solver.__main__ import entry_point
entry_point()
"""


def _popejoan_without_extra(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", WITHOUT_EXTRA, *argv], capture_output=True,
                          text=True, check=False, cwd=ROOT, timeout=120)


def test_serve_without_the_web_extra_is_one_error_line() -> None:
    done = _popejoan_without_extra("serve", "--port", "0")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == ("error: the web table needs its extra: pip install "
                           "'popejoan-solver[web]' (uvicorn is missing)\n")


@pytest.mark.parametrize("argv", [["--help"], ["serve", "--help"]])
def test_the_help_needs_no_web_extra(argv: list[str]) -> None:
    done = _popejoan_without_extra(*argv)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert "serve" in done.stdout
    assert "starlette" not in done.stdout


def test_the_help_of_serve_is_the_same_without_the_extra() -> None:
    with_extra = subprocess.run([sys.executable, "-m", "popejoan_solver", "serve", "--help"],
                                capture_output=True, text=True, check=True, cwd=ROOT,
                                timeout=120)
    assert _popejoan_without_extra("serve", "--help").stdout == with_extra.stdout
