// The page of `memdir ui` (docs/ui.md): plain JavaScript modules served by the server as they
// are, no build step and nothing fetched from elsewhere. This one is the shell: the address
// decides the view (each view has its own URL, so a memory's page can be linked to), links
// inside the app are followed without a reload, and a change on disk redraws the view
// (server-sent events, docs/ui.md#live-updates).
import { api, h, showProgress, state } from "/dom.js";
import { healthPage } from "/health.js";
import { historyPage } from "/history.js";
import { inboxPage } from "/inbox.js";
import { memoriesPage } from "/memories.js";
import { memoryPage } from "/memory.js";
import { overviewPage } from "/overview.js";
import { recallPage } from "/recall.js";

const PAGES = {
  overview: overviewPage,
  memories: memoriesPage,
  recall: recallPage,
  inbox: inboxPage,
  history: historyPage,
  health: healthPage,
};

let current = null;
let shown = 0;

/** The view the address names: `[name, argument]`. */
function route() {
  const path = location.pathname;
  if (path.startsWith("/memory/"))
    return ["memory", path.slice("/memory/".length).split("/").map(decodeURIComponent).join("/")];
  const name = path.slice(1);
  return [Object.hasOwn(PAGES, name) ? name : "memories", null];
}

async function show() {
  const [name, argument] = route();
  const turn = ++shown;
  for (const link of document.querySelectorAll("nav a"))
    if (link.dataset.page === (name === "memory" ? "memories" : name))
      link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  const main = document.getElementById("page");
  main.dataset.page = name;
  delete main.dataset.ready;
  current = null;
  // Each view draws into its own element, so a view left behind (a redraw still under way, an
  // answer arriving late) can never draw over the one shown now.
  const page = h("div", { className: "view" });
  main.replaceChildren(page);
  let view;
  try {
    view = name === "memory" ? await memoryPage(page, argument) : await PAGES[name](page);
  } catch (error) {
    page.replaceChildren(h("p", { className: "error", role: "alert" }, error.message));
  }
  if (turn !== shown) return;
  current = view ?? null;
  document.title = `${name === "memory" ? argument : name} · memdir`;
  main.dataset.ready = name;
}

/** Follows `href` inside the app. */
export function go(href) {
  history.pushState(null, "", href);
  window.scrollTo(0, 0);
  show().then(() => document.getElementById("page").focus({ preventScroll: true }));
}

/** Server-sent events of the memory dir shown: each change redraws the view (once per burst). */
let events = null;
function listen() {
  events?.close();
  events = new EventSource(`/api/events?${new URLSearchParams({ dir: state.dir })}`);
  let burst = null;
  events.addEventListener("change", (event) => {
    const change = JSON.parse(event.data);
    if (burst) {
      burst.push(change);
      return;
    }
    // A save is a file and its index line, several events within a moment: one redraw for them,
    // told every change of the burst.
    burst = [change];
    setTimeout(async () => {
      const changes = burst;
      burst = null;
      await current?.refresh?.(changes);
    }, 150);
  });
  // The server still reading or indexing this memory dir: the loading states show how far.
  events.addEventListener("progress", (event) => showProgress(JSON.parse(event.data)));
  events.addEventListener("ready", () => {
    document.body.dataset.live = "on";
  });
}

async function start() {
  const { current: first, dirs } = await api("dirs");
  state.dir = first;
  state.defaultDir = first;
  const picker = document.getElementById("dir-picker");
  picker.replaceChildren(
    ...dirs.map((dir) => h("option", { value: dir.memoryDir, title: dir.memoryDir }, dir.label)),
  );
  picker.value = first;
  picker.addEventListener("change", () => {
    state.dir = picker.value;
    state.memories = { q: "", type: "", source: "", since: "", anchor: "", page: 1 };
    listen();
    if (route()[0] === "memory") go("/");
    else show();
  });
  document.addEventListener("click", (event) => {
    const anchor = event.target.closest?.("a[data-link]");
    if (
      !anchor ||
      event.defaultPrevented ||
      event.button !== 0 ||
      event.metaKey ||
      event.ctrlKey ||
      event.shiftKey
    )
      return;
    event.preventDefault();
    go(anchor.getAttribute("href"));
  });
  window.addEventListener("popstate", show);
  listen();
  await show();
}

start();
