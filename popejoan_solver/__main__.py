"""``python -m popejoan_solver``: the same as the ``popejoan`` command."""

from .cli import entry_point

if __name__ == "__main__":
    entry_point()
