"""``DefaultPreprocessor``: the runtime's own way of building a turn's ``AgentInput``.

It runs in the turn step of the delivery pipeline (``band.runtime.rooms.pipeline``), after the
gate: a message that reaches it is for this agent (the gate stopped its self-echoes).
Users import it from ``band.preprocessing``.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from band.core.preprocessor import Preprocessor
from band.core.types import AgentInput, HistoryProvider, PlatformMessage
from band.core.wire import parse_instant
from band.runtime.rooms.context import RoomContext
from band.runtime.rooms.events import MessageEvent

__all__ = ["DefaultPreprocessor"]

log = logging.getLogger("band.preprocessing")


class DefaultPreprocessor(Preprocessor):
    """A message becomes ``AgentInput``: tools, history, participant and contact updates.

    Subclass it to filter messages (return None) or to adjust the input it builds.
    """

    def __init__(self, *args: object, **kwargs: object) -> None:
        # band-sdk's constructor is its Protocol base's: shown as (*args, **kwargs), it refuses
        # any argument; ours says so explicitly (the protocol's own is swapped on first use)
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}() takes no arguments")

    async def process(
        self, ctx: RoomContext, event: MessageEvent, agent_id: str
    ) -> AgentInput | None:
        """The input for ``event``; None for anything that is not a message for this agent."""
        msg = self.message(ctx, event, agent_id)
        if msg is None:
            return None
        if not ctx.participants_loaded:
            await ctx.load_participants()
        bootstrap = not ctx.is_llm_initialized
        history = await ctx.history_for(msg.id, refresh=bootstrap)
        participants = ctx.participants
        participants_msg = ctx.build_participants_message() if ctx.participants_changed() else None
        updates = ctx.peek_pending_system_messages()

        def commit_context() -> None:
            # the adapter has this context now: do not hand it over again (what was handed
            # over already, the usual turn, needs no call)
            if bootstrap:
                ctx.mark_llm_initialized()
            if participants_msg is not None:
                ctx.mark_participants_sent(participants)
            if updates:
                ctx.commit_system_messages(updates)

        return AgentInput(
            msg=msg,
            tools=ctx.new_tools(participants=participants),  # the tools copy it: no 2nd snapshot
            history=HistoryProvider(history),
            participants_msg=participants_msg,
            contacts_msg="\n".join(updates) if updates else None,
            is_session_bootstrap=bootstrap,
            room_id=ctx.room_id,
            commit_context=commit_context,
        )

    @staticmethod
    def message(ctx: RoomContext, event: MessageEvent, agent_id: str) -> PlatformMessage | None:
        """The adapter's view of ``event``'s message (None when it is no message).

        Our own messages never get here: the pipeline's gate is the one self-echo check.
        """
        if not isinstance(event, MessageEvent) or event.payload is None or event.raw is None:
            return None
        # the payload's fields are the row's, already read as strings: no lookup per field
        # (``platform_message`` reads a dict); the metadata is the row's own, as handed over
        payload = event.payload
        return PlatformMessage(
            id=payload.id,
            room_id=payload.chat_room_id or event.room_id or ctx.room_id,
            content=payload.content,
            sender_id=payload.sender_id,
            sender_type=payload.sender_type,
            sender_name=payload.sender_name,
            message_type=payload.message_type,
            metadata=event.raw.get("metadata") or {},
            created_at=parse_instant(payload.inserted_at) or datetime.now(UTC),  # parse_time's
        )
