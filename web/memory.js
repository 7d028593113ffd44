// One memory's own page, `/memory/<file>` (docs/ui.md#pages): its text, links and backlinks,
// anchors, provenance and history, with Edit and Delete.
import {
  ApiError,
  api,
  chip,
  errorBox,
  flagBadges,
  h,
  link,
  memoryTitle,
  newestOnly,
  post,
  select,
  showError,
  TYPES,
  toast,
  when,
} from "/dom.js";

const MARK = { added: "added", modified: "changed", deleted: "deleted" };

export async function memoryPage(page, file) {
  let editing = false;
  // A refresh from the live stream can overlap the first render: only the newest draws.
  const newest = newestOnly();
  await render();
  // A change on disk redraws the page, unless an edit is open (its save then answers 409).
  return {
    refresh: (changes) => (!editing && changes.some((change) => change.file === file) ? render() : undefined),
  };

  async function render() {
    let fetched;
    try {
      fetched = await newest(async () => [await api("memory", { file }), await api("history", { file })]);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) {
        page.replaceChildren(
          h("h2", {}, file),
          h(
            "p",
            { id: "memory-missing" },
            "This memory does not exist (any more). ",
            link("/", {}, "All memories"),
          ),
        );
        return;
      }
      throw error;
    }
    if (fetched === undefined) return;
    const [memory, { entries, provenance }] = fetched.value;
    const body = h("div", { className: "markdown", id: "memory-body" });
    body.innerHTML = memory.html; // escaped and rendered by the server (src/ui/markdown.ts)
    page.replaceChildren(
      h("p", { className: "crumbs" }, link("/", {}, "‹ Memories")),
      h("h2", { id: "memory-title" }, memory.description ?? memory.file),
      h("p", { className: "file", id: "memory-file" }, memory.file),
      h(
        "p",
        { className: "meta", id: "memory-meta" },
        chip(memory.type ?? "no type", `type t-${memory.type ?? "none"}`),
        memory.source ? chip(`source: ${memory.source}`, "source") : null,
        memory.session ? chip(`session: ${memory.session}`, "session") : null,
        memory.modified ? h("span", { className: "muted" }, "saved ", when(memory.modified)) : null,
        flagBadges(memory.flags),
      ),
      h("article", { className: "panel" }, body),
      memory.issues.length > 0 ? h("p", { className: "error" }, memory.issues.join("\n")) : "",
      h(
        "div",
        { className: "actions" },
        h("button", { type: "button", id: "edit", onclick: () => editMemory(memory) }, "Edit"),
        h(
          "button",
          { type: "button", id: "delete", className: "danger", onclick: () => deleteMemory() },
          "Delete",
        ),
      ),
      h(
        "div",
        { className: "facts" },
        section(
          "Links",
          "links",
          memory.links.map((entry) =>
            entry.file
              ? h("li", {}, memoryTitle(entry.file, entry.description))
              : h(
                  "li",
                  {},
                  h("code", {}, `[[${entry.name}]]`),
                  h("span", { className: "muted" }, " not written yet"),
                ),
          ),
          "No [[links]] in this memory.",
        ),
        section(
          "Backlinks",
          "backlinks",
          memory.backlinks.map((entry) => h("li", {}, memoryTitle(entry.file, entry.description))),
          "No memory links here.",
        ),
        section(
          "Anchors",
          "anchors",
          memory.anchors.map((anchor) =>
            h("li", {}, h("code", {}, anchor.symbol ? `${anchor.path}#${anchor.symbol}` : anchor.path)),
          ),
          "Not anchored to project files.",
        ),
        h(
          "section",
          { className: "panel" },
          h("h3", {}, "In MEMORY.md"),
          h("p", { className: "index-line", id: "index-line" }, memory.indexLine ?? "(no line in MEMORY.md)"),
        ),
      ),
      h("h3", {}, "History"),
      entries.length === 0
        ? h("p", { className: "muted", id: "memory-history" }, "No recorded change touched this memory.")
        : h(
            "ol",
            { className: "timeline", id: "memory-history" },
            entries.map((entry) => {
              const change = entry.changes.find((c) => c.file === file);
              return h(
                "li",
                { "data-id": entry.id },
                h("span", { className: `dot k-${entry.kind}`, "aria-hidden": "true" }),
                h("strong", {}, `${MARK[change?.change] ?? ""} · ${entry.kind}`),
                " ",
                entry.message,
                " ",
                h("span", { className: "muted" }, when(entry.at)),
                entry.undoneBy ? chip(`undone by ${entry.undoneBy}`) : null,
              );
            }),
          ),
      provenance[file]?.source
        ? h(
            "p",
            { className: "muted" },
            `Saved by ${provenance[file].source}${provenance[file].session ? ` in session ${provenance[file].session}` : ""}.`,
          )
        : "",
    );
  }

  function section(title, id, items, empty) {
    return h(
      "section",
      { className: "panel" },
      h("h3", {}, title),
      items.length === 0
        ? h("p", { className: "muted", id }, empty)
        : h("ul", { className: "plain", id }, items),
    );
  }

  function editMemory(memory) {
    editing = true;
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
    const stop = () => {
      editing = false;
      return render();
    };
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
            await stop();
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
        h("button", { type: "button", id: "cancel", onclick: () => stop() }, "Cancel"),
      ),
    );
    page.replaceChildren(form);
    description.focus();

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
            h("button", { type: "button", id: "take-disk", onclick: () => stop() }, "Take the disk's"),
          ),
        ),
      );
    }
  }

  async function deleteMemory() {
    try {
      const removed = await post("memory/delete", { file });
      const undo = removed.historyId
        ? h(
            "button",
            {
              type: "button",
              id: "undo-delete",
              onclick: async () => {
                try {
                  await post("history/undo", { id: removed.historyId });
                  document.getElementById("toast").hidden = true;
                  await render();
                } catch (error) {
                  toast(`Undo failed: ${error.message}`);
                }
              },
            },
            "Undo",
          )
        : null;
      await render();
      toast(`Deleted ${file}.`, undo);
    } catch (error) {
      toast(`Delete failed: ${error.message}`);
    }
  }
}
