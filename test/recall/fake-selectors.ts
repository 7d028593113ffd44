// Plain selectors for recall/prefetch tests: deterministic, offline, and observable.
import type { MemoryPick, SelectionRequest, Selector } from "../../src/recall/selector.ts";

/** What a recording selector saw on each call. */
export interface SelectorCall {
  query: string;
  files: string[];
  request: SelectionRequest;
}

/**
 * Scores a header by how many whitespace-separated query words its file name or description
 * contains; nothing scores 0 (its floor). Records every call in `calls`. Asked to explain, it
 * returns its full ranking too, as the lexical selector does.
 */
export function keywordSelector(calls: SelectorCall[] = [], name = "keyword"): Selector {
  return {
    name,
    async select(request) {
      calls.push({ query: request.query, files: request.headers.map((h) => h.file), request });
      const words = request.query.toLowerCase().split(/\s+/).filter(Boolean);
      const scored: MemoryPick[] = [];
      for (const header of request.headers) {
        const text = `${header.file} ${header.description ?? ""}`.toLowerCase();
        const matched = words.filter((word) => text.includes(word));
        if (matched.length > 0)
          scored.push({ file: header.file, score: matched.length, reason: `matched ${matched.join(", ")}` });
      }
      scored.sort((a, b) => b.score - a.score || a.file.localeCompare(b.file));
      const picks = scored.slice(0, request.k);
      return request.explain ? { picks, ranking: scored } : { picks };
    },
  };
}

/** Answers exactly `files`, in order, whatever the query and `k` (to test what recall does with them). */
export function fixedSelector(files: string[], name = "fixed"): Selector {
  return {
    name,
    async select() {
      return { picks: files.map((file, index) => ({ file, score: files.length - index, reason: "fixed" })) };
    },
  };
}

/** A selector that answers when the test says so (see {@link deferredSelector}). */
export interface DeferredSelector {
  selector: Selector;
  /** Resolves with the request and signal of the first call, once the selector has been called. */
  started: Promise<{ request: SelectionRequest; signal?: AbortSignal }>;
  /** Lets the waiting call answer with `inner`'s selection. */
  release: () => void;
  /** True once the signal of a waiting call aborted (the call then rejected with its reason). */
  readonly aborted: boolean;
}

/**
 * Waits until the test calls `release()`, then answers with `inner`'s selection: "not settled
 * yet" and "settled" become steps the test takes, with no timers or polling. Unless
 * `ignoreAbort`, an abort of the call's signal rejects it with the signal's reason; with
 * `ignoreAbort` it hangs on (a selector that does not honour its signal).
 */
export function deferredSelector(
  inner: Selector = fixedSelector([]),
  options: { ignoreAbort?: boolean } = {},
): DeferredSelector {
  let release!: () => void;
  let markStarted!: (call: { request: SelectionRequest; signal?: AbortSignal }) => void;
  let aborted = false;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const started = new Promise<{ request: SelectionRequest; signal?: AbortSignal }>((resolve) => {
    markStarted = resolve;
  });
  const selector: Selector = {
    name: inner.name,
    async select(request, signal) {
      markStarted({ request, signal });
      if (!options.ignoreAbort) {
        await new Promise<void>((resolve, reject) => {
          const onAbort = () => {
            aborted = true;
            reject(signal?.reason);
          };
          if (signal?.aborted) return onAbort();
          signal?.addEventListener("abort", onAbort, { once: true });
          gate.then(() => {
            signal?.removeEventListener("abort", onAbort);
            resolve();
          });
        });
      } else await gate;
      return inner.select(request, signal);
    },
  };
  return {
    selector,
    started,
    release: () => release(),
    get aborted() {
      return aborted;
    },
  };
}
