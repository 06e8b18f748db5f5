"""A Band MCP backend for adapters that hand Band's tools to an MCP-speaking framework or CLI:
a loopback MCP server (the ACP adapter's ``band`` server) started on first use and replaced
when it dies."""

from .backends import *  # noqa: F403 -- the package's API is the backends module's
from .backends import __all__ as _backends_all

__all__ = [*_backends_all]
