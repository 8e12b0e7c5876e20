"""Errors with a message fit for the user (the CLI prints them as one line, exit 2)."""


class UsageError(Exception):
    """A bad argument or input named by the user: one clear line, exit 2."""
