/**
 * The process-wide memos, in one place: values worked out once per process and the same for
 * every memory dir, every caller and every later call — the process's own start time, ICU's
 * word segmenter, the bundled word vectors, the compiled term bridges, a pattern's global copy.
 * Per-directory state belongs to a `Memdir` (src/memdir/instance.ts), never here. This is the
 * only module that holds a mutable container at module level (test/process-state.test.ts): a memo
 * elsewhere is one of these, under a key of its own.
 *
 * @example
 * const SEGMENTER = Symbol("segmenter");
 * const segmenter = processMemo(SEGMENTER, () => new Intl.Segmenter(undefined, { granularity: "word" }));
 */

const memos = new Map<symbol, unknown>();

/** The value under `key`, made by `make` on the first call of the process (a thrown error is not kept). */
export function processMemo<T>(key: symbol, make: () => T): T {
  if (!memos.has(key)) memos.set(key, make());
  return memos.get(key) as T;
}
