// The web room view of the local Band platform: rooms, a room's timeline, compose, agents.
// Plain DOM code, no build step. User content is only ever set with textContent, except text
// messages: Markdown rendered by marked and sanitized by DOMPurify into DOM nodes (markdown.js).

import { renderMarkdown } from "./markdown.js";
import { mountConsents } from "./consents.js";
import { MentionBox, mentionNames, unpicked } from "./mentions.js";
import { PhoenixSocket } from "./phoenix.js";

const KEY_STORAGE = "band.userKey";
const STATE_LABELS = {
  online: "Live",
  connecting: "Connecting…",
  reconnecting: "Reconnecting…",
  offline: "Offline",
};

const state = {
  key: null,
  me: null,
  heartbeatMs: 30000,
  socket: null,
  rooms: [],
  room: null, // the open room's view (see RoomView)
};

const $ = (selector, root = document) => root.querySelector(selector);

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (name === "class") node.className = value;
    else if (name === "text") node.textContent = value;
    else if (name.startsWith("data-") || name.startsWith("aria-") || name === "role")
      node.setAttribute(name, value);
    else node[name] = value;
  }
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
}

function announce(text) {
  const region = $("#announcer");
  region.textContent = "";
  setTimeout(() => {
    region.textContent = text;
  }, 50);
}

// ---------------------------------------------------------------- REST

class ApiError extends Error {}

