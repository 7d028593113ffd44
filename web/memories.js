// The memories page (docs/ui.md#pages): search, filters, one page of memories with readable titles.
import {
  age,
  api,
  chip,
  flagBadges,
  h,
  loading,
  memoryTitle,
  newestOnly,
  SOURCES,
  select,
  state,
  TYPES,
} from "/dom.js";

const PERIODS = [
  ["", "any time"],
  ["1", "last day"],
  ["7", "last week"],
  ["30", "last month"],
  ["365", "last year"],
];

export async function memoriesPage(page) {
  const view = state.memories;
  const list = h("div", { id: "memory-list" });
  const newest = newestOnly();
  let timer;
  const later = (apply) => () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      apply();
      view.page = 1;
      loadList();
    }, 250);
  };
  const search = h("input", {
    type: "search",
    id: "search",
    placeholder: "search memories",
    value: view.q,
    "aria-label": "search",
  });
  search.addEventListener(
    "input",
    later(() => {
      view.q = search.value;
    }),
  );
  const anchor = h("input", {
    type: "search",
    id: "filter-anchor",
    placeholder: "anchored file",
    value: view.anchor,
    "aria-label": "anchored file",
  });
  anchor.addEventListener(
    "input",
    later(() => {
      view.anchor = anchor.value.trim();
    }),
  );
  const now = (key) => (e) => {
    view[key] = e.target.value;
    view.page = 1;
    loadList();
  };
  const count = h("p", { id: "memory-count", className: "muted", "aria-live": "polite" });
  page.replaceChildren(
    h("h2", {}, "Memories"),
    h(
      "div",
      { className: "toolbar filters" },
      search,
      select("filter-type", "type", [["", "all types"], ...TYPES.map((t) => [t, t])], view.type, now("type")),
      select(
        "filter-source",
        "source",
        [["", "all sources"], ...SOURCES.map((s) => [s, s]), ["none", "no source"]],
        view.source,
        now("source"),
      ),
      select("filter-date", "saved", PERIODS, view.since, now("since")),
      anchor,
    ),
    count,
    list,
  );

  async function loadList() {
    const params = { page: String(view.page) };
    if (view.q.trim()) params.q = view.q;
    if (view.type) params.type = view.type;
    if (view.source) params.source = view.source;
    if (view.anchor) params.anchor = view.anchor;
    if (view.since) params.since = new Date(Date.now() - Number(view.since) * 86_400_000).toISOString();
    // Kept on screen until the answer comes: the first list of a large dir may wait for the
    // server's scan, whose progress fills the bar (docs/ui.md#at-20000-memories).
    if (!list.querySelector(".memories")) list.replaceChildren(loading("Loading memories…"));
    let answer;
    try {
      answer = await newest(() => api("memories", params));
    } catch (error) {
      list.replaceChildren(h("p", { className: "error", role: "alert" }, error.message));
      return;
    }
    if (answer === undefined) return;
    const result = answer.value;
    const pages = Math.max(1, Math.ceil(result.total / result.pageSize));
    count.textContent = `${result.total} ${result.total === 1 ? "memory" : "memories"}${view.q.trim() ? " match" : ""}`;
    list.replaceChildren(
      result.total === 0
        ? h("p", { className: "muted", id: "no-memories" }, "No memories match.")
        : h("ul", { className: "memories" }, result.items.map(row)),
      pages > 1
        ? h(
            "nav",
            { className: "pager", "aria-label": "pages" },
            h(
              "button",
              { type: "button", id: "prev-page", disabled: view.page <= 1, onclick: () => turn(-1) },
              "‹ newer",
            ),
            h("span", { id: "page-number" }, `page ${view.page} of ${pages}`),
            h(
              "button",
              { type: "button", id: "next-page", disabled: view.page >= pages, onclick: () => turn(1) },
              "older ›",
            ),
          )
        : h("span", { id: "page-number", hidden: true }, "page 1 of 1"),
    );
  }

  function turn(step) {
    view.page += step;
    loadList();
  }

  await loadList();
  return { refresh: () => loadList() };
}

function row(item) {
  return h(
    "li",
    { className: "memory-row", "data-file": item.file, "data-type": item.type ?? "" },
    memoryTitle(item.file, item.description),
    h(
      "div",
      { className: "meta" },
      chip(item.type ?? "no type", `type t-${item.type ?? "none"}`),
      item.source ? chip(item.source, "source") : null,
      flagBadges(item.flags),
      item.anchors.length > 0
        ? h(
            "span",
            { className: "muted anchors", title: item.anchors.join("\n") },
            `⚓ ${item.anchors[0]}${item.anchors.length > 1 ? ` +${item.anchors.length - 1}` : ""}`,
          )
        : null,
      h(
        "time",
        { datetime: item.savedAt, title: new Date(item.savedAt).toLocaleString(), className: "age" },
        age(item.savedAt),
      ),
    ),
  );
}
