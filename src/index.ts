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
 * @example
 * import { resolveMemoryLocation, saveMemory, recall, createLexicalSelector } from "memdir";
 * const { memoryDir } = await resolveMemoryLocation({ cwd: process.cwd() });
 * await saveMemory(memoryDir, { type: "feedback", description: "use pnpm, not npm", body: "Why: the lockfile is pnpm's." });
 * const result = await recall({ memoryDir, query: "how do I install deps?", selector: createLexicalSelector() });
 */

export { isMemdirError, MemdirError, type MemdirErrorCode } from "./errors.ts";
export { Memdir, type MemdirOptions, openMemdir } from "./memdir/instance.ts";
// The functions below come from the lazy files, which load their implementation on first call,
// so importing the root loads little more than the Memdir class (docs/design.md#lazy-entry).
export {
  readMemoryCapped,
  removeMemory,
  resolveMemoryLocation,
  saveMemory,
  scanHeaders,
} from "./memdir/lazy.ts";
export type { MemoryLocation, MemoryLocationOptions } from "./memdir/paths.ts";
export type { CappedRead } from "./memdir/read.ts";
export type { ScanOptions } from "./memdir/scan.ts";
export type { SaveMemoryInput, SaveMemoryResult } from "./memdir/write.ts";
export type { ModelClient } from "./model/client.ts";
export { createLexicalSelector, createModelSelector, recall } from "./recall/lazy.ts";
export type { RecallOptions, RecallResult, SurfacedMemory } from "./recall/recall.ts";
export { createHybridSelector, type HybridSelectorOptions } from "./recall/select-hybrid.ts";
export type { LexicalSelectorOptions } from "./recall/select-lexical.ts";
export type { ModelSelectorOptions } from "./recall/select-model.ts";
export type { MemoryPick, Selection, SelectionRequest, Selector } from "./recall/selector.ts";
export type { AgentSession, AgentSessionOptions } from "./session/agent-session.ts";
export { createAgentSession } from "./session/create-session.ts";
export { type Clock, MEMORY_TYPES, type MemoryHeader, type MemoryType, type Message } from "./types.ts";
