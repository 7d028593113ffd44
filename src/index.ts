/**
 * memdir — long-term memory for LLM agents. The root export is the everyday surface, kept to at
 * most 40 names on purpose (test/entry-exports.test.ts pins every entry's list): locating the
 * memory directory, saving / removing / reading memories, scanning their headers, recall and its
 * selectors, the agent session, errors and the core types. Importing it loads no model SDK and
 * no MCP SDK (test/entry-loading.test.ts). Everything else lives under a subpath, each a named
 * re-export list in `src/entry/`:
 *
 * - `memdir/format` — the on-disk format, limits, safe paths, secrets, repair, migration
 * - `memdir/recall` — selection, prefetch, surfacing, lexical tuning, eval
 * - `memdir/model` — model clients and side queries
 * - `memdir/config` — options, environment and settings resolved
 * - `memdir/agent` — the reference agent loop, tools, permissions, hooks, session context
 * - `memdir/extract` — "remember …" and background extraction
 * - `memdir/dream` — consolidation, proposals, history and undo
 * - `memdir/mcp` — the MCP server
 * - `memdir/testing` — the fake model server for tests
 *
 * This file is the one module of the root besides the classes it must share with the library
 * (`MemdirError`, `Memdir`) and the constants it exports: its functions below load their
 * implementation on the first call, so `import("memdir")` costs about as much as importing an
 * empty file (docs/design.md#lazy-entry).
 *
 * @example
 * import { resolveMemoryLocation, saveMemory, recall, createLexicalSelector } from "memdir";
 * const { memoryDir } = await resolveMemoryLocation({ cwd: process.cwd() });
 * await saveMemory(memoryDir, { type: "feedback", description: "use pnpm, not npm", body: "Why: the lockfile is pnpm's." });
 * const result = await recall({ memoryDir, query: "how do I install deps?", selector: createLexicalSelector() });
 */

import type { CappedRead } from "./memdir/fs/read.ts";
import { type Memdir, type MemdirOptions, openMemdir as openMemdirWith } from "./memdir/instance.ts";
import type { MemoryLocation, MemoryLocationOptions } from "./memdir/location/paths.ts";
import type { ScanOptions } from "./memdir/scan/scan.ts";
import type { SaveMemoryInput, SaveMemoryResult, WriteOptions } from "./memdir/write/write.ts";
import type { RecallOptions, RecallResult } from "./recall/recall.ts";
import type { HybridSelectorOptions } from "./recall/select-hybrid.ts";
import type { LexicalSelectorOptions } from "./recall/select-lexical.ts";
import type { ModelSelection, ModelSelectorOptions } from "./recall/select-model.ts";
import type { Selection, Selector } from "./recall/selector.ts";
import type { AgentSession, AgentSessionOptions } from "./session/agent-session.ts";
import type { MemoryHeader } from "./types.ts";

export { isMemdirError, MemdirError, type MemdirErrorCode } from "./errors.ts";
export type { CappedRead } from "./memdir/fs/read.ts";
export { Memdir, type MemdirOptions } from "./memdir/instance.ts";
export type { MemoryLocation, MemoryLocationOptions } from "./memdir/location/paths.ts";
export type { ScanOptions } from "./memdir/scan/scan.ts";
export type { SaveMemoryInput, SaveMemoryResult } from "./memdir/write/write.ts";
export type { ModelClient } from "./model/client.ts";
export type { RecallOptions, RecallResult, SurfacedMemory } from "./recall/recall.ts";
export type { HybridSelectorOptions } from "./recall/select-hybrid.ts";
export type { LexicalSelectorOptions } from "./recall/select-lexical.ts";
export type { ModelSelectorOptions } from "./recall/select-model.ts";
export type { MemoryPick, Selection, SelectionRequest, Selector } from "./recall/selector.ts";
export type { AgentSession, AgentSessionOptions } from "./session/agent-session.ts";
export { type Clock, MEMORY_TYPES, type MemoryHeader, type MemoryType, type Message } from "./types.ts";

// ---- The memory directory: each function loads its implementation on its first call ----

/**
 * Opens memory directory `memoryDir` for this process; its switches (`MEMDIR_NO_CACHE`,
 * `MEMDIR_NO_WATCH`, `MEMDIR_DEBUG`) are read from `options.env`, else the process's environment.
 * Opening reads nothing yet; the first {@link Memdir.scan} does.
 *
 * @example
 * const memdir = openMemdir(location.memoryDir, { watch: false });
 * const headers = await memdir.scan();
 * await memdir.close();
 */
export function openMemdir(memoryDir: string, options: MemdirOptions = {}): Memdir {
  return openMemdirWith(memoryDir, { ...options, env: options.env ?? process.env });
}

/**
 * Where memory lives for a project.
 *
 * @example
 * const location = await resolveMemoryLocation({ cwd: "/Users/me/shop", home: "/Users/me" });
 * location.memoryDir // "/Users/me/.claude/projects/-Users-me-shop/memory"
 */
export async function resolveMemoryLocation(options: MemoryLocationOptions = {}): Promise<MemoryLocation> {
  return (await import("./memdir/location/paths.ts")).resolveMemoryLocation({
    ...options,
    cwd: options.cwd ?? process.cwd(),
    env: options.env ?? process.env,
  });
}

/**
 * A memory file's text, capped at 200 lines / 4096 bytes.
 *
 * @example
 * const { content, truncated } = await readMemoryCapped("/…/memory/feedback-real-database.md");
 */
