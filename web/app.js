// The page of `memdir ui` (docs/ui.md): plain JavaScript served by the server as is, no build
// step and nothing fetched from elsewhere. Every text from a memory goes in through textContent;
// the one exception is a memory's body, which the server renders from markdown with everything
// escaped first (src/ui/markdown.ts).

const TYPES = ["user", "feedback", "project", "reference"];
const SOURCES = ["user", "cli", "agent", "extraction", "consolidation", "mcp", "sync"];
const state = { dir: "", memories: { q: "", type: "", source: "", page: 1, selected: null } };

/** An element with attributes (`on*` functions become listeners) and children (strings are text). */
function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else if (name === "className") element.className = value;
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(typeof child === "string" || typeof child === "number" ? String(child) : child);
  }
  return element;
}

class ApiError extends Error {
  constructor(message, status, details) {
    super(message);
    this.status = status;
    this.details = details;
  }
}

async function api(path, params = {}) {
  const query = new URLSearchParams({ dir: state.dir, ...params });
  return answer(await fetch(`/api/${path}?${query}`));
}

async function post(path, body = {}) {
  const response = await fetch(`/api/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ dir: state.dir, ...body }),
  });
  return answer(response);
}

async function answer(response) {
  const value = await response.json();
  if (!response.ok)
    throw new ApiError(value?.error?.message ?? `HTTP ${response.status}`, response.status, value?.error);
  return value;
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
function age(iso) {
  const delta = Date.parse(iso) - Date.now();
  for (const [unit, ms] of UNITS)
    if (Math.abs(delta) >= ms) return relative.format(Math.round(delta / ms), unit);
  return relative.format(0, "minute");
}

/**
 * `container` with the first `step` of `items` rendered, and a button that shows the next ones:
 * at 20,000 memories a recall explains 20,000 candidates, and a page of that many rows is slow.
 */
function growing(container, items, render, step = 200) {
  let shown = 0;
  const more = h("button", { className: "more", onclick: () => grow() });
  const grow = () => {
    container.append(...items.slice(shown, shown + step).map(render));
    shown = Math.min(items.length, shown + step);
    more.textContent = `show ${Math.min(step, items.length - shown)} more of ${items.length - shown}`;
    more.hidden = shown >= items.length;
  };
  grow();
  return more;
}

function flagBadges(flags) {
  return (flags ?? []).map((flag) => h("span", { className: "badge flag", title: flag.message }, flag.kind));
}

function errorBox(id) {
  return h("p", { className: "error", id, role: "alert" });
}

function showError(box, error) {
  box.textContent = error instanceof Error ? error.message : String(error);
}

function toast(message, action) {
  const box = document.getElementById("toast");
  box.replaceChildren(h("span", {}, message), action ?? "");
  box.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => {
    box.hidden = true;
  }, 15_000);
}

function select(id, label, options, value, onchange) {
  return h(
    "select",
    { id, "aria-label": label, onchange },
    options.map(([optionValue, text]) =>
      h("option", { value: optionValue, selected: optionValue === value }, text),
    ),
  );
}

// ---- Memories ----

async function memoriesPage(page) {
  const view = state.memories;
  const list = h("div", { id: "memory-list" });
  const detail = h("div", { id: "detail" }, h("p", { className: "muted" }, "Pick a memory to read it."));
  let timer;
  const search = h("input", {
    type: "search",
    id: "search",
    placeholder: "search memories",
    value: view.q,
    "aria-label": "search",
    oninput: () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        view.q = search.value;
        view.page = 1;
        loadList();
      }, 250);
    },
  });
  const types = select(
    "filter-type",
    "type",
    [["", "all types"], ...TYPES.map((t) => [t, t])],
    view.type,
    (e) => {
      view.type = e.target.value;
      view.page = 1;
      loadList();
    },
  );
  const sources = select(
    "filter-source",
    "source",
    [["", "all sources"], ...SOURCES.map((s) => [s, s]), ["none", "no source"]],
    view.source,
    (e) => {
      view.source = e.target.value;
      view.page = 1;
      loadList();
    },
  );
  const count = h("span", { id: "memory-count", className: "muted" });
  page.replaceChildren(
    h("h2", {}, "Memories"),
    h("div", { className: "toolbar" }, search, types, sources, count),
    h("div", { className: "split" }, list, detail),
  );

  async function loadList() {
    const params = { page: String(view.page) };
    if (view.q.trim()) params.q = view.q;
    if (view.type) params.type = view.type;
    if (view.source) params.source = view.source;
    let result;
    try {
      result = await api("memories", params);
    } catch (error) {
      list.replaceChildren(h("p", { className: "error", role: "alert" }, error.message));
      return;
    }
    const pages = Math.max(1, Math.ceil(result.total / result.pageSize));
    count.textContent = `${result.total} ${result.total === 1 ? "memory" : "memories"}${view.q.trim() ? " match" : ""}`;
    const rows = result.items.map((item) =>
      h(
        "tr",
        {
          className: `memory-row${item.file === view.selected ? " selected" : ""}`,
          "data-file": item.file,
          onclick: () => openMemory(item.file),
        },
        h("td", {}, h("a", { href: `#memories`, className: "file" }, item.file)),
        h("td", {}, item.type ?? h("span", { className: "muted" }, "?")),
        h("td", {}, item.description ?? "", " ", flagBadges(item.flags)),
        h("td", { title: item.savedAt }, age(item.savedAt)),
        h("td", {}, item.source ?? h("span", { className: "muted" }, "–")),
      ),
    );
    list.replaceChildren(
      result.total === 0
        ? h("p", { className: "muted", id: "no-memories" }, "No memories match.")
        : h(
            "table",
            {},
            h(
              "thead",
              {},
              h(
                "tr",
                {},
                ["file", "type", "description", "age", "source"].map((t) => h("th", {}, t)),
              ),
            ),
            h("tbody", {}, rows),
          ),
      h(
        "div",
        { className: "pager" },
        h("button", { id: "prev-page", disabled: view.page <= 1, onclick: () => turn(-1) }, "‹ newer"),
        h("span", { id: "page-number" }, `page ${view.page} of ${pages}`),
        h("button", { id: "next-page", disabled: view.page >= pages, onclick: () => turn(1) }, "older ›"),
      ),
    );
  }

  function turn(step) {
    view.page += step;
    loadList();
  }

  async function openMemory(file) {
    view.selected = file;
    for (const row of list.querySelectorAll("tr.memory-row"))
      row.classList.toggle("selected", row.dataset.file === file);
    let memory;
    try {
      memory = await api("memory", { file });
    } catch (error) {
      detail.replaceChildren(h("p", { className: "error", role: "alert" }, error.message));
      return;
    }
    const body = h("div", { className: "markdown", id: "memory-body" });
    body.innerHTML = memory.html; // escaped and rendered by the server (src/ui/markdown.ts)
    detail.replaceChildren(
      h(
        "div",
        { className: "panel" },
        h("h3", { id: "memory-file" }, memory.file),
        h(
          "p",
          {},
          h("span", { className: "badge" }, memory.type ?? "no type"),
          memory.source ? h("span", { className: "badge" }, `source: ${memory.source}`) : "",
          flagBadges(memory.flags),
        ),
        h("p", { id: "memory-description" }, memory.description ?? ""),
        body,
        h("p", { className: "muted" }, "Index line:"),
        h("p", { className: "index-line", id: "index-line" }, memory.indexLine ?? "(no line in MEMORY.md)"),
        memory.issues.length > 0 ? h("p", { className: "error" }, memory.issues.join("\n")) : "",
        h(
          "div",
          { className: "actions" },
          h("button", { id: "edit", onclick: () => editMemory(memory) }, "Edit"),
          h("button", { id: "delete", onclick: () => deleteMemory(memory.file) }, "Delete"),
        ),
      ),
    );
  }

  function editMemory(memory) {
    const error = errorBox("save-error");
    const type = select(
      "edit-type",
      "type",
      TYPES.map((t) => [t, t]),
      memory.type ?? "feedback",
    );
    const description = h("input", { type: "text", id: "edit-description", value: memory.description ?? "" });
    const body = h("textarea", { id: "edit-body", rows: "14" });
    body.value = memory.body;
    // The version this edit replaces: a file changed on disk since answers 409 (docs/ui.md).
    let version = memory.version;
    const conflict = h("div", { id: "save-conflict" });
    const form = h(
      "form",
      {
        className: "edit panel",
        onsubmit: async (event) => {
          event.preventDefault();
          error.textContent = "";
          conflict.replaceChildren();
          try {
            const saved = await post("memory/save", {
              file: memory.file,
              type: type.value,
              description: description.value,
              body: body.value,
              version,
            });
            toast(`Saved ${saved.file}${saved.indexWarning ? ` — ${saved.indexWarning}` : ""}`);
            await loadList();
            await openMemory(saved.file);
          } catch (failure) {
            showError(error, failure);
            if (failure instanceof ApiError && failure.status === 409) showConflict(failure.details);
          }
        },
      },
      h("h3", {}, `Edit ${memory.file}`),
      h("label", {}, "Type ", type),
      h("label", {}, "Description ", description),
      h("label", {}, "Body ", body),
      error,
      conflict,
      h(
        "div",
        { className: "actions" },
        h("button", { type: "submit", id: "save" }, "Save"),
        h("button", { type: "button", id: "cancel", onclick: () => openMemory(memory.file) }, "Cancel"),
      ),
    );
    detail.replaceChildren(form);

    // Both texts side by side: keep yours (saved over the disk's, now that you have seen it), or
    // take the disk's and drop yours.
    function showConflict(details) {
      const shown = (fields) =>
        fields === null
          ? "(deleted)"
          : `type: ${fields.type}\ndescription: ${fields.description}\n\n${fields.body}`;
      const current = details?.current ?? null;
      conflict.replaceChildren(
        h(
          "div",
          { className: "panel conflict" },
          h("h4", {}, "On disk now"),
          h("pre", { id: "conflict-current" }, shown(current)),
          h("h4", {}, "Yours"),
          h("pre", { id: "conflict-yours" }, shown(details?.yours ?? null)),
          h(
            "div",
            { className: "actions" },
            current === null
              ? ""
              : h(
                  "button",
                  {
                    type: "button",
                    id: "keep-mine",
                    onclick: () => {
                      version = current.version;
                      form.requestSubmit();
                    },
                  },
                  "Keep mine",
                ),
            h(
              "button",
              { type: "button", id: "take-disk", onclick: () => openMemory(memory.file) },
              "Take the disk's",
            ),
          ),
        ),
      );
    }
  }

  async function deleteMemory(file) {
    try {
      const removed = await post("memory/delete", { file });
      view.selected = null;
      detail.replaceChildren(h("p", { className: "muted" }, `Deleted ${file}.`));
      await loadList();
      const undo = removed.historyId
        ? h(
            "button",
            {
              id: "undo-delete",
              onclick: async () => {
                try {
                  await post("history/undo", { id: removed.historyId });
                  document.getElementById("toast").hidden = true;
                  await loadList();
                  await openMemory(file);
                } catch (error) {
                  toast(`Undo failed: ${error.message}`);
                }
              },
            },
            "Undo",
          )
        : null;
      toast(`Deleted ${file}.`, undo);
    } catch (error) {
      toast(`Delete failed: ${error.message}`);
    }
  }

  await loadList();
  if (view.selected) await openMemory(view.selected);
}

