// Plain selectors for recall/prefetch tests: deterministic, offline, and observable.
import type { Pick, Selector, SelectorOptions } from "../../src/recall/selector.ts";

/** What a recording selector saw on each call. */
export interface SelectorCall {
  query: string;
  files: string[];
  options: SelectorOptions;
}

/**
 * Scores a header by how many whitespace-separated query words its file name or description
 * contains; nothing scores 0 (its floor). Records every call in `calls`.
 */
export function keywordSelector(calls: SelectorCall[] = []): Selector {
  return async (query, headers, options) => {
    calls.push({ query, files: headers.map((h) => h.file), options });
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    const scored: Pick[] = [];
    for (const header of headers) {
      const text = `${header.file} ${header.description ?? ""}`.toLowerCase();
      const matched = words.filter((word) => text.includes(word));
      if (matched.length > 0)
        scored.push({ file: header.file, score: matched.length, reason: `matched ${matched.join(", ")}` });
    }
    scored.sort((a, b) => b.score - a.score || a.file.localeCompare(b.file));
    return scored.slice(0, options.k);
  };
}

/** Answers exactly `files`, in order, whatever the query and `k` (to test what recall does with them). */
export function fixedSelector(files: string[]): Selector {
  return async () => files.map((file, index) => ({ file, score: files.length - index, reason: "fixed" }));
}

/** Never answers until its signal aborts; `seen` receives that signal. */
export function hangingSelector(seen: { signal?: AbortSignal; aborted?: boolean }): Selector {
  return (_query, _headers, options) =>
    new Promise<Pick[]>((_resolve, reject) => {
      seen.signal = options.signal;
      options.signal?.addEventListener("abort", () => {
        seen.aborted = true;
        reject(options.signal?.reason);
      });
    });
}

/** Answers when the test calls `release()`: for "not settled yet" checks without timers. */
export function gatedSelector(inner: Selector): {
  selector: Selector;
  release: () => void;
  started: Promise<void>;
} {
  let release!: () => void;
  let markStarted!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const started = new Promise<void>((resolve) => {
    markStarted = resolve;
  });
  return {
    selector: async (query, headers, options) => {
      markStarted();
      await gate;
      return inner(query, headers, options);
    },
    release: () => release(),
    started,
  };
}
