// The overview (docs/ui.md#pages): how many memories, of which types, saved when, from where,
// and what waits in the inbox.
import { legend, shareBar, stackedBars } from "/charts.js";
import { api, h, link, newestIn, TYPES } from "/dom.js";

export async function overviewPage(page) {
  const answer = await newestIn(page)(() => api("overview"));
  if (answer === undefined) return undefined; // a newer redraw of this page is under way
  const data = answer.value;
  const types = [...TYPES, ...Object.keys(data.byType).filter((t) => !TYPES.includes(t))];
  const periods = data.timeline.periods.map((period) => ({
    label: data.timeline.unit === "month" ? period.start.slice(0, 7) : period.start.slice(5),
    counts: period.counts,
  }));
  const typeParts = types
    .filter((type) => data.byType[type])
    .map((type) => ({ label: type, count: data.byType[type], className: `c-${type}` }));
  const sourceParts = data.sources.map((entry, index) => ({
    label: entry.source ?? "no source",
    count: entry.count,
    className: entry.source === null ? "c-none" : `c-s${index % 7}`,
  }));
  page.replaceChildren(
    h("h2", {}, "Overview"),
    h(
      "div",
      { className: "cards" },
      h(
        "a",
        { className: "card", href: "/", "data-link": true, id: "total" },
        h("strong", {}, String(data.total)),
        " memories",
      ),
      h(
        "a",
        {
          className: `card${data.inbox > 0 ? " attention" : ""}`,
          href: "/inbox",
          "data-link": true,
          id: "inbox-count",
        },
        h("strong", {}, String(data.inbox)),
        data.inbox === 1 ? " proposal waits" : " proposals wait",
      ),
    ),
    h(
      "section",
      { className: "panel", id: "chart-time" },
      h("h3", {}, `Memories saved per ${data.timeline.unit}, by type`),
      data.total === 0
        ? h("p", { className: "muted" }, "No memories yet.")
        : stackedBars(periods, types, { title: "memories saved over time by type" }),
      legend(typeParts),
    ),
    h(
      "section",
      { className: "panel", id: "chart-sources" },
      h("h3", {}, "Where they came from"),
      h(
        "p",
        { className: "muted" },
        "The provenance ",
        h("code", {}, "source:"),
        " each memory was saved with.",
      ),
      shareBar(sourceParts, { title: "the mix of sources" }),
    ),
    h(
      "section",
      { className: "panel", id: "recall-activity" },
      h("h3", {}, "Recall activity"),
      h(
        "p",
        { className: "muted" },
        "Not shown: a recall reads memories and writes nothing down, so there is no record of recalls to draw. Try one on the ",
        link("/recall", {}, "recall page"),
        ".",
      ),
    ),
  );
  return { refresh: () => overviewPage(page) };
}
