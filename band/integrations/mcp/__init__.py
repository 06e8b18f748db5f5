"""A Band MCP backend for adapters that hand Band's tools to an MCP-speaking framework or CLI:
a loopback MCP server (the ACP adapter's ``band`` server) started on first use and replaced
when it dies."""

from .backends import (
    BandMCPBackend,
    BandMCPBackendSettings,
    BandMCPBackendStoppedError,
    BandMCPTransport,
    SharedBandMCPBackend,
)

__all__ = [
    "BandMCPBackend",
    "BandMCPBackendSettings",
    "BandMCPBackendStoppedError",
    "BandMCPTransport",
    "SharedBandMCPBackend",
]
