"""The web room view in headless Chromium against the real local platform."""

from __future__ import annotations

import re
import threading
import time
from typing import Any

from bandtest.platform import Live, room_with

from .conftest import REMOTE_HOST, screenshot

try:
    from playwright.sync_api import expect
except ImportError:  # the browser fixture fails (CI) or skips with the reason
    expect = None

ROOM = "/api/v1/agent/chats/{rid}"


class ReplyingAgent(threading.Thread):
    """A tiny agent over the agent REST API: waits for its next message, shows its work, replies.

    Stands in for the SDK runtime (written in parallel); it uses the same endpoints a runtime
    does: ``/messages/next``, processing/processed marks, events and a reply mentioning the sender.
    """

    def __init__(self, live: Live, key: str, rid: str) -> None:
        super().__init__(daemon=True)
        self.live, self.key, self.rid = live, key, rid
        self.seen: dict[str, Any] | None = None
        self.error: BaseException | None = None

    def call(self, method: str, path: str, **kw: Any) -> Any:
        """Call the agent API under the room; any error status fails."""
        r = self.live.agent(self.key, method, ROOM.format(rid=self.rid) + path, **kw)
        assert r.status_code < 300, r.text
        return r

    def run(self) -> None:
        """Poll ``/messages/next`` until the page's message arrives, then answer it."""
        try:
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline:
                r = self.call("GET", "/messages/next")
                if r.status_code == 200:
                    self.answer(r.json()["data"])
                    return
                time.sleep(0.1)
            raise AssertionError("no message reached the agent")
        except BaseException as exc:  # reported by the test
            self.error = exc

    def event(self, content: str, kind: str, **metadata: Any) -> None:
        """Post a room event (thought, tool_call, tool_result, task, error)."""
        body = {"event": {"content": content, "message_type": kind, "metadata": metadata}}
        self.call("POST", "/events", json=body)

    def answer(self, msg: dict[str, Any]) -> None:
        """Work on ``msg`` in the open (events), reply to its sender, mark it processed."""
        self.seen = msg
        mid = msg["id"]
        self.call("POST", f"/messages/{mid}/processing")
        self.event("The person wants an echo.", "thought")
        args = {"text": "hello"}
        self.event("echo", "tool_call", name="echo", args=args, tool_call_id="call-1")
        self.event("hello", "tool_result", name="echo", output="hello", tool_call_id="call-1")
        self.event("Reply to the person", "task")
        reply = {"content": "Echo: hello", "mentions": [{"id": msg["sender_id"]}]}
        self.call("POST", "/messages", json={"message": reply})
        self.call("POST", f"/messages/{mid}/processed")


def open_room(page: Any, live: Live, rid: str) -> None:
    page.goto(f"/#/rooms/{rid}")
    expect(page.locator("#connection")).to_have_attribute("data-state", "online")
    expect(page.locator("#participant-list li")).not_to_have_count(0)