export async function readMemoryCapped(
  filePath: string,
  options: { maxLines?: number; maxBytes?: number; memoryDir?: string } = {},
): Promise<CappedRead> {
  return (await import("./memdir/fs/read.ts")).readMemoryCapped(filePath, options);
}

/**
 * The memory headers of a directory, newest first.
 *
 * @example
 * const headers = await scanHeaders("/home/me/.claude/projects/-work-shop/memory", { limit: 200 });
 */
export async function scanHeaders(memoryDir: string, options: ScanOptions = {}): Promise<MemoryHeader[]> {
  return (await import("./memdir/scan/scan.ts")).scanHeaders(memoryDir, options);
}

/**
 * Saves a new memory through the single writer (its secrets, quarantine and lock load with it).
 *
 * @example
 * const saved = await saveMemory(memoryDir, { type: "feedback", description: "tests hit a real DB", body: "Why: …" });
 */
export async function saveMemory(
  memoryDir: string,
  input: SaveMemoryInput,
  options: WriteOptions = {},
): Promise<SaveMemoryResult> {
  return (await import("./memdir/write/write.ts")).saveMemory(memoryDir, input, options);
}

/**
 * Removes one memory file and its index lines.
 *
 * @throws MemdirError("not-found") when neither the file nor an index line exists.
 * @example
 * await removeMemory(memoryDir, "feedback-old-rule.md");
 */
export async function removeMemory(
  memoryDir: string,
  file: string,
  options: WriteOptions = {},
): Promise<{ file: string; path: string }> {
  return (await import("./memdir/write/write.ts")).removeMemory(memoryDir, file, options);
}

// ---- Recall: a factory returns its selector at once; the selector loads on its first select ----

/**
 * Recalls memories for a query (scan, select, read, surface).
 *
 * @example
 * const result = await recall({ memoryDir, query: "修复登录测试", selector: createLexicalSelector() });
 * for (const message of result.messages) console.log(message.content);
 */
export async function recall(options: RecallOptions): Promise<RecallResult> {
  return (await import("./recall/recall.ts")).recall(options);
}

/**
 * The offline selector: BM25F over file name, description and body, with the passage,
 * saved-together, recency and floor stages. The lexical engine (tokenizer, stages, date parser,
 * word vectors) loads on the first `select`.
 *
 * @example
 * const selector = createLexicalSelector();
 * const { picks } = await selector.select({ query: "why do login tests hit a real database?", headers, k: 5, memoryDir });
 */
export function createLexicalSelector(options: LexicalSelectorOptions = {}): Selector {
  return loadingSelector("lexical", async () =>
    (await import("./recall/select-lexical.ts")).createLexicalSelector(options),
  );
}

/**
 * The faithful selector: one model side query over a manifest of at most 200 headers. Its
 * prompts and schema load on the first `select`.
 *
 * @example
 * const selector = createModelSelector({ client });
 * const { picks, failure } = await selector.select({ query: "why do login tests fail?", headers, k: 5, memoryDir });
 */
export function createModelSelector(options: ModelSelectorOptions): Selector<ModelSelection> {
  return loadingSelector("model", async () =>
    (await import("./recall/select-model.ts")).createModelSelector(options),
  );
}

/**
 * The default selector when a model is configured (docs/design.md#hybrid-selector): `candidates`
 * ranks every header, `chooser` chooses among the top 200 of that ranking, and the candidates'
 * picks are the fallback when the chooser fails. Loads on the first `select`.
 *
 * @example
 * const selector = createHybridSelector({ candidates: createLexicalSelector(), chooser: createModelSelector({ client }) });
 * const { picks } = await selector.select({ query: "修复登录测试", headers, k: 5, memoryDir });
 */
export function createHybridSelector(options: HybridSelectorOptions): Selector {
  return loadingSelector("hybrid", async () =>
    (await import("./recall/select-hybrid.ts")).createHybridSelector(options),
  );
}

/** A selector named `name` that makes the real one with `load` on its first `select`. */
function loadingSelector<S extends Selection>(name: string, load: () => Promise<Selector<S>>): Selector<S> {
  let loaded: Promise<Selector<S>> | undefined;
  return {
    name,
    async select(request, signal) {
      loaded ??= load();
      return (await loaded).select(request, signal);
    },
  };
}

// ---- The agent session ----

/**
 * Builds a session from configuration: memory location, instruction files and index (the user
 * context, read once per session), memory rules, model client, recall prefetch context,
 * permissions, tools, hooks and the transcript (`<projectDir>/<sessionId>.jsonl`, docs/design.md#transcripts).
 * `resume` loads an earlier transcript and continues appending to it. The agent engine (the
 * loop, its tools, zod schemas, extraction and consolidation) loads on the first call.
 *
 * @example
 * const session = await createAgentSession({ cwd: "/Users/me/shop" });
 * for await (const event of session.runTurn("fix the failing login test")) {
 *   if (event.type === "text_delta") process.stdout.write(event.text);
 * }
 * await session.close();
 */
export async function createAgentSession(options: AgentSessionOptions = {}): Promise<AgentSession> {
  // The entry point decides the directory and environment the library is handed.
  return (await import("./session/agent-session.ts")).createAgentSession({
    ...options,
    cwd: options.cwd ?? process.cwd(),
    env: options.env ?? process.env,
  });
}
