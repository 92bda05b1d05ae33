"""The package version: one place, read by pyproject.toml, ``__init__`` and the kernel
cache's key, and importing nothing."""

__version__ = "0.1.0.dev0"