def test_mention_and_live_reply(page: Any, live: Live) -> None:
    aid, handle, key = live.register("Echo")
    rid = room_with(live, aid, title="Echo demo")
    uid = live.human("GET", "/api/v1/me/profile").json()["data"]["id"]
    requests: list[str] = []
    page.on("request", lambda req: requests.append(f"{req.method} {req.url}"))
    open_room(page, live, rid)
    expect(page.locator("#room-title")).to_have_text("Echo demo")
    expect(page.locator("#timeline-empty")).to_be_visible()
    agent = ReplyingAgent(live, key, rid)
    agent.start()
    box = page.locator("#compose-input")
    box.click()
    box.press_sequentially("@ec")
    option = page.get_by_role("option", name=re.compile("Echo"))
    expect(option).to_be_visible()
    expect(box).to_have_attribute("aria-expanded", "true")
    option.click()
    expect(box).to_have_value("@Echo ")
    box.press_sequentially("please say hello")
    loads = len([r for r in requests if "/messages" in r and r.startswith("GET")])
    box.press("Enter")

    timeline = page.locator("#timeline")
    mine = timeline.locator("li.message.mine")
    expect(mine).to_have_count(1)
    expect(mine.locator(".mention")).to_have_text("@Echo")
    reply = timeline.locator("li.message.agent")
    expect(reply).to_contain_text("Echo: hello")
    expect(reply.locator(".mention.me")).to_have_text("@Local Person")
    agent.join(10)
    assert agent.error is None, agent.error
    # the agent got exactly what the page sent: the mention chosen in the completion
    assert agent.seen is not None
    assert agent.seen["content"] == f"@[[{aid}]] please say hello"
    assert [m["id"] for m in agent.seen["metadata"]["mentions"]] == [aid]
    assert agent.seen["sender_id"] == uid

    # events: thought, the tool call folded with its result, the task
    expect(timeline.locator("li.event.thought")).to_contain_text("The person wants an echo.")
    call = timeline.locator("li.event.tool_call")
    expect(call).to_have_count(1)
    expect(call).to_have_attribute("data-result", re.compile(".+"))
    expect(call.locator(".state")).to_have_text("done")
    expect(timeline.locator("li.event.tool_result:visible")).to_have_count(0)
    call.locator("summary").click()
    expect(call.locator(".result pre")).to_have_text("hello")
    expect(timeline.locator("li.event.task")).to_contain_text("Reply to the person")
    expect(mine.locator(".delivery")).to_have_text("Echo: processed")
    # all of it arrived over the socket: the page did not read the messages again
    assert len([r for r in requests if "/messages" in r and r.startswith("GET")]) == loads
    # no external network: every request went to the local platform
    assert requests and all(r.split(" ", 1)[1].startswith(live.rest) for r in requests), requests
    assert handle
    screenshot(page, "room-live-reply")


def test_completion_keyboard_only(page: Any, live: Live) -> None:
    aid, _, _ = live.register("Alpha")
    bid, _, _ = live.register("Beta")
    rid = room_with(live, aid, bid, title="Keyboard only")
    open_room(page, live, rid)
    expect(page.locator("#participant-list li")).to_have_count(3)
    page.locator("body").focus()
    for _ in range(40):  # reach the compose box with Tab alone
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "compose-input":
            break
    else:
        raise AssertionError("the compose box is not reachable with Tab")
    box = page.locator("#compose-input")
    listbox = page.locator("#mention-list")
    page.keyboard.type("@")
    expect(box).to_have_attribute("aria-expanded", "true")
    expect(listbox.get_by_role("option")).to_have_count(2)  # the agents, not the person
    first = listbox.locator("[aria-selected=true]")
    expect(first).to_contain_text("Alpha")
    expect(box).to_have_attribute("aria-activedescendant", "mention-option-0")
    page.keyboard.press("ArrowDown")
    expect(listbox.locator("[aria-selected=true]")).to_contain_text("Beta")
    expect(box).to_have_attribute("aria-activedescendant", "mention-option-1")
    page.keyboard.press("ArrowDown")  # wraps around
    expect(listbox.locator("[aria-selected=true]")).to_contain_text("Alpha")
    page.keyboard.press("ArrowUp")
    screenshot(page, "mention-completion")
    page.keyboard.press("Escape")
    expect(listbox).to_be_hidden()
    expect(box).to_have_attribute("aria-expanded", "false")
    expect(box).to_have_value("@")  # escape closes the list, keeps the text
    page.keyboard.type("be")
    expect(listbox.get_by_role("option")).to_have_count(1)
    page.keyboard.press("Enter")  # picks, does not send
    expect(box).to_have_value("@Beta ")
    page.keyboard.type("hi")
    page.keyboard.press("Enter")  # sends
    expect(box).to_have_value("")
    expect(page.locator("#timeline li.message.mine .mention")).to_have_text("@Beta")
    sent = live.human("GET", f"/api/v1/me/chats/{rid}/messages").json()["data"]
    assert [m["content"] for m in sent] == [f"@[[{bid}]] hi"]
    assert [m["id"] for m in sent[0]["metadata"]["mentions"]] == [bid]