async function api(method, path, body) {
  const headers = { "X-API-Key": state.key };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(`/api/v1${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json().catch(() => ({}));
  if (!res.ok) throw new ApiError(json.error?.message || `request failed (${res.status})`);
  return json;
}

async function allPages(path) {
  const out = [];
  for (let page = 1; page <= 50; page += 1) {
    const sep = path.includes("?") ? "&" : "?";
    const { data, metadata } = await api("GET", `${path}${sep}page=${page}&page_size=100`);
    out.push(...data);
    if (!metadata || page * 100 >= metadata.total_count) break;
  }
  return out;
}

async function allMessages(roomId) {
  const out = [];
  let cursor = null;
  for (let i = 0; i < 100; i += 1) {
    const query = cursor ? `?limit=100&cursor=${encodeURIComponent(cursor)}` : "?limit=100";
    const { data, metadata } = await api("GET", `/me/chats/${roomId}/messages${query}`);
    out.push(...data);
    if (!metadata?.has_more || !metadata.next_cursor) break;
    cursor = metadata.next_cursor;
  }
  return out.reverse(); // the platform pages newest first; the timeline reads oldest first
}

// ---------------------------------------------------------------- session

async function devSession() {
  try {
    const res = await fetch("/dev/session", { cache: "no-store" });
    if (res.ok) return (await res.json()).data;
  } catch {
    // not served to this client: fall back to a pasted key
  }
  return null;
}

async function signIn(key) {
  state.key = key;
  state.me = (await api("GET", "/me/profile")).data;
}

function askForKey() {
  const main = $("#main");
  main.replaceChildren($("#tpl-key").content.cloneNode(true));
  const form = $("#key-form");
  $("#key-input").focus();
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const key = $("#key-input").value.trim();
    try {
      await signIn(key);
    } catch (err) {
      state.key = null;
      $("#key-error").textContent = `That key was not accepted: ${err.message}`;
      return;
    }
    sessionStorage.setItem(KEY_STORAGE, key);
    start();
  });
}

// ---------------------------------------------------------------- socket

function setConnection(kind, connects) {
  const node = $("#connection");
  const was = node.dataset.state;
  node.dataset.state = kind;
  node.dataset.connects = String(connects);
  $(".label", node).textContent = STATE_LABELS[kind] || kind;
  const banner = $("#offline-banner");
  const away = kind === "offline" || kind === "reconnecting";
  banner.hidden = !away;
  if (kind === "online" && (was === "offline" || was === "reconnecting")) {
    // what failed while away is stale now: clear it, and say we are back
    for (const node of document.querySelectorAll(".error-text")) node.textContent = "";
    announce("Back online");
  }
}

function openSocket() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const query = `vsn=2.0.0&api_key=${encodeURIComponent(state.key)}`;
  const url = `${scheme}://${location.host}/api/v1/socket/websocket?${query}`;
  const socket = new PhoenixSocket(url, {
    heartbeatMs: state.heartbeatMs,
    onState: setConnection,
    onReconnect: () => {
      // pushes sent while we were away are lost: read the truth again over REST
      refreshRooms();
      if (state.room) state.room.resync();
    },
  });
  state.socket = socket;
  socket.channel(`user_rooms:${state.me.id}`, (event) => {
    if (event === "room_added" || event === "room_removed") refreshRooms();
  });
  socket.connect();
  window.bandSocket = socket;
}

// ---------------------------------------------------------------- rooms list

async function refreshRooms() {
  try {
    state.rooms = await allPages("/me/chats");
  } catch (err) {
    announce(`Could not load rooms: ${err.message}`);
    return;
  }
  renderRooms();
}

function roomTitle(room) {
  return room.title || "Untitled room";
}

function renderRooms() {
  const list = $("#room-list");
  const current = state.room?.id;
  list.replaceChildren(
    ...state.rooms.map((room) => {
      const link = el("a", { href: `#/rooms/${room.id}` }, el("span", { text: roomTitle(room) }));
      const agents = (room.agents || []).map((a) => a.name).join(", ");
      if (agents) link.append(el("span", { class: "room-agents", text: agents }));
      if (room.id === current) link.setAttribute("aria-current", "page");
      return el("li", {}, link);
    }),
  );
  $("#room-list-empty").hidden = state.rooms.length > 0;
}

async function createRoom(title, agentId) {
  const chat = title ? { title } : {};
  const room = (await api("POST", "/me/chats", { chat })).data;
  if (agentId) {
    await api("POST", `/me/chats/${room.id}/participants`, {
      participant: { participant_id: agentId },
    });
  }
  await refreshRooms();
  location.hash = `#/rooms/${room.id}`;
}

// ---------------------------------------------------------------- room view

const EVENT_LABELS = {
  thought: "Thought",
  tool_call: "Tool call",
  tool_result: "Tool result",
  task: "Task",
  error: "Error",
  attention: "Attention",
  system: "System",
};

class RoomView {
  constructor(id) {
    this.id = id;
    this.room = null;
    this.participants = [];
    this.items = new Map(); // message id -> <li>
    this.calls = new Map(); // tool call key -> {li, done}
    this.orphanResults = new Map(); // tool_call_id -> result message seen before its call
    this.working = new Map(); // "message agent" -> agent id, while the agent is processing it
    this.files = new Map(); // file id -> {file, message}: the attachments of the room's messages
    this.boardTimer = null;
    this.topics = [`chat_room:${id}`, `room_participants:${id}`];
  }

  async open() {
    const main = $("#main");
    main.replaceChildren($("#tpl-room").content.cloneNode(true));
    this.timeline = $("#timeline");
    this.input = $("#compose-input");
    this.mentions = new MentionBox(this.input, $("#mention-list"), () =>
      this.participants.filter((p) => p.id !== state.me.id),
    );
    $("#compose").addEventListener("submit", (event) => {
      event.preventDefault();
      this.send();
    });
    this.input.addEventListener("keydown", (event) => {
      // Enter sends, Shift+Enter starts a new line (the mention list handles Enter first)
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing && !event.defaultPrevented) {
        event.preventDefault();
        this.send();
      }
    });
    $("#add-agent").addEventListener("submit", (event) => {
      event.preventDefault();
      this.addAgent();
    });
    $("#delete-room").addEventListener("click", () => this.remove());
    $("#rename-room").addEventListener("click", () => this.rename());
    try {
      this.room = (await api("GET", `/me/chats/${this.id}`)).data;
    } catch (err) {
      main.replaceChildren(
        el("section", { class: "panel" }, el("h1", { text: "Room not available" }),
          el("p", { text: err.message })),
      );
      return false;
    }
    $("#room-title").textContent = roomTitle(this.room);
    $(".room-id").textContent = this.id;
    document.title = `${roomTitle(this.room)} · Band`;
    this.join();
    await this.resync();
    return true;
  }

  join() {
    const socket = state.socket;
    socket.channel(this.topics[0], (event, payload) => {
      if (event === "message_created" || event === "event_created") this.add(payload, true);
      else if (event === "message_updated") this.updateStatus(payload);
    });
    socket.channel(this.topics[1], (event, payload) => {
      if (event === "participant_added") {
        this.participants = this.participants.filter((p) => p.id !== payload.id);
        this.participants.push(payload);
        this.renderParticipants();
        announce(`${payload.name} joined the room`);
      } else if (event === "participant_removed") {
        this.participants = this.participants.filter((p) => p.id !== payload.id);
        this.renderParticipants();
        announce(`${payload.name} left the room`);
      } else if (event === "room_deleted") {
        location.hash = "#/";
      }
    });
  }

  close() {
    clearTimeout(this.boardTimer);
    for (const topic of this.topics) state.socket.leave(topic);
  }

  async resync() {
    // a burst of history is not news: screen readers hear only what arrives afterwards
    this.timeline.setAttribute("aria-busy", "true");
    try {
      // read together: a room left meanwhile answers all of them, or none, with 404
      const [participants, messages, board] = await Promise.all([
        allPages(`/me/chats/${this.id}/participants`),
        allMessages(this.id),
        api("GET", `/me/chats/${this.id}/board`),
      ]);
      if (state.room !== this) return; // the person moved on meanwhile
      this.participants = participants;
      this.renderParticipants();
      await this.renderAgentChoices();
      for (const message of messages) this.add(message, false);
      this.scrollToEnd(true);
      this.showEmpty();
      this.renderBoard(board.data);
    } catch (err) {
      announce(`Could not load the room: ${err.message}`);
    } finally {
      this.timeline.removeAttribute("aria-busy");
    }
  }

  renderParticipants() {
    const list = $("#participant-list");
    if (!list) return;
    list.replaceChildren(
      ...this.participants.map((p) => {
        const badge = el("span", { class: `badge ${p.type.toLowerCase()}`, text: p.type });
        const you = p.id === state.me.id ? el("span", { class: "muted", text: " (you)" }) : null;
        const status = p.type === "Agent"
          ? el("span", { class: `presence ${p.online ? "on" : "off"}`, text: p.online ? "online" : "offline" })
          : null;
        return el("li", {}, el("span", { class: "pname", text: p.name }), you, badge,
          el("span", { class: "handle", text: `@${p.handle}` }), status);
      }),
    );
    this.renderAgentChoices(false);
  }

  async renderAgentChoices(fetch = true) {
    const select = $("#add-agent-select");
    if (!select) return;
    if (fetch || !this.agents) this.agents = await allPages("/me/agents");
    const inRoom = new Set(this.participants.map((p) => p.id));
    const choices = this.agents.filter((a) => !inRoom.has(a.id));
    select.replaceChildren(...choices.map((a) => el("option", { value: a.id, text: a.name })));
    select.disabled = choices.length === 0;
    $("#add-agent button").disabled = choices.length === 0;
    if (!choices.length) select.append(el("option", { value: "", text: "No agents to add" }));
  }

  async addAgent() {
    const id = $("#add-agent-select").value;
    $("#add-agent-error").textContent = "";
    if (!id) return;
    try {
      await api("POST", `/me/chats/${this.id}/participants`, {
        participant: { participant_id: id },
      });
    } catch (err) {
      $("#add-agent-error").textContent = err.message;
    }
  }

  async rename() {
    const title = prompt("New title of the room", roomTitle(this.room))?.trim();
    if (!title || title === this.room.title) return;
    $("#room-error").textContent = "";
    try {
      this.room = { ...this.room, ...(await api("PATCH", `/me/chats/${this.id}`, { chat: { title } })).data };
    } catch (err) {
      $("#room-error").textContent = `Not renamed: ${err.message}`;
      return;
    }
    $("#room-title").textContent = roomTitle(this.room);
    document.title = `${roomTitle(this.room)} · Band`;
    announce(`Room renamed to ${title}`);
    await refreshRooms();
  }

  async remove() {
    // deleting a room removes it for everyone in it: ask first
    if (!confirm(`Delete the room “${roomTitle(this.room)}” and its messages for everyone?`)) return;
    $("#room-error").textContent = "";
    try {
      const job = (await api("POST", "/me/chats/bulk-delete", { ids: [this.id] })).data;
      if (job.failed?.length) throw new ApiError(job.failed[0].reason);
    } catch (err) {
      $("#room-error").textContent = `Not deleted: ${err.message}`;
      return;
    }
    announce("Room deleted");
    await refreshRooms();
    location.hash = "#/";
  }

  async send() {
    const text = this.input.value.trim();
    $("#compose-error").textContent = "";
    if (!text) return;
    let { content, mentions } = this.mentions.encode(text, this.participants);
    // an @Name typed without picking it from the list is plain text: ask before nobody is asked
    const missed = unpicked(content, this.participants, mentions, state.me.id);
    if (missed.length) {
      const names = missed.map((p) => p.name).join(", ");
      const ask = `"@${missed[0].name}" is not a mention: ${names} will not be asked to answer.\nMention ${names}?`;
      if (window.confirm(ask)) ({ content, mentions } = mentionNames(content, mentions, missed));
    }
    // the box empties at once, so what is typed while the message is on its way is kept
    this.input.value = "";
    try {
      await api("POST", `/me/chats/${this.id}/messages`, { message: { content, mentions } });
    } catch (err) {
      $("#compose-error").textContent = `Not sent: ${err.message}`;
      const typed = this.input.value;
      this.input.value = typed ? `${text}\n${typed}` : text;
    }
    this.input.focus();
  }

  // -- timeline

  nameOf(id, message) {
    const mention = (message.metadata?.mentions || []).find((m) => m.id === id);
    const p = this.participants.find((x) => x.id === id);
    return p?.name || mention?.name || mention?.handle || id;
  }

  richText(message) {
    // Markdown, sanitized; content carries mentions as @[[id]] tokens: shown as @Name
    const mention = (id) =>
      el("span", { class: id === state.me.id ? "mention me" : "mention", text: `@${this.nameOf(id, message)}` });
    return el("div", { class: "content markdown" }, renderMarkdown(message.content, mention));
  }

  header(message, label) {
    const time = new Date(message.inserted_at);
    return el(
      "header",
      { class: "meta" },
      el("span", { class: "sender", text: message.sender_name || message.sender_id }),
      label ? el("span", { class: `kind ${message.message_type}`, text: label }) : null,
      el("time", { dateTime: message.inserted_at, text: time.toLocaleTimeString() }),
    );
  }

  add(message, live) {
    if (!message?.id) return;
    if (this.items.has(message.id)) {
      this.updateStatus(message); // a resync may bring delivery changes we missed
      return;
    }
    const near = this.isNearEnd();
    const type = message.message_type;
    let li;
    if (type === "text") li = this.textItem(message);
    else if (type === "tool_call") li = this.toolCall(message);
    else if (type === "tool_result") li = this.toolResult(message);
    else li = this.eventItem(message);
    this.items.set(message.id, li);
    if (li.dataset.folded !== "true") this.timeline.append(li);
    if (message.attachments?.length) this.addFiles(message);
    // an agent at work may have changed the board: read it again (once per burst)
    if (live && message.sender_type === "Agent") this.boardSoon();
    if (live) this.scrollToEnd(near);
    this.showEmpty();
  }

  textItem(message) {
    const mine = message.sender_id === state.me.id;
    const li = el("li", {
      class: `item message ${mine ? "mine" : ""} ${message.sender_type === "Agent" ? "agent" : "user"}`,
      "data-id": message.id,
      "data-type": "text",
    });
    li.append(this.header(message), this.richText(message), el("p", { class: "delivery" }));
    this.fillStatus(li, message);
    return li;
  }

  fillStatus(li, message) {
    const line = $(".delivery", li);
    const statuses = Object.entries(message.metadata?.delivery_status || {});
    for (const [id, s] of statuses) {
      const key = `${message.id} ${id}`;
      if (s.status === "processing") this.working.set(key, id);
      else this.working.delete(key);
    }
    this.renderWorking();
    line.textContent = statuses
      .map(([id, s]) => `${this.nameOf(id, message)}: ${s.status}`)
      .join(" · ");
    line.hidden = statuses.length === 0;
  }

  boardSoon() {
    clearTimeout(this.boardTimer);
    this.boardTimer = setTimeout(() => this.refreshBoard(), 300);
  }

  async refreshBoard() {
    try {
      this.renderBoard((await api("GET", `/me/chats/${this.id}/board`)).data);
    } catch (err) {
      announce(`Could not load the task board: ${err.message}`);
    }
  }

  renderBoard(view) {
    if (state.room !== this || !$("#task-list")) return;
    const { board, tasks } = view;
    const goal = $("#board-goal");
    goal.textContent = board.goal_title
      ? `Goal: ${board.goal_title}${board.goal_summary ? ` (${board.goal_summary})` : ""}`
      : "No goal set.";
    goal.classList.toggle("muted", !board.goal_title);
    $("#task-list").replaceChildren(
      ...tasks.map((t) => el("li", { class: `task state-${t.state}`, "data-task": t.id },
        el("span", { class: "task-number", text: `#${t.number} ` }),
        el("span", { class: "task-subject", text: t.subject }),
        el("span", { class: "task-status", text: ` · ${t.overall_status || t.state}` }))),
    );
  }

  addFiles(message) {
    for (const file of message.attachments) this.files.set(file.id, { file, message });
    const list = $("#file-list");
    if (!list) return;
    list.replaceChildren(
      ...[...this.files.values()].map(({ file, message: m }) => {
        const kb = file.bytes === null || file.bytes === undefined ? "" : `, ${Math.max(1, Math.round(file.bytes / 1024))} KB`;
        return el("li", { "data-file": file.id },
          el("span", { class: "file-name", text: file.name || file.id }),
          el("span", { class: "muted", text: ` (${file.content_type || "file"}${kb}) from ${m.sender_name || m.sender_id}` }));
      }),
    );
    $("#files-empty").hidden = this.files.size > 0;
  }

  renderWorking() {
    // an agent holding a processing mark is working on a message of this room
    const node = $("#working");
    if (!node) return;
    const names = [...new Set(this.working.values())].map((id) => this.nameOf(id, {}));
    node.hidden = names.length === 0;
    node.textContent = names.length
      ? `${names.join(", ")} ${names.length === 1 ? "is" : "are"} working…`
      : "";
  }

  updateStatus(message) {
    const li = this.items.get(message.id);
    if (li && li.dataset.type === "text") this.fillStatus(li, message);
  }

  eventItem(message) {
    const type = message.message_type;
    const li = el("li", { class: `item event ${type}`, "data-id": message.id, "data-type": type });
    li.append(this.header(message, EVENT_LABELS[type] || type));
    if (type === "thought" && firstLine(message.content) !== message.content) {
      // long thoughts fold away behind their first line
      li.append(el("details", {}, el("summary", { text: firstLine(message.content) }),
        el("p", { class: "content", text: message.content })));
    } else {
      li.append(el("p", { class: "content", text: message.content }));
    }
    return li;
  }

  callKey(message) {
    return message.metadata?.tool_call_id || null;
  }

  toolCall(message) {
    const meta = message.metadata || {};
    const name = meta.name || message.content;
    const li = el("li", { class: "item event tool_call pending", "data-id": message.id, "data-type": "tool_call" });
    const args = meta.args === undefined ? message.content : pretty(meta.args);
    const result = el("div", { class: "result" }, el("p", { class: "muted", text: "Waiting for the result…" }));
    li.append(
      this.header(message, "Tool call"),
      el("details", {},
        el("summary", {}, el("code", { text: name }), el("span", { class: "state", text: "running" })),
        el("h3", { text: "Arguments" }), el("pre", { text: args }),
        el("h3", { text: "Result" }), result),
    );
    const entry = { li, done: false, sender: message.sender_id, name: meta.name };
    this.calls.set(this.callKey(message) || message.id, entry);
    const early = this.orphanResults.get(this.callKey(message));
    if (early) {
      this.orphanResults.delete(this.callKey(message));
      this.fold(entry, early);
    }
    return li;
  }

  toolResult(message) {
    const key = this.callKey(message);
    let entry = key ? this.calls.get(key) : null;
    if (!entry && !key) {
      // no tool_call_id: pair with the newest unanswered call of the same sender (and tool)
      const open = [...this.calls.values()].filter(
        (c) => !c.done && c.sender === message.sender_id &&
          (!message.metadata?.name || c.name === message.metadata.name),
      );
      entry = open[open.length - 1] || null;
    }
    if (entry && !entry.done) {
      this.fold(entry, message);
      const marker = el("li", { hidden: true, "data-id": message.id, "data-folded": "true" });
      return marker;
    }
    if (key) this.orphanResults.set(key, message);
    return this.eventItem(message);
  }

  fold(entry, message) {
    const meta = message.metadata || {};
    entry.done = true;
    const failed = meta.is_error === true;
    entry.li.classList.remove("pending");
    entry.li.classList.toggle("failed", failed);
    entry.li.dataset.result = message.id;
    $(".state", entry.li).textContent = failed ? "failed" : "done";
    const output = meta.output === undefined ? message.content : pretty(meta.output);
    $(".result", entry.li).replaceChildren(el("pre", { text: output }));
  }

  showEmpty() {
    const empty = $("#timeline-empty");
    if (empty) empty.hidden = this.items.size > 0;
  }

  isNearEnd() {
    const t = this.timeline;
    return t.scrollHeight - t.scrollTop - t.clientHeight < 80;
  }

  scrollToEnd(force) {
    if (force) this.timeline.scrollTop = this.timeline.scrollHeight;
  }
}

