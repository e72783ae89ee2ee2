"""Builds the optional compiled core of the fast engine; all metadata is in pyproject.toml.

The extension is optional: if it cannot be compiled, the package installs with the pure-Python
engine (slower; `popejoan_solver.search.fast.COMPILED` tells which is in use).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "popejoan_solver.search._core",
            sources=["popejoan_solver/search/_core.c"],
            extra_compile_args=["-O3", "-std=c11"],
            optional=True,
        )
    ]
)
