"""ACP integration: one Agent Client Protocol agent process per Band room (the client side),
and a Band agent offered to ACP clients such as editors (the server side)."""

from band._extras import require

# the [acp] extra's packages: without them, one line naming the extra instead of a trace
require("acp", "The ACP adapter (band.integrations.acp)")

from .adapter import ACPClientAdapter  # noqa: E402
from .client import ACPClientProfile  # noqa: E402
from .collecting import BandACPClient, CollectedChunk  # noqa: E402
from .config import (  # noqa: E402
    ACPClientAdapterConfig,
    ACPConfigRequest,
    ACPPermissionRequest,
    ConfigResolver,
    PermissionResolver,
)
from .router import AgentRouter  # noqa: E402
from .server import (  # noqa: E402
    ACPServer,
    BandACPServerAdapter,
    BandACPServerAdapterConfig,
    run_acp_server,
)
from .session_state import ACPClientSessionState  # noqa: E402
from .sessions import ACPSessionState, PendingACPPrompt  # noqa: E402
from .updates import ACPPushHandler, EventConverter  # noqa: E402

__all__ = [
    "ACPClientAdapter",
    "ACPClientAdapterConfig",
    "ACPClientProfile",
    "ACPClientSessionState",
    "ACPConfigRequest",
    "ACPPermissionRequest",
    "ACPPushHandler",
    "ACPServer",
    "ACPSessionState",
    "AgentRouter",
    "BandACPServerAdapter",
    "BandACPClient",
    "BandACPServerAdapterConfig",
    "CollectedChunk",
    "ConfigResolver",
    "EventConverter",
    "PendingACPPrompt",
    "PermissionResolver",
    "run_acp_server",
]
