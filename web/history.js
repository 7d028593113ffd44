// The history as a timeline (docs/ui.md#pages): every recorded change, newest first, the memories
// it touched with who saved them where known, and Undo (as `memdir undo <id>`).
import { api, chip, errorBox, h, link, memoryHref, newestIn, post, showError, toast, when } from "/dom.js";

const MARK = { added: "+", modified: "~", deleted: "-" };

export async function historyPage(page) {
  const answer = await newestIn(page)(() => api("history"));
  if (answer === undefined) return undefined; // a newer redraw of this page is under way
  const { backend, entries, provenance } = answer.value;
  const error = errorBox("history-error");
  let day = "";
  const items = [];
  for (const entry of entries) {
    const date = new Date(entry.at).toLocaleDateString(undefined, {
      weekday: "short",
      year: "numeric",
      month: "short",
      day: "numeric",
    });
    if (date !== day) {
      day = date;
      items.push(h("li", { className: "day" }, h("h3", {}, date)));
    }
    items.push(entryItem(entry));
  }
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
      : h("ol", { className: "timeline" }, items),
  );
  return { refresh: () => historyPage(page) };

  function entryItem(entry) {
    return h(
      "li",
      { className: "history-entry", "data-id": entry.id },
      h("span", { className: `dot k-${entry.kind}`, "aria-hidden": "true" }),
      h(
        "div",
        { className: "entry" },
        h("p", { className: "entry-head" }, h("strong", {}, `${entry.kind}: ${entry.message}`)),
        h(
          "p",
          { className: "muted" },
          when(entry.at),
          ` · ${entry.id}`,
          entry.command ? ` · ${entry.command}` : "",
        ),
        entry.undoneBy ? chip(`undone by ${entry.undoneBy}`) : "",
        h(
          "ul",
          { className: "plain changes" },
          entry.changes.map((change) => {
            const who = provenance[change.file];
            return h(
              "li",
              {},
              `${MARK[change.change]} `,
              change.change !== "deleted" && who
                ? link(memoryHref(change.file), {}, change.file)
                : change.file,
              who?.source ? chip(`source: ${who.source}`, "source") : null,
              who?.session ? chip(`session: ${who.session}`, "session") : null,
            );
          }),
        ),
        entry.undoneBy
          ? ""
          : h(
              "button",
              {
                type: "button",
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
    );
  }
}
