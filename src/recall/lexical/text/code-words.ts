import { termOfWord } from "./tokenize.ts";

/**
 * Words that are everywhere in code and its paths — folders every project has (`src`, `lib`,
 * `test`), file extensions (`ts`, `py`, `json`) — and so say nothing about which memory a prompt
 * means, however few memories a small directory holds (docs/design.md#code-common-words).
 *
 * In a directory of 20 memories, document frequency is noise: a path in the prompt
 * (`src/http/client.ts`) makes `src` and `ts` rare words there when two memories happen to name
 * a file, and they outranked the word that carried the request. So these words get a prior: they
 * are counted as present in at least half the memories (what they are in a large project's notes,
 * and a little less than in its file list), which puts their IDF at about ln 2 ≈ 0.69 whatever
 * the directory's size, next to ~2.5 for a word one memory of 20 has. Not a fitted constant:
 * "as common as a coin flip" is the prior, and a directory where one of them is rarer than that
 * never raises it.
 */
const CODE_COMMON_WORDS =
  // folders and file names every project has
  "src lib libs dist out build bin docs doc scripts script app apps " +
  "pkg packages internal cmd util utils helpers common core index main mod " +
  // file extensions
  "ts tsx js jsx mjs cjs mts cts d py pyi go rs java kt rb php cs cpp cc c h hpp swift scala sh bash " +
  "md mdx txt json jsonc yaml yml toml ini cfg conf env lock xml html htm css scss sql csv log";

/** The search terms of {@link CODE_COMMON_WORDS}, as the tokenizer makes them. */
const CODE_COMMON_TERMS: ReadonlySet<string> = new Set(
  CODE_COMMON_WORDS.split(" ").flatMap((word) => termOfWord(word) ?? []),
);

/**
 * A path or file name: ASCII letters, digits and `_~-` around a `/`, `.` or `\\` (`src/http/client.ts`,
 * `client.ts`); ASCII only, so a path written against Chinese text (`修复src/a.ts的`) ends where it does.
 */
const PATH_LIKE = /[a-z0-9_~-]*[a-z0-9_~-][/.\\][a-z0-9_~-][a-z0-9_~./\\-]*/g;
const WORD_SEPARATOR = /[^\p{L}\p{N}]+/u;

/**
 * The search terms `query` writes only inside paths and file names, not also as words of its own
 * ("fix the failing test in src/cart/total.test.ts" says `test` itself). A path names a file the
 * same way in every language, so these words match exactly: the term bridges do not start from
 * them (`src/auth/login.ts` is not a question about authentication), and the code-common ones
 * among them weigh by a prior ({@link pathFragmentTerms}). Empty for a query without a path (one
 * regex test).
 */
export function pathOnlyTerms(query: string): ReadonlySet<string> {
  const lower = query.toLowerCase();
  const found = new Set<string>();
  for (const [word] of lower.matchAll(PATH_LIKE)) {
    for (const part of word.split(WORD_SEPARATOR)) {
      const term = termOfWord(part);
      if (term !== undefined) found.add(term);
    }
  }
  if (found.size === 0) return found;
  for (const part of lower.replace(PATH_LIKE, " ").split(WORD_SEPARATOR)) {
    const term = termOfWord(part);
    if (term !== undefined) found.delete(term);
  }
  return found;
}

/**
 * The code-common words (as search terms) among `pathOnly` ({@link pathOnlyTerms}): in "fix
 * src/auth/login.ts" the word that carries the request is `login`, not `src` or `ts`.
 */
export function pathFragmentTerms(pathOnly: ReadonlySet<string>): ReadonlySet<string> {
  const found = new Set<string>();
  for (const term of pathOnly) if (CODE_COMMON_TERMS.has(term)) found.add(term);
  return found;
}

/**
 * The document frequency to weigh a query term by: its count in the directory, raised to half the
 * directory's size when it is one of `pathTerms` ({@link pathFragmentTerms}; never lowered).
 */
export function priorDocumentFrequency(
  term: string,
  pathTerms: ReadonlySet<string>,
  documentCount: number,
  frequency: number,
): number {
  return pathTerms.has(term) ? Math.max(frequency, documentCount / 2) : frequency;
}