def test_agents_page_register_copy_and_room(page: Any, live: Live) -> None:
    page.goto("/#/agents")
    expect(page.get_by_role("heading", name="Agents", exact=True)).to_be_visible()
    page.get_by_label("Name").fill("Helper")
    page.get_by_label("Description").fill("Answers questions")
    page.get_by_role("button", name="Register agent").click()
    creds = page.get_by_role("region", name=re.compile("Connect remote agent"))
    expect(creds).to_be_visible()
    expect(page.locator("#credentials-title")).to_be_focused()
    agent_id = page.locator("#cred-agent-id").inner_text()
    api_key = page.locator("#cred-api-key").inner_text()
    assert api_key.startswith("band_a_")
    # the shown credentials are the real ones: the key authenticates as the shown agent
    me = live.agent(api_key, "GET", "/api/v1/agent/me")
    assert me.status_code == 200 and me.json()["data"]["id"] == agent_id
    assert f"agent_id: {agent_id}" in page.locator("#cred-yaml").inner_text()
    assert f"BAND_REST_URL={live.rest}" in page.locator("#cred-env").inner_text()
    page.get_by_role("button", name="Copy API key").click()
    expect(page.get_by_role("button", name="Copied")).to_be_visible()
    assert page.evaluate("navigator.clipboard.readText()") == api_key
    row = page.locator("#agents-table tbody tr")
    expect(row).to_have_count(1)
    expect(row).to_contain_text(agent_id)
    screenshot(page, "agents-page")

    # a room with the agent, straight from its row
    row.get_by_role("button", name="New room with Helper").click()
    expect(page.locator("#room-title")).to_have_text("Chat with Helper")
    expect(page.locator("#participant-list")).to_contain_text("Helper")
    expect(page.locator("#room-list a[aria-current=page]")).to_contain_text("Chat with Helper")

    # a room from the sidebar, then the agent added from the participants panel
    page.get_by_label("New room").fill("Planning")
    page.get_by_role("button", name="Create room").click()
    expect(page.locator("#room-title")).to_have_text("Planning")
    expect(page.locator("#participant-list li")).to_have_count(1)
    page.get_by_label("Add an agent").select_option(label="Helper")
    page.get_by_role("button", name="Add to room").click()
    expect(page.locator("#participant-list li")).to_have_count(2)  # live participant_added
    rid = page.url.rsplit("/", 1)[1]
    parts = live.human("GET", f"/api/v1/me/chats/{rid}/participants").json()["data"]
    assert {p["id"] for p in parts} >= {agent_id}
    expect(page.locator("#room-list li")).to_have_count(2)


def test_heartbeat_and_rejoin_after_reconnect(page: Any, live: Live) -> None:
    aid, _, key = live.register("Pinger")
    rid = room_with(live, aid, title="Reconnects")
    state = live.app.state
    # the page is told to heartbeat every 1 s and closes a socket whose heartbeat is not
    # answered by the next one: a 1.5 s timeout (0.5 s heartbeats) reconnected under CI's load
    state.idle_timeout = 3.0
    requests: list[str] = []
    page.on("request", lambda req: requests.append(req.url))
    try:
        open_room(page, live, rid)
        status = page.locator("#connection")
        page.wait_for_timeout(4000)  # longer than the idle timeout
        expect(status).to_have_attribute("data-connects", "1")  # heartbeats kept it open
        state.idle_timeout = 0.2  # now the server drops the page's socket between heartbeats
        expect(status).not_to_have_attribute("data-connects", "1")
        state.idle_timeout = 45
        wait_steady(page)
    finally:
        state.idle_timeout = 45
    reads = len([r for r in requests if "/messages" in r])
    uid = live.human("GET", "/api/v1/me/profile").json()["data"]["id"]
    msg = {"message": {"content": "still there?", "mentions": [{"id": uid}]}}
    r = live.agent(key, "POST", ROOM.format(rid=rid) + "/messages", json=msg)
    assert r.status_code == 201, r.text
    # the chat_room topic, rejoined after the reconnects, delivers the push
    expect(page.locator("#timeline li.message.agent")).to_contain_text("still there?")
    assert len([r for r in requests if "/messages" in r]) == reads


