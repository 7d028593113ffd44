import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { CACHE_DIRECTORY_NAME } from "../memdir/cache/persisted-cache.ts";
import type { Clock } from "../types.ts";
import type { ContextPart } from "./context-limit.ts";

/**
 * What a host's session has already been shown by memdir's hooks (docs/design.md#file-hook): the
 * prompt hook and the file hook each run as a fresh process and never see the conversation, so
 * each memory they add is noted here, and neither adds it to the same session again. One
 * append-only file per session in `<memoryDir>/.memdir-cache/sessions/`, a line per memory
 * (`<bytes>\t<absolute path>`): an append of one short line is atomic, so hooks running side by
 * side (parallel tool calls) never lose each other's lines, and no lock is needed.
 */
export interface SessionSeen {
  /** Absolute paths of the memories this session was shown. */
  paths: Set<string>;
  /** Bytes of memory text shown, counted against the session budget. */
  bytes: number;
}

/** Ledgers untouched this long are removed when a new session starts one. */
const LEDGER_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
const SESSIONS_DIRECTORY = "sessions";

/** The ledger file of `sessionId`: its own name when that is a safe file name, else its hash. */
export function sessionLedgerPath(memoryDir: string, sessionId: string): string {
  const name = /^[A-Za-z0-9_-]{1,100}$/.test(sessionId)
    ? sessionId
    : createHash("sha256").update(sessionId).digest("hex").slice(0, 32);
  return path.join(memoryDir, CACHE_DIRECTORY_NAME, SESSIONS_DIRECTORY, `${name}.seen`);
}

/**
 * The memories session `sessionId` was already shown; empty for a session with no ledger (or an
 * unreadable one: showing a memory twice is better than failing the hook).
 *
 * @example
 * const seen = await readSessionSeen(memoryDir, input.session_id); // { paths: Set {"/m/x.md"}, bytes: 812 }
 */
export async function readSessionSeen(memoryDir: string, sessionId: string): Promise<SessionSeen> {
  const seen: SessionSeen = { paths: new Set(), bytes: 0 };
  const text = await fs.readFile(sessionLedgerPath(memoryDir, sessionId), "utf8").catch(() => "");
  for (const line of text.split("\n")) {
    const tab = line.indexOf("\t");
    if (tab <= 0) continue;
    const bytes = Number(line.slice(0, tab));
    const file = line.slice(tab + 1);
    if (!Number.isFinite(bytes) || file === "" || seen.paths.has(file)) continue;
    seen.paths.add(file);
    seen.bytes += bytes;
  }
  return seen;
}

/**
 * Notes that session `sessionId` was shown `memories` (absolute path, bytes of the text shown).
 * Never creates the memory directory itself; the first note of a session also removes ledgers
 * older than a week. Returns false when nothing could be written (the memory is then shown
 * again next time, which is the safe side).
 */
export async function recordSessionSeen(
  memoryDir: string,
  sessionId: string,
  memories: readonly { path: string; bytes: number }[],
  now: Clock = Date.now,
): Promise<boolean> {
  const lines = memories
    .filter((memory) => !memory.path.includes("\n"))
    .map((memory) => `${memory.bytes}\t${memory.path}\n`)
    .join("");
  if (lines === "") return true;
  const file = sessionLedgerPath(memoryDir, sessionId);
  try {
    await fs.appendFile(file, lines, { flag: "a" });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") return false;
  }
  try {
    // Not `recursive` from the memory dir down: a memory dir that does not exist stays absent.
    await fs.mkdir(path.join(memoryDir, CACHE_DIRECTORY_NAME)).catch(ignoreExists);
    await fs.mkdir(path.dirname(file)).catch(ignoreExists);
    await pruneOldLedgers(path.dirname(file), now());
    await fs.appendFile(file, lines, { flag: "a" });
    return true;
  } catch {
    return false;
  }
}

function ignoreExists(error: NodeJS.ErrnoException): void {
  if (error.code !== "EEXIST") throw error;
}

async function pruneOldLedgers(folder: string, nowMs: number): Promise<void> {
  for (const name of await fs.readdir(folder).catch(() => [])) {
    if (!name.endsWith(".seen")) continue;
    const file = path.join(folder, name);
    const stat = await fs.stat(file).catch(() => null);
    if (stat !== null && nowMs - stat.mtimeMs > LEDGER_MAX_AGE_MS) await fs.rm(file, { force: true });
  }
}

/**
 * The memories of `parts` the fitted context really shows (their header line is in it; a memory
 * cut to fit counts, one left out does not), with the bytes each adds: what to record.
 *
 * @example
 * await recordSessionSeen(memoryDir, sessionId, shownMemories(parts, fitHookContext(parts)));
 */
export function shownMemories(
  parts: readonly ContextPart[],
  context: string | null,
): { path: string; bytes: number }[] {
  if (context === null) return [];
  const shown: { path: string; bytes: number }[] = [];
  for (const part of parts) {
    if (part.path === undefined) continue;
    const lineEnd = part.text.indexOf("\n");
    const header = lineEnd === -1 ? part.text : part.text.slice(0, lineEnd);
    if (context.includes(header))
      shown.push({ path: part.path, bytes: Buffer.byteLength(part.text, "utf8") });
  }
  return shown;
}
