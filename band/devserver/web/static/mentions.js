// @mention completion for the compose box: an ARIA 1.2 combobox over the room's participants.

const QUERY = /(^|\s)@([^\s@]*)$/;

export class MentionBox {
  /**
   * @param {HTMLInputElement} input  the compose input (role=combobox)
   * @param {HTMLUListElement} list   its listbox
   * @param {() => Array<{id: string, name: string, handle: string, type: string}>} candidates
   */
  constructor(input, list, candidates) {
    this.input = input;
    this.list = list;
    this.candidates = candidates;
    this.options = [];
    this.active = -1;
    this.picked = new Map(); // "@Name" -> participant, for the mentions chosen while typing
    input.addEventListener("input", () => this.update());
    input.addEventListener("keydown", (event) => this.keydown(event));
    input.addEventListener("blur", () => setTimeout(() => this.close(), 150));
    list.addEventListener("mousedown", (event) => event.preventDefault());
    list.addEventListener("click", (event) => {
      const option = event.target.closest("[role=option]");
      if (option) this.pick(Number(option.dataset.index));
    });
  }

  get isOpen() {
    return !this.list.hidden;
  }

  query() {
    const before = this.input.value.slice(0, this.input.selectionStart ?? this.input.value.length);
    const match = QUERY.exec(before);
    return match ? match[2].toLowerCase() : null;
  }

  update() {
    const q = this.query();
    if (q === null) return this.close();
    this.options = this.candidates().filter(
      (p) => p.name.toLowerCase().includes(q) || (p.handle || "").toLowerCase().includes(q),
    );
    if (!this.options.length) return this.close();
    this.list.replaceChildren(
      ...this.options.map((p, i) => {
        const li = document.createElement("li");
        li.id = `mention-option-${i}`;
        li.setAttribute("role", "option");
        li.dataset.index = String(i);
        const name = document.createElement("span");
        name.className = "name";
        name.textContent = p.name;
        const meta = document.createElement("span");
        meta.className = "meta";
        meta.textContent = `@${p.handle || p.id} · ${p.type}`;
        li.append(name, meta);
        return li;
      }),
    );
    this.list.hidden = false;
    this.input.setAttribute("aria-expanded", "true");
    this.highlight(Math.min(Math.max(this.active, 0), this.options.length - 1));
  }

  highlight(index) {
    this.active = index;
    for (const li of this.list.children) {
      li.setAttribute("aria-selected", String(Number(li.dataset.index) === index));
    }
    const current = this.list.children[index];
    if (current) {
      this.input.setAttribute("aria-activedescendant", current.id);
      current.scrollIntoView({ block: "nearest" });
    }
  }

  close() {
    this.list.hidden = true;
    this.active = -1;
    this.input.setAttribute("aria-expanded", "false");
    this.input.removeAttribute("aria-activedescendant");
  }

  keydown(event) {
    if (!this.isOpen) return;
    const n = this.options.length;
    if (event.key === "ArrowDown") {
      this.highlight((this.active + 1) % n);
    } else if (event.key === "ArrowUp") {
      this.highlight((this.active - 1 + n) % n);
    } else if (event.key === "Enter" || event.key === "Tab") {
      this.pick(this.active);
    } else if (event.key === "Escape") {
      this.close();
    } else {
      return;
    }
    event.preventDefault();
    event.stopPropagation();
  }

  pick(index) {
    const p = this.options[index];
    if (!p) return;
    const caret = this.input.selectionStart ?? this.input.value.length;
    const before = this.input.value.slice(0, caret).replace(QUERY, `$1@${p.name} `);
    const after = this.input.value.slice(caret);
    this.input.value = before + after;
    this.input.setSelectionRange(before.length, before.length);
    this.picked.set(`@${p.name}`, p);
    this.close();
    this.input.focus();
  }

  /** Turn the typed text into wire content (@[[id]] tokens) and its mentions list. */
  encode(text, participants) {
    const mentions = new Map();
    let content = text;
    for (const [label, p] of this.picked) {
      if (content.includes(label)) {
        content = content.split(label).join(`@[[${p.id}]]`);
        mentions.set(p.id, p);
      }
    }
    // @handle typed by hand counts as a mention too
    content = content.replace(/(^|\s)@([A-Za-z0-9_./-]+)/g, (whole, lead, handle) => {
      const p = participants.find((x) => (x.handle || "").toLowerCase() === handle.toLowerCase());
      if (!p) return whole;
      mentions.set(p.id, p);
      return `${lead}@[[${p.id}]]`;
    });
    this.picked.clear();
    const list = [...mentions.values()].map((p) => ({ id: p.id, name: p.name, handle: p.handle }));
    return { content, mentions: list };
  }
}
