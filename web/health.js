// Health (docs/ui.md#pages): what `memdir doctor` finds, the safe fixes, the index against its limits.
import { api, growing, h, post } from "/dom.js";

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

export async function healthPage(page) {
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
