"""The agent tool names as band-sdk 6 lists them: the chat tools, then each capability's."""

from __future__ import annotations

from band.runtime.capabilities import Capability

#: the tools every agent has, in the official order
CHAT_TOOLS = [
    "band_send_message",
    "band_send_event",
    "band_no_reply",
    "band_add_participant",
    "band_remove_participant",
    "band_lookup_peers",
    "band_get_participants",
    "band_create_chatroom",
]
#: the tools each capability adds, in the official order
CAPABILITY_TOOLS = {
    Capability.CONTACTS: [
        "band_list_contacts",
        "band_add_contact",
        "band_remove_contact",
        "band_list_contact_requests",
        "band_respond_contact_request",
    ],
    Capability.MEMORY: [
        "band_list_memories",
        "band_store_memory",
        "band_get_memory",
        "band_supersede_memory",
        "band_archive_memory",
    ],
    Capability.TASKS: [
        "band_list_tasks",
        "band_create_task",
        "band_get_task",
        "band_update_task",
        "band_get_task_history",
        "band_get_board",
        "band_set_board",
    ],
    Capability.FILES: ["band_list_room_files", "band_read_room_file", "band_send_room_file"],
}
