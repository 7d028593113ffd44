import { isMemdirError } from "../errors.ts";
import { INDEX_FILE } from "../memdir/format/index-file.ts";
import { readMemoryCapped } from "../memdir/fs/read.ts";
import { type Memdir, memdirFor } from "../memdir/instance.ts";
import { scanHeaders } from "../memdir/scan/scan.ts";
import type { WriteOrigin } from "../memdir/trust/provenance.ts";
import { checkSaveInput, removeMemory, saveMemory } from "../memdir/write/write.ts";
import { tokenize } from "../recall/lexical/text/tokenize.ts";
import { createLexicalSelector } from "../recall/select-lexical.ts";
import type { ChangeRecorder, MemoryType, RecordedChange } from "../types.ts";
import { cleanStatement, parseExplicitMemory } from "./explicit-intent.ts";
import { THING_ABOUT } from "./forget-intent.ts";
import { classifyStatement, describeStatement } from "./statement-type.ts";

export type ExplicitMemoryResult =
  | { action: "none" }
  | {
      action: "saved";
      file: string;
      path: string;
      type: MemoryType;
      description: string;
      created: boolean;
      /** Set when the statement holds instruction-like text (saved anyway: the user asked, docs/design.md#quarantine). */
      warning?: string;
    }
  | { action: "removed"; file: string; path: string; description: string | null }
  | { action: "not-found"; query: string }
  /** The request names several memories equally (docs/design.md#explicit-remember): none is removed. */
  | { action: "ambiguous"; query: string; files: string[] }
  | { action: "refused"; reason: string };

/** Options for applying explicit memory instructions. */
export interface ExplicitMemoryOptions {
  memoryDir: string;
  /** The instance whose header cache the duplicate check scans with (default: a private one). */
  memdir?: Memdir;
  /** Overrides the guessed type. */
  type?: MemoryType;
  /** Clock for the note in the body. */
  now?: () => number;
  /** Who is saving (default `user`: the user's own "remember …"). */
  origin?: WriteOrigin;
  /**
   * Records each save or removal as one history entry, so `memdir undo` right after it takes back
   * exactly that change (docs/design.md#undo). Every entry point passes one (`changeRecorder` of
   * src/dream/history.ts); without it the change is made unrecorded (an embedder's loop that
   * keeps no history).
   */
  record?: ChangeRecorder;
}

/** Runs `write` through the recorder when there is one. */
function recorded<T>(
  options: ExplicitMemoryOptions,
  change: RecordedChange<T>,
  write: () => Promise<T>,
): Promise<T> {
  return options.record ? options.record(options.memoryDir, change, write) : write();
}