function firstLine(text) {
  const line = text.split("\n")[0];
  return line.length > 100 ? `${line.slice(0, 100)}…` : line;
}

function pretty(value) {
  return typeof value === "string" ? value : JSON.stringify(value, null, 2);
}

// ---------------------------------------------------------------- agents page

function slugName(name) {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_|_$/g, "") || "agent";
}

async function showAgents() {
  const main = $("#main");
  main.replaceChildren($("#tpl-agents").content.cloneNode(true));
  document.title = "Agents · Band";
  $("#register-agent").addEventListener("submit", registerAgent);
  for (const button of main.querySelectorAll("button.copy")) {
    button.addEventListener("click", () => copyFrom(button));
  }
  await renderAgents();
  await mountConsents($("#agents-title").parentElement, api);
}

async function renderAgents() {
  let agents;
  try {
    agents = await allPages("/me/agents");
  } catch (err) {
    announce(`Could not load agents: ${err.message}`);
    return;
  }
  const body = $("#agents-table tbody");
  if (!body) return;
  body.replaceChildren(
    ...agents.map((a) => {
      const idCode = el("code", { id: `agent-id-${a.id}`, text: a.id });
      const copy = el("button", { type: "button", class: "copy", text: "Copy ID", "data-copy": idCode.id,
        "aria-label": `Copy the ID of ${a.name}` });
      copy.addEventListener("click", () => copyFrom(copy));
      const start = el("button", { type: "button", text: "New room with agent",
        "aria-label": `New room with ${a.name}` });
      start.addEventListener("click", () => createRoom(`Chat with ${a.name}`, a.id));
      const page = el("a", { href: `#/agents/${encodeURIComponent(a.id)}`, text: a.name,
        "aria-label": `${a.name}: recent turns` });
      return el("tr", {},
        el("th", { scope: "row" }, page),
        el("td", {}, el("code", { text: `@${a.handle}` })),
        el("td", {}, idCode, " ", copy),
        el("td", {}, start));
    }),
  );
  $("#agents-table").hidden = agents.length === 0;
  $("#agents-empty").hidden = agents.length > 0;
}

