"""The human API as the local person, on band.client: REST for reads and writes, the socket for
what happens next. Every failure a person can fix comes out as a CommandError."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from urllib.parse import urlsplit

from band.client import BandAPIError, BandConnectionError, RestClient, UnauthorizedError, path
from band.client.phoenix import PhoenixClient
from band.core.wire import JsonObject, JsonValue, MessageRow, decode_as, decode_rows

from .local import user_key
from .options import CommandError

__all__ = ["Human", "RoomFeed", "names_of", "socket_url"]

#: Seconds one REST call may take (a local platform answers in milliseconds).
TIMEOUT_S = 10.0
PAGE = 100


def socket_url(rest_url: str) -> str:
    """The platform's WebSocket URL beside its REST URL (band dev serves both on one port)."""
    parts = urlsplit(rest_url)
    scheme = "wss" if parts.scheme == "https" else "ws"
    return f"{scheme}://{parts.netloc}/api/v1/socket/websocket"


class Human:
    """One platform (``--url``) as one person (``--user-key``); use as ``async with``."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.url = str(args.url).rstrip("/")
        self.key = user_key(args)
        # no retries: a person at a terminal wants the failure now, not after a backoff
        self.rest = RestClient(self.key, self.url, timeout=TIMEOUT_S, max_retries=0)

    async def __aenter__(self) -> Human:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.rest.aclose()

    @contextlib.contextmanager
    def _failures(self, what: str) -> Iterator[None]:
        """Turn the client's errors into CommandErrors that say what to do."""
        try:
            yield
        except UnauthorizedError as exc:
            raise CommandError(
                f"the platform at {self.url} refused the user key (401): pass the key band dev "
                "printed as BAND_USER_KEY (--user-key), or --db with the file that band dev uses"
            ) from exc
        except BandAPIError as exc:
            raise CommandError(f"{what} -> {exc.status_code}: {exc.message or exc.code}") from exc
        except BandConnectionError as exc:
            raise CommandError(
                f"cannot reach {self.url}: {exc}.\n"
                "Is `band dev` running? Start it, or pass --url (or set BAND_REST_URL)."
            ) from exc

    async def call(self, method: str, url: str, body: JsonValue = None) -> JsonValue:
        """One call of the human API (``url`` below ``/api/v1``); its ``data``."""
        with self._failures(f"{method} {url}"):
            return (await self.rest.request(method, url, json=body)).data

    async def rows(self, url: str, **params: str | int) -> list[JsonObject]:
        """Every row of a listing, in the platform's order."""
        out: list[JsonObject] = []
        with self._failures(f"GET {url}"):
            async for page in self.rest.pages(url, params):
                data = page.data
                if isinstance(data, list):
                    out.extend(r for r in data if isinstance(r, dict))
        return out

    # --- what the room commands look up -----------------------------------------------------

    async def room(self, wanted: str) -> JsonObject:
        """The person's room whose id or title is ``wanted``."""
        rooms = await self.rows("/me/chats", page=1, page_size=PAGE)
        found = [r for r in rooms if wanted in (r["id"], r.get("title"))]
        if len(found) == 1:
            return found[0]
        if found:
            ids = ", ".join(str(r["id"]) for r in found)
            raise CommandError(f'{len(found)} rooms are titled "{wanted}" ({ids}): give the id')
        titles = ", ".join(f'"{r.get("title")}"' for r in rooms[:20]) or "none"
        raise CommandError(
            f'no room "{wanted}" (yours: {titles}); `band room create TITLE` makes one'
        )

    async def agent(self, wanted: str) -> JsonObject:
        """The person's agent whose id, name or handle is ``wanted`` (a leading @ ignored)."""
        name = wanted.removeprefix("@")
        agents = await self.rows("/me/agents", page=1, page_size=PAGE)
        found = [a for a in agents if name in _agent_keys(a)]
        if len(found) > 1:  # names repeat (band dev agent create twice): an id or handle does not
            found = [a for a in found if name in (a["id"], a.get("handle"))] or found
        if len(found) == 1:
            return found[0]
        if found:
            handles = ", ".join(f"@{a.get('handle')}" for a in found)
            raise CommandError(
                f'{len(found)} of your agents are named "{wanted}" ({handles}): give the handle'
            )
        names = ", ".join(f'"{a.get("name")}"' for a in agents) or "none"
        raise CommandError(
            f'no agent "{wanted}" among yours ({names}); `band dev agent create NAME` registers one'
        )

    async def participants(self, room_id: str) -> list[JsonObject]:
        """The room's members, as the platform lists them (``online`` says who is connected)."""
        return await self.rows(path("/me/chats/{}/participants", room_id), page=1, page_size=PAGE)

    async def add(self, room_id: str, participant_id: str) -> None:
        """Add a member to the room."""
        body = {"participant": {"participant_id": participant_id}}
        await self.call("POST", path("/me/chats/{}/participants", room_id), body)

    async def last_messages(self, room_id: str, count: int) -> list[MessageRow]:
        """The room's ``count`` newest messages and events, oldest first (one page)."""
        if count <= 0:
            return []
        url = path("/me/chats/{}/messages", room_id)
        with self._failures(f"GET {url}"):
            page = await self.rest.request("GET", url, params={"limit": count})
        return list(reversed(decode_rows(MessageRow, page.data)))  # the platform pages newest first

    def feed(self, room_id: str, names: dict[str, str]) -> RoomFeed:
        """The room's live rows over the socket (``async with``); ``names`` kept up to date."""
        return RoomFeed(self, room_id, names)


