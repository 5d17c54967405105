"""Errors every area may raise to tell the user, in one line, what is wrong with their input."""


class UsageError(Exception):
    """A user mistake (bad file, bad argument, bad config): the CLI prints it and exits with 2."""
