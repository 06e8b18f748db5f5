"""The agent's contacts: event settings, the handler that routes contact events, the hub room
and the contact tools.

``band.runtime.contacts`` is band-sdk's import path for the settings; they are exported here.
"""

from band.runtime.contacts.config import (
    ContactEventCallback,
    ContactEventConfig,
    ContactEventStrategy,
)

__all__ = ["ContactEventCallback", "ContactEventConfig", "ContactEventStrategy"]
