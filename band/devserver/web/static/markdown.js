// Message text as Markdown, rendered safely: marked (GFM: bold, code, lists, tables, links,
// bare URLs) parses, DOMPurify sanitizes, and the result is a DOM fragment (never innerHTML of
// unsanitized text). Raw HTML in a message is shown as text, not parsed; images become links
// (the page's CSP loads nothing from elsewhere); links open in a new tab without a referrer.
// Both libraries are vendored beside this file with their licences (see VENDOR.md).

import { Marked } from "./marked.esm.js";
import DOMPurify from "./purify.es.js";

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const escapeHtml = (text) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]);

const marked = new Marked({
  gfm: true,
  breaks: true,
  async: false,
  renderer: {
    html({ text }) {
      return escapeHtml(text);
    },
    image({ href, text }) {
      return `<a href="${escapeHtml(href || "")}">${escapeHtml(text || href || "image")}</a>`;
    },
  },
});

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A" && node.hasAttribute("href")) {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
});

const PURIFY = {
  RETURN_DOM_FRAGMENT: true,
  FORBID_TAGS: ["img", "style", "form", "input", "button", "iframe", "svg", "math"],
  FORBID_ATTR: ["style", "class", "id"],
};

// mention tokens travel through Markdown as private-use placeholders, then become elements
const TOKEN = /@\[\[([^\]]+)\]\]/g;
const PLACEHOLDER = /\uE000(\d+)\uE001/;

export function renderMarkdown(content, mention) {
  const ids = [];
  const source = content.replace(TOKEN, (_, id) => `\uE000${ids.push(id) - 1}\uE001`);
  const fragment = DOMPurify.sanitize(marked.parse(source), PURIFY);
  const walker = document.createTreeWalker(fragment, NodeFilter.SHOW_TEXT);
  const texts = [];
  while (walker.nextNode()) texts.push(walker.currentNode);
  for (const node of texts) {
    if (!PLACEHOLDER.test(node.nodeValue)) continue;
    const parts = node.nodeValue.split(/\uE000(\d+)\uE001/);
    node.replaceWith(
      ...parts.map((part, i) => (i % 2 ? mention(ids[Number(part)]) : document.createTextNode(part))),
    );
  }
  return fragment;
}
