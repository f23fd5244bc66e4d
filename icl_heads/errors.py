"""Errors that tell the user which key or file is wrong and how to fix it."""


class ConfigError(ValueError):
    """Bad configuration or input: the message names the key or file and the fix."""


class DataError(ConfigError):
    """A data file is missing or malformed."""