// ---- Recall ----

async function recallPage(page) {
  const query = h("textarea", {
    id: "recall-query",
    rows: "3",
    placeholder: "a prompt, as the user would type it",
  });
  const k = h("input", { type: "number", id: "recall-k", min: "1", value: "5", "aria-label": "k" });
  const out = h("div", { id: "recall-result" });
  const error = errorBox("recall-error");
  const form = h(
    "form",
    {
      onsubmit: async (event) => {
        event.preventDefault();
        error.textContent = "";
        try {
          showRecall(out, await api("recall", { q: query.value, k: k.value || "5" }));
        } catch (failure) {
          showError(error, failure);
        }
      },
    },
    query,
    h(
      "div",
      { className: "toolbar" },
      h("label", {}, "at most ", k, " memories"),
      h("button", { id: "recall" }, "Recall"),
    ),
  );
  page.replaceChildren(
    h("h2", {}, "Recall"),
    h("p", { className: "muted" }, "What ", h("code", {}, "memdir recall --explain"), " says for a prompt."),
    form,
    error,
    out,
  );
}

function showRecall(out, result) {
  const candidates = h("tbody");
  const more = growing(candidates, result.candidates, (candidate) =>
    h(
      "tr",
      { "data-status": candidate.status, "data-file": candidate.file },
      h("td", {}, candidate.status),
      h("td", {}, candidate.score === null ? "-" : candidate.score.toFixed(3)),
      h("td", {}, candidate.file),
      h("td", {}, candidate.reason),
    ),
  );
  const bytes = result.messages.reduce(
    (sum, message) => sum + new TextEncoder().encode(message.content).length,
    0,
  );
  const count = result.messages.length;
  out.replaceChildren(
    h("p", {}, `selector: ${result.selector}`),
    result.fallback ? h("p", {}, `fallback: ${result.fallback}`) : "",
    result.modelFailure
      ? h("p", { className: "error" }, `model failure: ${result.modelFailure} (nothing selected)`)
      : "",
    h("h3", {}, `candidates (${result.candidates.length})`),
    h(
      "table",
      { id: "candidates" },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          ["status", "score", "file", "reason"].map((t) => h("th", {}, t)),
        ),
      ),
      candidates,
    ),
    more,
    h(
      "h3",
      { id: "inject-summary" },
      `would inject ${count} ${count === 1 ? "memory" : "memories"} (${bytes} bytes)`,
    ),
    h(
      "div",
      { id: "hidden-messages" },
      result.messages.map((message) => h("pre", { className: "hidden-message" }, message.content)),
    ),
  );
}

