"""``ContactTools``: the contact tools for contact-event callbacks (agent-scoped, no room)."""

from __future__ import annotations

from typing import Any

from band.client.rest import RestClient
from band.core.wire import JsonObject, JsonValue
from band.runtime.tools import ops
from band.runtime.tools import registry as t
from band.runtime.tools.spec import ToolSpec

__all__ = ["ContactTools"]


class ContactTools:
    """List, add, remove and answer contacts for the agent that owns ``rest``'s API key."""

    def __init__(self, rest: RestClient) -> None:
        self.rest = rest
        self._ctx = ops.ToolContext(rest)

    # Any: one method runs every contact tool, each with its own input and result type
    async def _run(self, spec: ToolSpec[Any, Any], **arguments: JsonValue) -> JsonObject:
        """The tool's JSON object (these callbacks get the platform's dicts, not wire models)."""
        return dict(await spec.run(self._ctx, spec.validate(arguments)))

    async def list_contacts(self, page: int = 1, page_size: int = 50) -> JsonObject:
        """One page of contacts: ``{"data": [...], "metadata": {...}}``."""
        return await self._run(t.LIST_CONTACTS, page=page, page_size=page_size)

    async def add_contact(self, handle: str, message: str | None = None) -> JsonObject:
        """Send a contact request to ``@user`` or ``@user/agent``."""
        return await self._run(t.ADD_CONTACT, handle=handle, message=message)

    async def remove_contact(
        self, handle: str | None = None, contact_id: str | None = None
    ) -> JsonObject:
        """Remove a contact by handle or contact ID (ValueError without either)."""
        return await self._run(t.REMOVE_CONTACT, handle=handle, contact_id=contact_id)

    async def list_contact_requests(
        self, page: int = 1, page_size: int = 50, sent_status: str = "pending"
    ) -> JsonObject:
        """Received requests and sent requests filtered by ``sent_status``."""
        return await self._run(
            t.LIST_CONTACT_REQUESTS, page=page, page_size=page_size, sent_status=sent_status
        )

    async def respond_contact_request(
        self, action: str, handle: str | None = None, request_id: str | None = None
    ) -> JsonObject:
        """Approve or reject a received request, or cancel a sent one."""
        return await self._run(
            t.RESPOND_CONTACT_REQUEST, action=action, handle=handle, request_id=request_id
        )
