"""The version, written once: pyproject reads it from here."""

__version__ = "0.1.0"