def wait_steady(page: Any) -> None:
    """Wait until the page's socket is online and stays on one connection for a second."""
    status = page.locator("#connection")
    for _ in range(20):
        before = status.get_attribute("data-connects")
        page.wait_for_timeout(1000)
        if status.get_attribute("data-state") == "online" and (
            status.get_attribute("data-connects") == before
        ):
            return
    raise AssertionError("the socket did not settle")


# WCAG 2 contrast of every visible text node against its nearest opaque background
LOW_CONTRAST = """() => {
  const parse = (c) => {
    const m = /rgba?\\(([^)]+)\\)/.exec(c);
    if (!m) return null;
    const p = m[1].split(",").map(Number);
    return { rgb: p.slice(0, 3), a: p.length > 3 ? p[3] : 1 };
  };
  const lum = (rgb) => {
    const [r, g, b] = rgb.map((v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const background = (el) => {
    for (let n = el; n; n = n.parentElement) {
      const c = parse(getComputedStyle(n).backgroundColor);
      if (c && c.a > 0.5) return c.rgb;
    }
    return [255, 255, 255];
  };
  const bad = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let t = walker.nextNode(); t; t = walker.nextNode()) {
    const el = t.parentElement;
    if (!t.textContent.trim() || !el.checkVisibility() || el.closest(".visually-hidden")) continue;
    const style = getComputedStyle(el);
    const a = lum(parse(style.color).rgb);
    const b = lum(background(el));
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
    const text = t.textContent.trim().slice(0, 40);
    if (ratio < (large ? 3 : 4.5)) bad.push(`${text}: ${ratio.toFixed(2)}`);
  }
  return bad;
}"""

UNLABELLED = """() => [...document.querySelectorAll("input, select, textarea, button")]
  .filter((el) => el.checkVisibility())
  .filter((el) => !(el.labels && el.labels.length) && !el.getAttribute("aria-label")
    && !(el.tagName === "BUTTON" && el.textContent.trim()))
  .map((el) => el.outerHTML.slice(0, 80))"""


def test_accessible_landmarks_labels_contrast_focus(page: Any, live: Live) -> None:
    aid, _, key = live.register("Worker")
    rid = room_with(live, aid, title="Accessibility")
    uid = live.human("GET", "/api/v1/me/profile").json()["data"]["id"]
    agent = ReplyingAgent(live, key, rid)
    for content, kind, meta in (
        ("Reading the request\nthen searching", "thought", {}),
        ("search", "tool_call", {"name": "search", "args": {"q": "x"}, "tool_call_id": "c1"}),
        ("no results", "tool_result", {"name": "search", "is_error": True, "tool_call_id": "c1"}),
        ("Could not finish", "error", {}),
    ):
        agent.event(content, kind, **meta)
    say = {"message": {"content": "Done, see above", "mentions": [{"id": uid}]}}
    agent.call("POST", "/messages", json=say)
    open_room(page, live, rid)
    expect(page.locator("#timeline > li:visible")).to_have_count(4)
    expect(page.locator("li.event.tool_call.failed .state")).to_have_text("failed")

    expect(page.get_by_role("banner")).to_have_count(1)
    expect(page.get_by_role("main")).to_have_count(1)
    expect(page.get_by_role("navigation", name="Primary")).to_have_count(1)
    expect(page.get_by_role("navigation", name="Rooms")).to_have_count(1)
    expect(page.get_by_role("complementary", name="Participants")).to_have_count(1)
    log = page.get_by_role("log", name="Messages and events")
    expect(log).to_have_attribute("aria-live", "polite")
    assert page.evaluate(UNLABELLED) == []
    assert page.evaluate(LOW_CONTRAST) == []

    # keyboard focus is visible: the first Tab lands on the skip link, which shows and works
    page.locator("body").focus()
    page.keyboard.press("Tab")
    skip = page.locator("#skip-link")
    expect(skip).to_be_focused()
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    width = page.evaluate("parseFloat(getComputedStyle(document.activeElement).outlineWidth)")
    assert outline != "none" and width >= 2
    page.keyboard.press("Enter")
    expect(page.locator("#main")).to_be_focused()
    screenshot(page, "room-events")

    page.goto("/#/agents")
    page.get_by_label("Name").fill("Second")
    page.get_by_label("Description").fill("Another agent")
    page.get_by_label("Description").press("Tab")
    page.keyboard.press("Enter")  # the register button, from the keyboard
    expect(page.locator("#credentials")).to_be_visible()
    assert page.evaluate(UNLABELLED) == []
    assert page.evaluate(LOW_CONTRAST) == []


