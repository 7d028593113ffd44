// What every view of the page shares (docs/ui.md): building elements, the API, ages, the toast.
// Every text from a memory goes in through textContent; the one exception is a memory's body,
// which the server renders from markdown with everything escaped first (src/ui/markdown.ts).

export const TYPES = ["user", "feedback", "project", "reference"];
export const SOURCES = ["user", "cli", "agent", "extraction", "consolidation", "mcp", "sync", "import"];
export const state = {
  dir: "",
  defaultDir: "",
  memories: { q: "", type: "", source: "", since: "", anchor: "", page: 1 },
};

/** An element with attributes (`on*` functions become listeners) and children (strings are text). */
export function h(tag, attributes = {}, ...children) {
  return fill(document.createElement(tag), attributes, children);
}

const SVG = "http://www.w3.org/2000/svg";

/** An SVG element, as {@link h}: the overview's charts are drawn with these (no chart library). */
export function s(tag, attributes = {}, ...children) {
  return fill(document.createElementNS(SVG, tag), attributes, children);
}

function fill(element, attributes, children) {
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else if (name === "className") element.setAttribute("class", value);
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(typeof child === "string" || typeof child === "number" ? String(child) : child);
  }
  return element;
}

export class ApiError extends Error {
  constructor(message, status, details) {
    super(message);
    this.status = status;
    this.details = details;
  }
}

export async function api(path, params = {}) {
  const query = new URLSearchParams({ dir: state.dir, ...params });
  return answer(await fetch(`/api/${path}?${query}`));
}

export async function post(path, body = {}) {
  const response = await fetch(`/api/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ dir: state.dir, ...body }),
  });
  return answer(response);
}

/**
 * A view's requests where only the newest counts: answers can come back out of order (a filter
 * changed twice, a live refresh beside a click), and an older one drawn last would show what the
 * user no longer asked for. `newest(call)` resolves to `{ value }` for the newest call and to
 * `undefined` for one overtaken before it answered (its error too is dropped).
 */
export function newestOnly() {
  let latest = 0;
  return async (call) => {
    const mine = ++latest;
    try {
      const value = await call();
      return mine === latest ? { value } : undefined;
    } catch (error) {
      if (mine !== latest) return undefined;
      throw error;
    }
  };
}

const newestByView = new WeakMap();

/**
 * The {@link newestOnly} of a view that redraws itself whole on each live change (the overview,
 * the history, the inbox): two bursts of changes close together make two redraws of one element.
 */
export function newestIn(view) {
  if (!newestByView.has(view)) newestByView.set(view, newestOnly());
  return newestByView.get(view);
}

/**
 * `GET /api/<path>` answered one JSON value per line as the server finds them (the Health
 * page's checks): `onLine` gets each as it arrives. Resolves when the answer ends.
 */
export async function apiLines(path, onLine, signal) {
  const query = new URLSearchParams({ dir: state.dir });
  const response = await fetch(`/api/${path}?${query}`, { signal });
  if (!response.ok) return answer(response);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let pending = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    pending += value;
    let newline = pending.indexOf("\n");
    while (newline >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      if (line.trim() !== "") onLine(JSON.parse(line));
      newline = pending.indexOf("\n");
    }
  }
}

/**
 * What a view shows while the server still reads: a line of text and a bar that the server's
 * `progress` events fill (app.js), for a long scan or index build (docs/ui.md#live-updates).
 */
export function loading(text) {
  return h(
    "div",
    { className: "loading", role: "status", "data-loading": "" },
    h("span", { className: "loading-text" }, text),
    h("progress", { hidden: true }),
  );
}

/** Shows `event` ({step, done, total}) in every loading state on the page. */
export function showProgress(event) {
  for (const box of document.querySelectorAll("[data-loading]")) {
    const bar = box.querySelector("progress");
    bar.max = event.total;
    bar.value = event.done;
    bar.hidden = event.done >= event.total;
    box.dataset.progress = `${event.step} ${event.done}/${event.total}`;
    bar.title = `${event.step}: ${event.done.toLocaleString()} of ${event.total.toLocaleString()}`;
  }
}

async function answer(response) {
  const value = await response.json();
  if (!response.ok)
    throw new ApiError(value?.error?.message ?? `HTTP ${response.status}`, response.status, value?.error);
  return value;
}

/** The address of a memory's own page (deep-linkable: the server answers it with the app). */
export function memoryHref(file) {
  return `/memory/${file.split("/").map(encodeURIComponent).join("/")}`;
}

/** A link inside the app: followed without reloading the page. */
export function link(href, attributes, ...children) {
  return h("a", { href, "data-link": true, ...attributes }, ...children);
}

/** A memory's readable title (its description) over its file name, smaller. */
export function memoryTitle(file, description, attributes = {}) {
  return link(
    memoryHref(file),
    { className: "memory-link", ...attributes },
    h("span", { className: "title" }, description || file),
    description ? h("span", { className: "file" }, file) : null,
  );
}

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
const UNITS = [
  ["year", 365 * 86_400_000],
  ["month", 30 * 86_400_000],
  ["week", 7 * 86_400_000],
  ["day", 86_400_000],
  ["hour", 3_600_000],
  ["minute", 60_000],
];

/** "3 days ago" for an ISO time. */
export function age(iso) {
  const delta = Date.parse(iso) - Date.now();
  for (const [unit, ms] of UNITS)
    if (Math.abs(delta) >= ms) return relative.format(Math.round(delta / ms), unit);
  return relative.format(0, "minute");
}

/** A `<time>` showing the age, with the exact time on hover. */
export function when(iso) {
  return h("time", { datetime: iso, title: new Date(iso).toLocaleString() }, age(iso));
}

/**
 * `container` with the first `step` of `items` rendered, and a button that shows the next ones:
 * at 20,000 memories a recall explains 20,000 candidates, and a page of that many rows is slow.
 */
export function growing(container, items, render, step = 200) {
  let shown = 0;
  const more = h("button", { className: "more", type: "button", onclick: () => grow() });
  const grow = () => {
    container.append(...items.slice(shown, shown + step).map(render));
    shown = Math.min(items.length, shown + step);
    more.textContent = `show ${Math.min(step, items.length - shown)} more of ${items.length - shown}`;
    more.hidden = shown >= items.length;
  };
  grow();
  return more;
}

export function chip(text, className = "") {
  return h("span", { className: `badge ${className}`.trim() }, text);
}

export function flagBadges(flags) {
  return (flags ?? []).map((flag) => h("span", { className: "badge flag", title: flag.message }, flag.kind));
}

export function errorBox(id) {
  return h("p", { className: "error", id, role: "alert" });
}

export function showError(box, error) {
  box.textContent = error instanceof Error ? error.message : String(error);
}

export function toast(message, action) {
  const box = document.getElementById("toast");
  box.replaceChildren(h("span", {}, message), action ?? "");
  box.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => {
    box.hidden = true;
  }, 15_000);
}

export function select(id, label, options, value, onchange) {
  return h(
    "select",
    { id, "aria-label": label, onchange },
    options.map(([optionValue, text]) =>
      h("option", { value: optionValue, selected: optionValue === value }, text),
    ),
  );
}