// ---- Inbox ----

async function inboxPage(page) {
  const { proposals } = await api("inbox");
  page.replaceChildren(
    h("h2", {}, "Inbox"),
    proposals.length === 0
      ? h(
          "p",
          { className: "muted", id: "inbox-empty" },
          "Nothing waits for review. ",
          h("code", {}, "memdir dream --propose"),
          " makes proposals.",
        )
      : h(
          "div",
          {},
          proposals.map((proposal) => proposalPanel(page, proposal)),
        ),
  );
}

function diffView(lines) {
  return h(
    "pre",
    { className: "diff" },
    lines.map((line) =>
      h(
        "div",
        { className: line.op === "+" ? "add" : line.op === "-" ? "del" : "" },
        `${line.op} ${line.text}`,
      ),
    ),
  );
}

function proposalPanel(page, proposal) {
  const error = errorBox(`proposal-error-${proposal.id}`);
  const editors = new Map();
  const changes = proposal.changes.map((change) => {
    const editor =
      change.after === null ? null : h("textarea", { rows: "10", hidden: true, "data-file": change.file });
    if (editor) {
      editor.value = change.after;
      editors.set(change.file, editor);
    }
    return h(
      "div",
      {},
      h("h4", {}, `${change.action} ${change.file}`, change.source ? ` (source: ${change.source})` : ""),
      diffView(change.diff),
      editor ?? "",
    );
  });
  const act = async (path, body) => {
    error.textContent = "";
    try {
      await post(path, { id: proposal.id, ...body });
      toast(`${path === "inbox/reject" ? "Rejected" : "Accepted"} proposal ${proposal.id}`);
      await inboxPage(page);
    } catch (failure) {
      showError(error, failure);
    }
  };
  const acceptEdited = h(
    "button",
    {
      className: "accept-edited",
      hidden: true,
      onclick: () =>
        act("inbox/accept", { edits: Object.fromEntries([...editors].map(([f, e]) => [f, e.value])) }),
    },
    "Accept edited",
  );
  return h(
    "div",
    { className: "panel proposal", "data-id": proposal.id },
    h("h3", {}, proposal.summary),
    h(
      "p",
      { className: "muted" },
      `${proposal.id} · ${proposal.source} · ${age(proposal.createdAt)}`,
      proposal.reason ? ` · ${proposal.reason}` : "",
      " ",
      flagBadges(proposal.flags),
    ),
    changes,
    error,
    h(
      "div",
      { className: "actions" },
      h("button", { className: "accept", onclick: () => act("inbox/accept", {}) }, "Accept"),
      editors.size > 0
        ? h(
            "button",
            {
              className: "edit-accept",
              onclick: () => {
                for (const editor of editors.values()) editor.hidden = false;
                acceptEdited.hidden = false;
              },
            },
            "Edit and accept",
          )
        : "",
      acceptEdited,
      h("button", { className: "reject", onclick: () => act("inbox/reject", {}) }, "Reject"),
    ),
  );
}