def test_rooms_list_follows_membership_live(page: Any, live: Live) -> None:
    _, _, key = live.register("Host")
    uid = live.human("GET", "/api/v1/me/profile").json()["data"]["id"]
    page.goto("/")
    expect(page.locator("#connection")).to_have_attribute("data-state", "online")
    expect(page.locator("#room-list-empty")).to_be_visible()
    made = live.agent(key, "POST", "/api/v1/agent/chats", json={"chat": {"title": "Invited"}})
    rid = made.json()["data"]["id"]
    body = {"participant": {"participant_id": uid}}
    added = live.agent(key, "POST", ROOM.format(rid=rid) + "/participants", json=body)
    assert added.status_code == 201, added.text
    link = page.get_by_role("link", name=re.compile("Invited"))
    expect(link).to_be_visible()  # pushed on user_rooms, no reload
    link.click()
    expect(page.locator("#room-title")).to_have_text("Invited")
    expect(page.locator("#participant-list")).to_contain_text("Host")
    live.agent(key, "DELETE", ROOM.format(rid=rid) + f"/participants/{uid}")
    expect(link).to_have_count(0)


def test_remote_browser_pastes_the_key(page: Any, live: Live, allowed_errors: list[str]) -> None:
    allowed_errors.append("status of 401")  # the wrong key, refused by /me/profile
    port = live.rest.rsplit(":", 1)[1]
    page.goto(f"http://{REMOTE_HOST}:{port}/")  # not a loopback name: no key is handed out
    key_box = page.get_by_label("User key")
    expect(key_box).to_be_focused()
    key_box.fill("band_u_wrong")
    key_box.press("Enter")
    expect(page.locator("#key-error")).to_contain_text("not accepted")
    key_box.fill(live.user_key)
    key_box.press("Enter")
    expect(page.locator("#connection")).to_have_attribute("data-state", "online")
    expect(page.get_by_role("heading", name="Welcome")).to_be_visible()
    page.reload()  # remembered for this tab only (sessionStorage)
    expect(page.locator("#connection")).to_have_attribute("data-state", "online")
    expect(page.get_by_label("User key")).to_have_count(0)


HOSTILE = (
    "**bold** and `code`\n\n- one\n- two\n\n```\nblock line\n```\n"
    "see https://example.org/docs and [click](javascript:window.__xss=1) "
    "<img src=x onerror=window.__xss=1> <script>window.__xss=1</script> "
    '[img](x" onmouseover="window.__xss=1) ![alt](https://example.org/i.png)'
)


def test_markdown_is_rendered_safely(page: Any, live: Live) -> None:
    aid, _, key = live.register("Writer")
    rid = room_with(live, aid, title="Markdown")
    uid = live.human("GET", "/api/v1/me/profile").json()["data"]["id"]
    msg = {"message": {"content": f"@[[{uid}]] {HOSTILE}", "mentions": [{"id": uid}]}}
    assert live.agent(key, "POST", ROOM.format(rid=rid) + "/messages", json=msg).status_code == 201
    open_room(page, live, rid)
    body = page.locator("#timeline li.message.agent .markdown")
    expect(body.locator("strong")).to_have_text("bold")
    expect(body.locator("p code").first).to_have_text("code")
    expect(body.locator("ul li")).to_have_text(["one", "two"])
    expect(body.locator("pre code")).to_have_text("block line\n")
    expect(body.locator(".mention.me")).to_have_text("@Local Person")
    link = body.locator('a[href="https://example.org/docs"]')
    expect(link).to_have_attribute("rel", "noopener noreferrer")
    expect(link).to_have_attribute("target", "_blank")
    # nothing executable survived: no script, no image, no javascript: link, no handler
    assert body.locator("script, img, iframe, [onerror], [onmouseover]").count() == 0
    hrefs = body.locator("a").evaluate_all("(links) => links.map((a) => a.getAttribute('href'))")
    assert not [h for h in hrefs if h and h.strip().lower().startswith("javascript")], hrefs
    # raw HTML is shown as the text it is
    expect(body).to_contain_text("<img src=x onerror=window.__xss=1>")
    expect(body).to_contain_text("<script>window.__xss=1</script>")
    body.locator("a").last.hover()
    assert page.evaluate("() => window.__xss") is None
    screenshot(page, "room-markdown")