def _agent_keys(agent: JsonObject) -> tuple[object, ...]:
    """What names ``agent`` on the command line: its id, name, handle, or the handle's last part."""
    handle = str(agent.get("handle") or "")
    return (agent["id"], agent.get("name"), handle, handle.rpartition("/")[2])


def names_of(participants: list[JsonObject]) -> dict[str, str]:
    """Participant id -> display name."""
    return {str(p["id"]): str(p.get("name") or p.get("handle") or p["id"]) for p in participants}


class RoomFeed:
    """A room's new messages and events as the socket pushes them; who joins it is named.

    Joined before the command acts (posts, or reads the history), so nothing said in between
    is missed; a reconnect reads the newest page again, and rows already seen are skipped.
    """

    def __init__(self, human: Human, room_id: str, names: dict[str, str]) -> None:
        self.human = human
        self.room_id = room_id
        self.names = names
        self.seen: set[str | None] = set()
        self._rows: asyncio.Queue[MessageRow] = asyncio.Queue()
        self._socket = PhoenixClient(
            socket_url(human.url), api_key=human.key, on_connected=self._connected
        )

    async def __aenter__(self) -> RoomFeed:
        with self.human._failures("the socket"):
            await self._socket.connect()
            await self._socket.join(f"chat_room:{self.room_id}", self._push)
            await self._socket.join(f"room_participants:{self.room_id}", self._member)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._socket.close()

    def _push(self, event: str, payload: JsonObject) -> None:
        if event in ("message_created", "event_created"):
            self._rows.put_nowait(decode_as(MessageRow, payload))

    def _member(self, event: str, payload: JsonObject) -> None:
        if event == "participant_added":
            self.names.update(names_of([payload]))

    async def _connected(self, reconnected: bool, failed: list[str]) -> None:
        if reconnected:  # what was said while the socket was down
            for row in await self.human.last_messages(self.room_id, PAGE):
                self._rows.put_nowait(row)

    async def rows(self) -> AsyncIterator[MessageRow]:
        """Each row not seen before, as it arrives (forever)."""
        while True:
            row = await self._rows.get()
            if row.id not in self.seen:
                self.seen.add(row.id)
                yield row
