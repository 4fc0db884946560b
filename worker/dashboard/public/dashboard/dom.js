// @ts-check
/** DOM helpers. Every value is set as text or an attribute, never parsed as HTML. */

const SVG = "http://www.w3.org/2000/svg";

/** @typedef {Node | string | null | undefined | false} Child */

/**
 * An element with attributes (`text` sets its text, `onclick` a click handler; null, undefined and
 * false attributes are left out) and children.
 * @param {string} tag
 * @param {Record<string, any>} [attrs]
 * @param {...Child} children
 * @returns {HTMLElement}
 */
export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") node.textContent = v;
    else if (k === "onclick") node.addEventListener("click", v);
    else if (v !== undefined && v !== null && v !== false) node.setAttribute(k, v);
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

/**
 * @param {string} tag
 * @param {Record<string, any>} [attrs]
 * @returns {SVGElement}
 */
export function svg(tag, attrs) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") node.textContent = v;
    else node.setAttribute(k, String(v));
  }
  return node;
}

/**
 * An element the page is known to have.
 * @param {string} id
 * @returns {HTMLElement}
 */
export function byId(id) {
  return /** @type {HTMLElement} */ (document.getElementById(id));
}

/**
 * A form field the page is known to have.
 * @param {string} id
 * @returns {HTMLInputElement}
 */
export function field(id) {
  return /** @type {HTMLInputElement} */ (document.getElementById(id));
}

/**
 * Replace a region's content.
 * @param {string} id
 * @param {Element} node
 */
export function replace(id, node) {
  const host = byId(id);
  host.textContent = "";
  // Tables scroll sideways inside their panel instead of spilling out of it on narrow screens.
  host.appendChild(node.tagName === "TABLE" ? el("div", { class: "table-wrap" }, node) : node);
}

/** @param {string} status */
export function statusBadge(status) {
  /** @type {Record<string, string>} */
  const classes = {
    completed: "ok",
    success: "ok",
    online: "ok",
    failed: "bad",
    error: "bad",
    cancelled: "off",
    offline: "off",
    revoked: "bad",
    running: "run",
  };
  return el("span", { class: `badge ${classes[status] || "warn"}`, text: status });
}

/**
 * A table with a header row.
 * @param {Array<string | [string, string]>} headings a heading, or [heading, class]
 * @param {HTMLElement} body
 */
export function table(headings, body) {
  const cells = headings.map((h) =>
    typeof h === "string" ? el("th", { scope: "col", text: h }) : el("th", { scope: "col", class: h[1], text: h[0] }),
  );
  return el("table", {}, el("thead", {}, el("tr", {}, ...cells)), body);
}

/**
 * @param {boolean} ok
 * @param {string} text
 */
export function setHealth(ok, text) {
  const host = byId("health");
  host.textContent = "";
  host.appendChild(el("span", { class: `dot${ok ? " on" : ""}`, "aria-hidden": "true" }));
  host.appendChild(document.createTextNode(text));
}