// ---------------------------------------------------------------- an agent's turns

async function showAgent(agentId) {
  const main = $("#main");
  main.replaceChildren($("#tpl-agent").content.cloneNode(true));
  let agents;
  let turns;
  try {
    agents = await allPages("/me/agents");
    turns = (await api("GET", `/me/agents/${encodeURIComponent(agentId)}/turns`)).data;
  } catch (err) {
    announce(`Could not load the agent: ${err.message}`);
    return;
  }
  const agent = agents.find((a) => a.id === agentId);
  const name = agent ? agent.name : agentId;
  document.title = `${name} · Agents · Band`;
  $("#agent-title").textContent = name;
  $("#agent-about").textContent = agent ? `@${agent.handle} · ${agent.id}` : agentId;
  const body = $("#turns-table tbody");
  body.replaceChildren(
    ...turns.map((t) => {
      const open = el("button", { type: "button", text: "Show timeline",
        "aria-label": `Timeline of the turn on “${firstLine(t.content)}”` });
      open.addEventListener("click", () => showTimeline(agentId, t.message_id));
      const room = el("a", { href: `#/rooms/${encodeURIComponent(t.room_id)}`,
        text: t.room_title || t.room_id });
      return el("tr", { "data-message": t.message_id },
        el("td", { text: new Date(t.sent_at).toLocaleTimeString() }),
        el("td", {}, room),
        el("td", { text: `${t.sender_name || "?"}: ${firstLine(t.content)}` }),
        el("td", { class: `turn-status status-${t.status}`, text: t.error ? `${t.status}: ${t.error}` : t.status }),
        el("td", { text: String(t.attempts) }),
        el("td", { text: t.seconds === null ? "" : t.seconds.toFixed(3) }),
        el("td", {}, open));
    }),
  );
  $("#turns-table").hidden = turns.length === 0;
  $("#turns-empty").hidden = turns.length > 0;
}

