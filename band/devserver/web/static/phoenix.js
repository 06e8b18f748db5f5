// A small Phoenix Channels V2 client: [join_ref, ref, topic, event, payload] frames,
// heartbeats, reconnect with backoff, and rejoin of every topic after a reconnect.

const MAX_BACKOFF_MS = 10000;

export class PhoenixSocket {
  /**
   * @param {string} url  ws:// URL of /api/v1/socket/websocket (with vsn and api_key)
   * @param {{heartbeatMs?: number, onState?: Function, onReconnect?: Function}} options
   */
  constructor(url, options = {}) {
    this.url = url;
    this.heartbeatMs = options.heartbeatMs || 30000;
    this.onState = options.onState || (() => {});
    this.onReconnect = options.onReconnect || (() => {});
    this.channels = new Map(); // topic -> {topic, on, onJoin, joinRef, state}
    this.replies = new Map(); // ref -> callback(reply payload)
    this.ref = 0;
    this.ws = null;
    this.attempts = 0;
    this.connects = 0;
    this.heartbeatRef = null;
    this.heartbeatTimer = null;
    this.reconnectTimer = null;
    this.stopped = false;
  }

  nextRef() {
    this.ref += 1;
    return String(this.ref);
  }

  connect() {
    this.stopped = false;
    this.onState(this.connects ? "reconnecting" : "connecting", this.connects);
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.onopen = () => {
      this.attempts = 0;
      this.connects += 1;
      this.onState("online", this.connects);
      this.startHeartbeat();
      for (const channel of this.channels.values()) this.join(channel);
      if (this.connects > 1) this.onReconnect();
    };
    ws.onmessage = (event) => this.receive(event.data);
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.stopHeartbeat();
      this.replies.clear();
      for (const channel of this.channels.values()) channel.state = "closed";
      if (this.stopped) return;
      this.onState("offline", this.connects);
      this.scheduleReconnect();
    };
  }

  disconnect() {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    this.stopHeartbeat();
    if (this.ws) this.ws.close(1000);
  }

  scheduleReconnect() {
    const base = Math.min(MAX_BACKOFF_MS, 500 * 2 ** this.attempts);
    this.attempts += 1;
    const delay = base / 2 + Math.random() * (base / 2);
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }

  startHeartbeat() {
    this.stopHeartbeat();
    this.heartbeatTimer = setInterval(() => {
      if (this.heartbeatRef !== null) {
        // the last heartbeat was never answered: the connection is dead, start over
        this.heartbeatRef = null;
        this.ws.close();
        return;
      }
      this.heartbeatRef = this.nextRef();
      this.send([null, this.heartbeatRef, "phoenix", "heartbeat", {}]);
    }, this.heartbeatMs);
  }

  stopHeartbeat() {
    clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = null;
    this.heartbeatRef = null;
  }

  send(frame) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(frame));
      return true;
    }
    return false;
  }

  /** Join ``topic``; ``on(event, payload)`` gets its pushes, also after every rejoin. */
  channel(topic, on, onJoin = () => {}) {
    const channel = { topic, on, onJoin, joinRef: null, state: "closed" };
    this.channels.set(topic, channel);
    this.join(channel);
    return channel;
  }

  join(channel) {
    const ref = this.nextRef();
    channel.joinRef = ref;
    channel.state = "joining";
    this.replies.set(ref, (reply) => {
      channel.state = reply.status === "ok" ? "joined" : "errored";
      channel.onJoin(reply);
    });
    if (!this.send([ref, ref, channel.topic, "phx_join", {}])) this.replies.delete(ref);
  }

  leave(topic) {
    const channel = this.channels.get(topic);
    if (!channel) return;
    this.channels.delete(topic);
    this.send([channel.joinRef, this.nextRef(), topic, "phx_leave", {}]);
  }

  receive(text) {
    let frame;
    try {
      frame = JSON.parse(text);
    } catch {
      return;
    }
    if (!Array.isArray(frame) || frame.length !== 5) return;
    const [joinRef, ref, topic, event, payload] = frame;
    if (event === "phx_reply") {
      if (topic === "phoenix" && ref === this.heartbeatRef) {
        this.heartbeatRef = null;
        return;
      }
      const callback = this.replies.get(ref);
      this.replies.delete(ref);
      if (callback) callback(payload || {});
      return;
    }
    const channel = this.channels.get(topic);
    // a push for an older join of this topic belongs to a channel that no longer exists
    if (!channel || joinRef !== channel.joinRef) return;
    if (event === "phx_error") {
      channel.state = "errored";
      setTimeout(() => this.channels.get(topic) === channel && this.join(channel), 1000);
      return;
    }
    if (event === "phx_close") {
      channel.state = "closed";
      return;
    }
    channel.on(event, payload || {});
  }
}