// ---- History ----

const MARK = { added: "+", modified: "~", deleted: "-" };

async function historyPage(page) {
  const { backend, entries } = await api("history");
  const error = errorBox("history-error");
  page.replaceChildren(
    h("h2", {}, "History"),
    h(
      "p",
      { className: "muted" },
      `kept in ${backend === "git" ? "a git repository in the memory dir" : "the .history/ journal"}`,
    ),
    error,
    entries.length === 0
      ? h("p", { className: "muted", id: "history-empty" }, "No history yet.")
      : h(
          "div",
          {},
          entries.map((entry) =>
            h(
              "div",
              { className: "panel history-entry", "data-id": entry.id },
              h("strong", {}, `${entry.kind}: ${entry.message}`),
              h("span", { className: "muted" }, ` ${entry.id} · ${age(entry.at)}`),
              entry.undoneBy ? h("span", { className: "badge" }, `undone by ${entry.undoneBy}`) : "",
              h(
                "ul",
                {},
                entry.changes.map((change) => h("li", {}, `${MARK[change.change]} ${change.file}`)),
              ),
              entry.undoneBy
                ? ""
                : h(
                    "button",
                    {
                      className: "undo",
                      onclick: async () => {
                        try {
                          await post("history/undo", { id: entry.id });
                          toast(`Undid ${entry.id}`);
                          await historyPage(page);
                        } catch (failure) {
                          showError(error, failure);
                        }
                      },
                    },
                    "Undo",
                  ),
            ),
          ),
        ),
  );
}