def test_compose_multiline_keeps_input_while_sending(
    page: Any, live: Live, allowed_errors: list[str]
) -> None:
    allowed_errors.append("status of 503")  # the refused send below
    aid, _, _ = live.register("Reader")
    rid = room_with(live, aid, title="Compose")
    open_room(page, live, rid)
    box = page.locator("#compose-input")
    box.click()
    box.press_sequentially("line one")
    box.press("Shift+Enter")
    box.press_sequentially("line two")
    held: list[Any] = []

    def hold(route: Any) -> None:
        if route.request.method == "POST":
            held.append(route)
        else:
            route.continue_()

    page.route("**/api/v1/me/chats/*/messages", hold)
    with page.expect_request(lambda r: r.method == "POST" and "/messages" in r.url):
        box.press("Enter")
    expect(box).to_have_value("")
    box.press_sequentially("typed while sending")  # the first message is still on its way
    assert len(held) == 1
    held[0].continue_()
    expect(page.locator("#timeline li.message.mine")).to_have_count(1)
    expect(box).to_have_value("typed while sending")
    page.unroute("**/api/v1/me/chats/*/messages")
    rows = live.human("GET", f"/api/v1/me/chats/{rid}/messages").json()["data"]
    assert [m["content"] for m in rows] == ["line one\nline two"]
    # a refused send gives the text back, in front of what was typed meanwhile
    page.route(
        "**/api/v1/me/chats/*/messages",
        lambda route: (
            route.fulfill(status=503, json={"error": {"message": "try later"}})
            if route.request.method == "POST"
            else route.continue_()
        ),
    )
    box.press("Enter")
    expect(page.locator("#compose-error")).to_have_text("Not sent: try later")
    expect(box).to_have_value("typed while sending")


def test_working_state_and_offline_banner(page: Any, live: Live, allowed_errors: list[str]) -> None:
    allowed_errors.append("WebSocket")  # the socket closed on purpose below
    aid, _, key = live.register("Worker")
    rid = room_with(live, aid, title="Work")
    open_room(page, live, rid)
    body = {"message": {"content": "please work", "mentions": [{"id": aid}]}}
    mid = live.human("POST", f"/api/v1/me/chats/{rid}/messages", json=body).json()["data"]["id"]
    working = page.locator("#working")
    expect(working).to_be_hidden()
    mark = ROOM.format(rid=rid) + f"/messages/{mid}"
    assert live.agent(key, "POST", mark + "/processing").status_code == 200
    expect(working).to_have_text("Worker is working…")
    assert live.agent(key, "POST", mark + "/processed").status_code == 200
    expect(working).to_be_hidden()

    banner = page.locator("#offline-banner")
    expect(banner).to_be_hidden()
    # the socket drops and (held here) does not come back: the banner says so
    page.evaluate(
        "() => { window.bandSocket.scheduleReconnect = () => {}; window.bandSocket.ws.close(); }"
    )
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("Offline.")
    page.evaluate("() => { document.querySelector('#compose-error').textContent = 'Not sent: x'; }")
    # back: the banner goes, and the error from while it was away with it
    page.evaluate(
        "() => { delete window.bandSocket.scheduleReconnect; window.bandSocket.connect(); }"
    )
    expect(page.locator("#connection")).to_have_attribute("data-state", "online")
    expect(banner).to_be_hidden()
    expect(page.locator("#compose-error")).to_have_text("")