/** Whether two descriptions say the same thing (case, spacing and end punctuation aside). */
function sameStatement(a: string, b: string): boolean {
  // Sentence punctuation aside ("use pnpm, not npm" is "use pnpm not npm"), but not the
  // symbols that name things: "use C#" and "use C++" are not "use C".
  const normalize = (text: string) =>
    text
      .normalize("NFKC")
      .toLowerCase()
      .replace(/[,;:!?"“”‘’'、，；：！？]/gu, " ")
      .replace(/\s+/g, " ")
      .replace(/[\s.。!！]+$/u, "")
      .trim();
  return normalize(a) === normalize(b);
}

/** A remember request word alone: `remember:`, `please remember`, `记住：`, `覚えて`. */
const BARE_REQUEST = /^(?:please\s+)?(?:remember|记住|記住|覚えて(?:おいて)?)\s*[:：,，]?$/iu;

/** Saves one statement as a memory through the single writer (an identical one is updated). */
export async function rememberStatement(
  statement: string,
  options: ExplicitMemoryOptions,
): Promise<Extract<ExplicitMemoryResult, { action: "saved" | "refused" }>> {
  const parsed = parseExplicitMemory(statement);
  const text = parsed?.kind === "remember" ? parsed.statement : cleanStatement(statement);
  // "remember:" with nothing after it is the request without its statement, not a statement.
  if (text === "" || BARE_REQUEST.test(text))
    return { action: "refused", reason: "memdir: remember: nothing to remember" };
  const type = options.type ?? (parsed?.kind === "remember" ? parsed.type : classifyStatement(text));
  const description = describeStatement(text);
  try {
    // Saying the same thing twice updates that memory instead of adding a duplicate.
    const same = (await scanHeaders(options.memoryDir, { memdir: options.memdir })).find(
      (header) => header.description !== null && sameStatement(header.description, description),
    );
    const input = { file: same?.file, type, description, body: text };
    // A refused statement (a credential) leaves the memory dir as it was: no history is begun for it.
    checkSaveInput(input);
    const saved = await recorded(
      options,
      {
        kind: "remember",
        message: (result) =>
          result ? `${result.created ? "remembered" : "updated"} ${result.file}` : "remember",
        files: [...(same ? [same.file] : []), INDEX_FILE],
        madeFiles: (result) => [result.file],
      },
      () => saveMemory(options.memoryDir, input, { origin: options.origin ?? { source: "user" } }),
    );
    return {
      action: "saved",
      file: saved.file,
      path: saved.path,
      type,
      description,
      created: saved.created,
      ...(saved.warning ? { warning: saved.warning } : {}),
    };
  } catch (error) {
    if (isMemdirError(error)) return { action: "refused", reason: error.message };
    throw error;
  }
}

/**
 * The words of a forget request that only say it is one ("the memory about", "what I said", "the
 * thing about", "那条", "的记忆"): they name no memory, so they count neither for nor against one.
 */
const FORGET_FRAMING = new RegExp(
  String.raw`\b(?:memory|memories|notes?|rules?|preferences?|instructions?|reminders?|said|told|tell|wrote|written|mentioned|remembered|saved|know|knew|everything|anything)\b|记忆|記憶|[那这這][条條句]|之前|以前|刚才|剛才|[说說][过過的]|关于|關於|的事|规则|規則|メモ|ルール|決まり|のこと|${THING_ABOUT}`,
  "giu",
);

/** At least this share of the request's own words must be the memory's words (docs/design.md#explicit-remember). */
const FORGET_MIN_SHARE = 0.5;

/** A forget request's own words: its terms, framing words aside. */
function ownWords(query: string): Set<string> {
  return new Set(tokenize(query.replace(FORGET_FRAMING, " ")));
}

/** Which of `wanted` (a request's own words) `memoryText` has. */
function wordsIn(wanted: ReadonlySet<string>, memoryText: string): Set<string> {
  const has = new Set(tokenize(memoryText));
  return new Set([...wanted].filter((term) => has.has(term)));
}

/** A memory a forget request names, as {@link findMemoryToForget} returns it. */
export interface MemoryToForget {
  file: string;
  path: string;
  description: string | null;
  /**
   * Other memories the request names as well as this one: they hold every one of its words this one
   * holds. Set only when there are some; a forget then removes none of them and says which match
   * (`memdir forget use` matched "Use pnpm" and "use docker postgres" alike, and removed the first).
   */
  alsoMatching?: string[];
}

/**
 * Finds the memory that `query` names, or null when none clearly does. The lexical ranker orders
 * the candidates; the first of its top picks that holds at least half of the query's own words
 * (in its name, description or body) is the one. Related words and word vectors rank, but never
 * delete alone: "forget about the kubernetes cluster" must not remove the docker-compose memory
 * (docs/design.md#explicit-remember).
 */
export async function findMemoryToForget(
  query: string,
  memoryDir: string,
  memdir?: Memdir,
): Promise<MemoryToForget | null> {
  // A request of framing words alone ("forget that note") names no memory: nothing to look up.
  const wanted = ownWords(query);
  if (wanted.size === 0) return null;
  const headers = await scanHeaders(memoryDir, { memdir });
  if (headers.length === 0) return null;
  const selector = createLexicalSelector();
  // With the instance when it is this directory's: its warm lexical index, not a second one built here.
  const instance = memdirFor(memdir, memoryDir);
  const { picks } = await selector.select({
    query,
    headers,
    k: FORGET_CANDIDATES,
    memoryDir,
    ...(instance ? { memdir: instance } : {}),
  });
  let found: MemoryToForget | null = null;
  let foundWords = new Set<string>();
  const alsoMatching: string[] = [];
  for (const pick of picks) {
    const header = headers.find((h) => h.file === pick.file);
    if (!header) continue;
    const body = await readMemoryCapped(header.path, { memoryDir }).then(
      (read) => read.content,
      () => "",
    );
    const text = [header.file.replace(/\.md$/, ""), header.name ?? "", header.description ?? "", body].join(
      "\n",
    );
    const words = wordsIn(wanted, text);
    if (words.size / wanted.size < FORGET_MIN_SHARE) continue;
    if (found === null) {
      found = { file: header.file, path: header.path, description: header.description };
      foundWords = words;
    } else if ([...foundWords].every((word) => words.has(word))) alsoMatching.push(header.file);
  }
  if (found === null) return null;
  return alsoMatching.length > 0 ? { ...found, alsoMatching } : found;
}

/** How many of the ranker's picks are checked for the query's own words. */
const FORGET_CANDIDATES = 5;

/**
 * Applies the explicit-memory rule to one user message: "remember …" saves at once,
 * "forget …" removes the best match. Never throws for expected failures.
 */
export async function applyExplicitMemory(
  userText: string,
  options: ExplicitMemoryOptions,
): Promise<ExplicitMemoryResult> {
  const intent = parseExplicitMemory(userText);
  if (!intent) return { action: "none" };
  if (intent.kind === "remember") return rememberStatement(userText, options);
  const match = await findMemoryToForget(intent.query, options.memoryDir, options.memdir);
  if (!match) return { action: "not-found", query: intent.query };
  if (match.alsoMatching)
    return { action: "ambiguous", query: intent.query, files: [match.file, ...match.alsoMatching] };
  try {
    await recorded(
      options,
      { kind: "forget", message: () => `forgot ${match.file}`, files: [match.file, INDEX_FILE] },
      () => removeMemory(options.memoryDir, match.file),
    );
    return { action: "removed", ...match };
  } catch (error) {
    if (isMemdirError(error)) return { action: "refused", reason: error.message };
    throw error;
  }
}

/** The user-facing line for an explicit-memory result, or null when there is nothing to say. */
export function explicitMemoryNotice(result: ExplicitMemoryResult): string | null {
  switch (result.action) {
    case "saved":
      return `${result.created ? "Saved" : "Updated"} ${result.type} memory ${result.file}: ${result.description}`;
    case "removed":
      return `Forgot ${result.file}${result.description ? `: ${result.description}` : ""}`;
    case "not-found":
      return `No memory matches ${JSON.stringify(result.query)}; nothing forgotten`;
    case "ambiguous":
      return `${result.files.length} memories match ${JSON.stringify(result.query)} equally (${result.files.join(", ")}); nothing forgotten: ask the user which one`;
    case "refused":
      return `Not saved: ${result.reason}`;
    default:
      return null;
  }
}