// ---- Health ----

function meter(value, limit, label) {
  const bar = h("span");
  // Through the CSSOM: the page's policy refuses inline style attributes.
  bar.style.width = `${Math.min(100, Math.round((value / limit) * 100))}%`;
  return h(
    "div",
    {},
    h("p", {}, `${label}: ${value} of ${limit}`),
    h("div", { className: `meter${value > limit ? " over" : ""}` }, bar),
  );
}

async function healthPage(page) {
  const health = await api("health");
  const fixable = health.issues.filter((issue) => issue.fixable);
  const out = h("div", { id: "fix-result" });
  const issues = h("ul", { id: "issues" });
  const moreIssues = growing(issues, health.issues, (issue) =>
    h(
      "li",
      { "data-code": issue.code },
      h("code", {}, issue.code),
      " ",
      issue.message,
      issue.fixable ? h("span", { className: "badge fixable" }, "safe fix") : "",
    ),
  );
  page.replaceChildren(
    h("h2", {}, "Health"),
    h(
      "div",
      { className: "panel", id: "index-size" },
      h("h3", {}, "MEMORY.md"),
      meter(health.index.lines, health.index.maxLines, "lines"),
      meter(health.index.bytes, health.index.maxBytes, "bytes"),
      health.index.limitsExceeded.length > 0
        ? h("p", { className: "error" }, "Over its limits: new conversations load only the part within them.")
        : "",
    ),
    h("h3", {}, `${health.issues.length} ${health.issues.length === 1 ? "issue" : "issues"}`),
    issues,
    moreIssues,
    fixable.length > 0
      ? h(
          "button",
          {
            id: "fix",
            onclick: async () => {
              const { fixed } = await post("health/fix");
              await healthPage(page);
              document.getElementById("fix-result")?.replaceChildren(
                h(
                  "ul",
                  {},
                  fixed.map((line) => h("li", {}, `fixed: ${line}`)),
                ),
              );
            },
          },
          `Apply the ${fixable.length} safe ${fixable.length === 1 ? "fix" : "fixes"}`,
        )
      : "",
    out,
    health.notes.length > 0 ? h("h3", {}, "Notes") : "",
    h(
      "ul",
      {},
      health.notes.map((note) => h("li", {}, note.message)),
    ),
  );
}

// ---- Shell ----

const PAGES = {
  memories: memoriesPage,
  recall: recallPage,
  inbox: inboxPage,
  history: historyPage,
  health: healthPage,
};

async function show() {
  const name = Object.hasOwn(PAGES, location.hash.slice(1)) ? location.hash.slice(1) : "memories";
  for (const link of document.querySelectorAll("nav a"))
    link.classList.toggle("active", link.dataset.page === name);
  const page = document.getElementById("page");
  page.dataset.page = name;
  delete page.dataset.ready;
  try {
    await PAGES[name](page);
  } catch (error) {
    page.replaceChildren(h("p", { className: "error", role: "alert" }, error.message));
  }
  page.dataset.ready = name;
}

async function start() {
  const { current, dirs } = await api("dirs");
  state.dir = current;
  const picker = document.getElementById("dir-picker");
  picker.replaceChildren(
    ...dirs.map((dir) => h("option", { value: dir.memoryDir, title: dir.memoryDir }, dir.label)),
  );
  picker.value = current;
  picker.addEventListener("change", () => {
    state.dir = picker.value;
    state.memories = { q: "", type: "", source: "", page: 1, selected: null };
    show();
  });
  window.addEventListener("hashchange", show);
  await show();
}

start();
