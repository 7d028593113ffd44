// The inbox (docs/ui.md#pages): proposals waiting for review, each change with its line diff.
import { age, api, errorBox, flagBadges, h, newestIn, post, showError, toast } from "/dom.js";

export async function inboxPage(page) {
  const answer = await newestIn(page)(() => api("inbox"));
  if (answer === undefined) return undefined; // a newer redraw of this page is under way
  const { proposals } = answer.value;
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
  // Redrawn when a proposal arrives or goes; an open "Edit and accept" is lost then.
  return { refresh: (changes) => (changes.some((change) => change.inbox) ? inboxPage(page) : undefined) };
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
