// The recall page (docs/ui.md#pages): what `memdir recall --explain` says for a prompt, each
// candidate's score drawn as a bar beside its verdict.
import { api, errorBox, growing, h, memoryTitle, newestOnly, showError } from "/dom.js";

export async function recallPage(page) {
  const query = h("textarea", {
    id: "recall-query",
    rows: "3",
    placeholder: "a prompt, as the user would type it",
    "aria-label": "prompt",
  });
  const k = h("input", { type: "number", id: "recall-k", min: "1", value: "5", "aria-label": "k" });
  const out = h("div", { id: "recall-result" });
  const error = errorBox("recall-error");
  const newest = newestOnly();
  const form = h(
    "form",
    {
      onsubmit: async (event) => {
        event.preventDefault();
        error.textContent = "";
        try {
          const answer = await newest(() => api("recall", { q: query.value, k: k.value || "5" }));
          if (answer !== undefined) showRecall(out, answer.value);
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
  const candidates = h("ol", { id: "candidates", className: "candidates" });
  const best = Math.max(0, ...result.candidates.map((c) => c.score ?? 0)) || 1;
  const more = growing(candidates, result.candidates, (candidate) => {
    const bar = h("span", { className: "fill" });
    // Through the CSSOM: the page's policy refuses inline style attributes.
    bar.style.width = `${candidate.score === null ? 0 : Math.max(1, Math.round((candidate.score / best) * 100))}%`;
    return h(
      "li",
      { className: "candidate", "data-status": candidate.status, "data-file": candidate.file },
      h(
        "div",
        { className: "candidate-head" },
        h("span", { className: `badge status s-${candidate.status}` }, candidate.status),
        memoryTitle(candidate.file, candidate.description),
      ),
      h(
        "div",
        { className: "score" },
        h("span", { className: "bar", role: "img", "aria-label": `score ${candidate.score ?? "none"}` }, bar),
        h("span", { className: "score-value" }, candidate.score === null ? "-" : candidate.score.toFixed(3)),
      ),
      h("p", { className: "reason" }, candidate.reason),
    );
  });
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
    candidates,
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
