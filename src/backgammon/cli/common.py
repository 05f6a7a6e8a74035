"""What the subcommands share."""

from __future__ import annotations


class UsageError(Exception):
    """Bad command-line input; printed as one line, exit status 2."""


class RecordError(Exception):
    """A bad file or record named on the command line; printed as is, exit status 1."""
