"""The application's own exception, apart so that every command can catch it
without importing the config reader."""

from scorer.errors import CribbageBoardError


class ConfigError(CribbageBoardError, ValueError):
    """A configuration that cannot be used; the message names the file and key."""