def test_rename_then_delete_a_room(page: Any, live: Live) -> None:
    aid, _, key = live.register("Temp")
    rid = room_with(live, aid, title="Short lived")
    open_room(page, live, rid)
    page.once("dialog", lambda dialog: dialog.accept("Renamed room"))
    page.get_by_role("button", name="Rename").click()
    expect(page.locator("#room-title")).to_have_text("Renamed room")
    expect(page.locator("#room-list")).to_contain_text("Renamed room")
    assert live.human("GET", f"/api/v1/me/chats/{rid}").json()["data"]["title"] == "Renamed room"
    # the owner renames; a member may not (the agent API's rule)
    r = live.agent(key, "PATCH", ROOM.format(rid=rid), json={"chat": {"title": "mine now"}})
    assert r.status_code == 403
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.get_by_role("button", name="Delete room").click()
    assert live.human("GET", f"/api/v1/me/chats/{rid}").status_code == 200  # dismissed: kept
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Delete room").click()
    expect(page).to_have_url(re.compile(r"#/$"))
    expect(page.locator("#room-list")).not_to_contain_text("Short lived")
    assert live.human("GET", f"/api/v1/me/chats/{rid}").status_code == 404


def test_agent_page_lists_turns_and_opens_a_timeline(page: Any, live: Live) -> None:
    aid, _, key = live.register("Echo")
    rid = room_with(live, aid, title="Traced")
    agent = ReplyingAgent(live, key, rid)
    agent.start()
    body = {"message": {"content": f"@[[{aid}]] please say hello", "mentions": [{"id": aid}]}}
    assert live.human("POST", f"/api/v1/me/chats/{rid}/messages", json=body).status_code == 201
    agent.join(20)
    assert agent.error is None, agent.error
    page.goto("/#/agents")
    page.get_by_role("link", name="Echo: recent turns").click()
    expect(page).to_have_url(re.compile(f"#/agents/{aid}$"))
    expect(page.locator("#agent-title")).to_have_text("Echo")
    row = page.locator("#turns-table tbody tr")
    expect(row).to_have_count(1)
    expect(row.locator("td").nth(1)).to_have_text("Traced")
    expect(row.locator(".turn-status")).to_have_text("processed")
    row.get_by_role("button").click()
    points = page.locator("#turn-points li")
    kinds = [
        "sent",
        "processing",
        "thought",
        "tool call",
        "tool result",
        "task",
        "text",
        "processed",
    ]
    expect(points.locator(".point-kind")).to_have_text(kinds)
    expect(points.nth(4)).to_contain_text("echo -> ok after")
    expect(points.first).to_contain_text("Local Person: @Echo please say hello")
    expect(points.nth(6)).to_contain_text("@Local Person Echo: hello")
    expect(page.locator("#turn-timeline-title")).to_be_focused()
    screenshot(page, "agent-turn-timeline")


def test_room_task_board_and_files(page: Any, live: Live) -> None:
    aid, _, key = live.register("Planner")
    rid = room_with(live, aid, title="Plans")
    room = ROOM.format(rid=rid)
    board = {"goal_title": "Ship the demo", "goal_summary": "by Friday"}
    assert live.agent(key, "PUT", room + "/board", json=board).status_code == 200
    r = live.agent(key, "POST", room + "/tasks", json={"subject": "Write the README"})
    assert r.status_code == 201, r.text
    open_room(page, live, rid)
    expect(page.locator("#board-goal")).to_have_text("Goal: Ship the demo (by Friday)")
    expect(page.locator("#task-list li")).to_have_count(1)
    expect(page.locator("#task-list li")).to_contain_text("#1 Write the README")
    expect(page.locator("#files-empty")).to_be_visible()
    # live: the agent adds a task and shares a file while the page is open
    r = live.agent(key, "POST", room + "/tasks", json={"subject": "Record a video"})
    assert r.status_code == 201, r.text
    headers = {"X-API-Key": key, "x-file-name": "notes.md", "content-type": "text/markdown"}
    up = live.client.put(live.rest + room + "/files", content=b"# notes\n", headers=headers)
    assert up.status_code in (200, 201), up.text
    fid = up.json()["data"]["id"]
    uid = live.human("GET", "/api/v1/me/profile").json()["data"]["id"]
    msg = {"message": {"content": "notes attached", "mentions": [{"id": uid}],
                       "attachment_ids": [fid]}}  # fmt: skip
    assert live.agent(key, "POST", room + "/messages", json=msg).status_code == 201
    expect(page.locator("#file-list li")).to_contain_text("notes.md")
    expect(page.locator("#files-empty")).to_be_hidden()
    expect(page.locator("#task-list li")).to_have_count(2)
    expect(page.locator("#task-list li").nth(1)).to_contain_text("#2 Record a video")
    # a stranger cannot read the board
    other = live.agent(key, "GET", f"/api/v1/me/chats/{rid}/board")
    assert other.status_code == 403