async function showTimeline(agentId, messageId) {
  let turn;
  try {
    const path = `/me/agents/${encodeURIComponent(agentId)}/turns/${encodeURIComponent(messageId)}`;
    turn = (await api("GET", path)).data;
  } catch (err) {
    announce(`Could not load the timeline: ${err.message}`);
    return;
  }
  $("#turn-points").replaceChildren(
    ...turn.points.map((p) =>
      el("li", { class: `point point-${p.kind}` },
        el("span", { class: "point-at", text: `+${p.seconds.toFixed(3)}s` }), " ",
        el("strong", { class: "point-kind", text: p.kind.replace("_", " ") }), " ",
        el("span", { class: "point-detail", text: p.detail || "" }))),
  );
  $("#turn-timeline-title").textContent = `Timeline: ${turn.status}, ${turn.attempts} attempt(s)`;
  $("#turn-timeline").hidden = false;
  $("#turn-timeline-title").focus();
}

async function registerAgent(event) {
  event.preventDefault();
  const name = $("#agent-name").value.trim();
  const description = $("#agent-description").value.trim();
  $("#register-error").textContent = "";
  let result;
  try {
    result = (await api("POST", "/me/agents/register", { agent: { name, description } })).data;
  } catch (err) {
    $("#register-error").textContent = `Not registered: ${err.message}`;
    return;
  }
  const { agent, credentials } = result;
  const origin = location.origin;
  const ws = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/api/v1/socket/websocket`;
  $("#credentials-title").textContent = `Connect remote agent: ${agent.name}`;
  $("#cred-agent-id").textContent = agent.id;
  $("#cred-api-key").textContent = credentials.api_key;
  $("#cred-yaml").textContent =
    `${slugName(agent.name)}:\n  agent_id: ${agent.id}\n  api_key: ${credentials.api_key}\n`;
  $("#cred-env").textContent =
    `BAND_AGENT_ID=${agent.id}\nBAND_API_KEY=${credentials.api_key}\n` +
    `BAND_REST_URL=${origin}\nBAND_WS_URL=${ws}\n`;
  $("#credentials").hidden = false;
  $("#credentials-title").focus();
  $("#register-agent").reset();
  await renderAgents();
}

async function copyFrom(button) {
  const source = document.getElementById(button.dataset.copy);
  const text = source.textContent;
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // clipboard refused (e.g. not a secure context): select the text for a manual copy
    const range = document.createRange();
    range.selectNodeContents(source);
    getSelection().removeAllRanges();
    getSelection().addRange(range);
    announce("Selected; press Ctrl+C to copy");
    return;
  }
  const label = button.textContent;
  button.textContent = "Copied";
  button.dataset.copied = "true";
  announce("Copied to the clipboard");
  setTimeout(() => {
    button.textContent = label;
    delete button.dataset.copied;
  }, 1500);
}

// ---------------------------------------------------------------- routing

async function route() {
  const hash = location.hash || "#/";
  if (state.room) {
    state.room.close();
    state.room = null;
  }
  for (const link of document.querySelectorAll(".tabs a")) link.removeAttribute("aria-current");
  const roomMatch = /^#\/rooms\/([^/]+)$/.exec(hash);
  if (roomMatch) {
    $("#nav-rooms").setAttribute("aria-current", "page");
    const view = new RoomView(decodeURIComponent(roomMatch[1]));
    state.room = view;
    renderRooms();
    await view.open();
  } else if (/^#\/agents\/[^/]+$/.test(hash)) {
    $("#nav-agents").setAttribute("aria-current", "page");
    renderRooms();
    await showAgent(decodeURIComponent(hash.slice("#/agents/".length)));
  } else if (hash === "#/agents") {
    $("#nav-agents").setAttribute("aria-current", "page");
    renderRooms();
    await showAgents();
  } else {
    $("#nav-rooms").setAttribute("aria-current", "page");
    document.title = "Band · local platform";
    $("#main").replaceChildren($("#tpl-home").content.cloneNode(true));
    renderRooms();
  }
}

function start() {
  openSocket();
  refreshRooms();
  window.addEventListener("hashchange", async () => {
    // focus moves to the new view as it is put in place, before its lists load: focusing it
    // after them took the focus from a form the user had started on (a Tab, then Enter, lost)
    const routed = route();
    $("#main").focus({ preventScroll: true });
    await routed;
  });
  route();
}

async function boot() {
  $("#skip-link").addEventListener("click", (event) => {
    event.preventDefault();
    $("#main").focus();
  });
  $("#new-room").addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!state.key) return;
    const input = $("#new-room-title");
    try {
      await createRoom(input.value.trim(), null);
      input.value = "";
    } catch (err) {
      announce(`Could not create the room: ${err.message}`);
    }
  });
  const session = await devSession();
  const key = session?.api_key || sessionStorage.getItem(KEY_STORAGE);
  if (session?.heartbeat_s) state.heartbeatMs = session.heartbeat_s * 1000;
  if (key) {
    try {
      await signIn(key);
      return start();
    } catch {
      sessionStorage.removeItem(KEY_STORAGE);
    }
  }
  askForKey();
}

boot();
