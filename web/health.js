// Health (docs/ui.md#pages): what `memdir doctor` finds, the safe fixes, the index against its
// limits. The findings stream in as each check finishes (`/api/health/stream`): at 20,000
// memories doctor reads every file for most of a minute, and the first checks take milliseconds.
import { apiLines, growing, h, loading, post, showProgress } from "/dom.js";

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

const CHECK_NAMES = {
  index: "MEMORY.md's lines",
  memories: "memory files",
  files: "skipped files",
  "temp-files": "temp files",
};

export async function healthPage(page) {
  const found = [];
  const status = h("section", { id: "health", "data-state": "checking", "data-checks": "" });
  const indexPanel = h("div", { className: "panel", id: "index-size" }, h("h3", {}, "MEMORY.md"));
  const heading = h("h3", { id: "issue-count" }, "Checking…");
  const issues = h("ul", { id: "issues" });
  const checks = h("ul", { id: "checks", className: "muted" });
  const waiting = loading("Checking every memory file…");
  const fixArea = h("div", {});
  const out = h("div", { id: "fix-result" });
  const notesArea = h("div", {});
  status.append(indexPanel, checks, waiting, heading, issues, fixArea, out, notesArea);
  page.replaceChildren(h("h2", {}, "Health"), status);

  const render = (issue) =>
    h(
      "li",
      { "data-code": issue.code },
      h("code", {}, issue.code),
      " ",
      issue.message,
      issue.fixable ? h("span", { className: "badge fixable" }, "safe fix") : "",
    );
  const countText = () => `${found.length} ${found.length === 1 ? "issue" : "issues"}`;

  const controller = new AbortController();
  // The view left behind (another page, a redraw): its stream ends, and the server's checks with it.
  const stillShown = () => {
    if (!page.isConnected) controller.abort();
    return page.isConnected;
  };
  await apiLines(
    "health/stream",
    (line) => {
      if (!stillShown()) return;
      if (line.index) {
        const index = line.index;
        indexPanel.append(
          meter(index.lines, index.maxLines, "lines"),
          meter(index.bytes, index.maxBytes, "bytes"),
          index.limitsExceeded.length > 0
            ? h(
                "p",
                { className: "error" },
                "Over its limits: new conversations load only the part within them.",
              )
            : "",
        );
      } else if (line.progress) {
        showProgress(line.progress);
      } else if (line.check) {
        found.push(...line.issues);
        // A few hundred at a time while the files are read; the whole list, paged, at the end.
        if (found.length - line.issues.length < 200) issues.append(...line.issues.slice(0, 200).map(render));
        heading.textContent = `${countText()} so far`;
        if (line.done >= line.total) {
          status.dataset.checks = `${status.dataset.checks} ${line.check}`.trim();
          checks.append(
            h("li", { "data-check": line.check }, `checked: ${CHECK_NAMES[line.check] ?? line.check}`),
          );
        }
      } else if (line.notes) {
        notesArea.replaceChildren(
          line.notes.length > 0 ? h("h3", {}, "Notes") : "",
          h(
            "ul",
            {},
            line.notes.map((note) => h("li", {}, note.message)),
          ),
        );
      } else if (line.error) {
        status.append(h("p", { className: "error", role: "alert" }, line.error.message));
      } else if (line.done) {
        finish();
      }
    },
    controller.signal,
  );

  function finish() {
    waiting.remove();
    status.dataset.state = "done";
    heading.textContent = countText();
    issues.replaceChildren();
    const more = growing(issues, found, render);
    const fixable = found.filter((issue) => issue.fixable);
    fixArea.replaceChildren(
      more,
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
    );
  }
}