def test_agents_page_manages_delegation_consents(
    page: Any, live: Live, allowed_errors: list[str]
) -> None:
    allowed_errors.append("status of 422")  # the malformed connector id, refused below
    aid, handle, _ = live.register("Delegate")
    audience = "6f1c1f64-9a54-4bd1-8c8e-2f0b1b7c0d11"
    page.goto("/#/agents")
    section = page.get_by_role("region", name="Delegation consents")
    expect(section.get_by_text("No consents given.")).to_be_visible()
    section.get_by_label("Agent ID").fill(aid)
    section.get_by_label("Connector ids (comma-separated)").fill(f"{audience}, ")
    section.get_by_role("button", name="Give consent").click()
    expect(section.locator("#consent-list li")).to_contain_text(f"@{handle}: {audience}")
    stored = live.human("GET", "/api/v1/me/delegation/consents").json()["data"]
    assert [(c["agent_id"], c["audiences"]) for c in stored] == [(aid, [audience])]
    # a refusal is shown, not swallowed
    section.get_by_label("Agent ID").fill(aid)
    section.get_by_label("Connector ids (comma-separated)").fill("not-a-uuid")
    section.get_by_role("button", name="Give consent").click()
    expect(section.locator("#consent-error")).to_contain_text("Not saved")
    section.get_by_role("button", name=f"Revoke the consent of @{handle}").click()
    expect(section.locator("#consent-list li")).to_have_count(0)
    assert live.human("GET", "/api/v1/me/delegation/consents").json()["data"] == []


def test_an_at_name_not_picked_asks_before_sending(page: Any, live: Live) -> None:
    """``@Echo`` typed by hand (not picked from the list) asks whether to mention Echo."""
    aid, _, _ = live.register("Echo")
    rid = room_with(live, aid, title="Ask first")
    open_room(page, live, rid)
    box = page.locator("#compose-input")
    asked: list[str] = []

    def answer(accept: bool) -> None:
        def on_dialog(dialog: Any) -> None:
            asked.append(dialog.message)
            dialog.accept() if accept else dialog.dismiss()

        page.once("dialog", on_dialog)

    def sent() -> list[dict[str, Any]]:
        rows = live.human("GET", f"/api/v1/me/chats/{rid}/messages").json()["data"]
        return [r for r in rows if r["message_type"] == "text"]

    answer(accept=True)
    box.fill("@Echo are you there?")  # typed whole: the completion list was never used
    box.press("Enter")
    expect(page.locator("#timeline li.message.mine")).to_have_count(1)
    assert asked == ['"@Echo" is not a mention: Echo will not be asked to answer.\nMention Echo?']
    [first] = sent()
    assert first["content"] == f"@[[{aid}]] are you there?"
    answer(accept=False)
    box.fill("@echo, thanks")  # the caret after the last word: the list stays closed
    box.press("Enter")
    expect(page.locator("#timeline li.message.mine")).to_have_count(2)
    assert len(asked) == 2
    newest = sent()[0]  # newest first
    assert newest["content"] == "@echo, thanks" and newest["metadata"].get("mentions") in (None, [])
