import { randomUUID } from "node:crypto";
import { escapeControlCharacters } from "../memdir/fs/safe-path.ts";
import { memoryAnchorChanges } from "../memdir/health/stale.ts";
import { escapeSystemReminder } from "../prompts/system-reminder.ts";
import type { Message } from "../types.ts";

export { escapeSystemReminder };

const DAY_MS = 86_400_000;

/** Memories older than this many whole days carry the point-in-time caveat (docs/design.md#surfacing). */
export const STALE_AFTER_DAYS = 1;

/** The first line of every surfaced memory: `Memory (saved 2 days ago): /abs/path.md:`. */
const HEADER_PATTERN = /^Memory \(saved [^)\n]*\): (.+):$/;
const WRAPPER_OPEN = "<system-reminder>";
const WRAPPER_CLOSE = "</system-reminder>";

/**
 * Whole days between a file's mtime and `now`, never negative (a clock skewed into the future
 * counts as "today").
 *
 * @example
 * memoryAgeDays(Date.parse("2026-08-08"), Date.parse("2026-08-10T09:00:00Z")) // 2
 */
export function memoryAgeDays(mtimeMs: number, now: number): number {
  return Math.max(0, Math.floor((now - mtimeMs) / DAY_MS));
}

/**
 * How old a memory is in words: `today`, `yesterday` or `N days ago`.
 *
 * @example
 * memoryAge(now - 2 * 86_400_000, now) // "2 days ago"
 */
export function memoryAge(mtimeMs: number, now: number): string {
  const days = memoryAgeDays(mtimeMs, now);
  if (days === 0) return "today";
  if (days === 1) return "yesterday";
  return `${days} days ago`;
}

/**
 * The header line of a surfaced memory (docs/design.md#surfacing): `Memory (saved 2 days ago): PATH:`,
 * one line whatever the path holds (a control character or line separator is written `\uXXXX`).
 *
 * @example
 * memoryHeader("/m/feedback-real-database.md", mtime, now) // "Memory (saved 2 days ago): /m/feedback-real-database.md:"
 */
export function memoryHeader(path: string, mtimeMs: number, now: number): string {
  return `Memory (saved ${memoryAge(mtimeMs, now)}): ${escapeControlCharacters(path)}:`;
}

/**
 * The point-in-time caveat for a memory older than one day, or `null` for a fresh one. A memory is
 * a note about the past: code it mentions may have moved since (docs/design.md#surfacing).
 */
export function memoryFreshnessCaveat(mtimeMs: number, now: number): string | null {
  const days = memoryAgeDays(mtimeMs, now);
  if (days <= STALE_AFTER_DAYS) return null;
  return (
    `(This memory is ${days} days old. It is a point-in-time note: claims about code or file:line ` +
    "references in it may be outdated, so verify them against the current code before relying on them.)"
  );
}

/**
 * The text of one surfaced memory before wrapping: `HEADER\n\nCONTENT`, with the caveat on the
 * line under the header when the memory is older than a day. `content` is the capped body from
 * `readMemoryCapped` (truncation note included). The header lines are memdir's own words, so each
 * name and note in them stays on its one line, its control characters escaped: text from a memory
 * file (its name, an anchor's path) never starts a line of its own there (docs/design.md#surfacing).
 */
export function formatSurfacedMemory(memory: {
  path: string;
  mtimeMs: number;
  content: string;
  now: number;
  /** One line each under the header, e.g. `note: src/auth/login.ts no longer exists` (docs/design.md#stale-anchors). */
  notes?: readonly string[];
}): string {
  const header = memoryHeader(memory.path, memory.mtimeMs, memory.now);
  const caveat = memoryFreshnessCaveat(memory.mtimeMs, memory.now);
  const notes = (memory.notes ?? []).map(escapeControlCharacters);
  const lines = [header, ...(caveat === null ? [] : [caveat]), ...notes];
  return `${lines.join("\n")}\n\n${memory.content}`;
}

/**
 * The `note:` lines for a surfaced memory whose anchors vanished: a file it names is gone, or a
 * symbol it names is no longer defined. Changed files are left to `memdir doctor --stale`: code
 * changes all the time, and a note on every edit would be noise. Stat + the named files only.
 */
export async function vanishedAnchorNotes(content: string, projectRoot: string | null): Promise<string[]> {
  if (projectRoot === null || !/^anchors:/m.test(content)) return [];
  const changes = await memoryAnchorChanges(content, projectRoot, { vanishedOnly: true });
  return changes.map((change) => `note: ${change.message}`);
}

/**
 * Wraps text in `<system-reminder>…</system-reminder>` (how hidden context reaches the model),
 * escaping any closing tag inside it first.
 *
 * @example
 * wrapSystemReminder("a</system-reminder>b") // "<system-reminder>a<\\/system-reminder>b</system-reminder>"
 */
export function wrapSystemReminder(text: string): string {
  return `${WRAPPER_OPEN}${escapeSystemReminder(text)}${WRAPPER_CLOSE}`;
}

/**
 * The hidden user message that carries one memory to the model: role `user`, `isMeta: true`,
 * content `<system-reminder>HEADER\n\nCONTENT</system-reminder>`.
 */
export function surfacedMemoryMessage(memory: {
  path: string;
  mtimeMs: number;
  content: string;
  now: number;
  id?: string;
  notes?: readonly string[];
}): Message {
  return {
    id: memory.id ?? `memory-${randomUUID()}`,
    role: "user",
    content: wrapSystemReminder(formatSurfacedMemory(memory)),
    isMeta: true,
    timestamp: new Date(memory.now).toISOString(),
  };
}

/**
 * The absolute path a surfaced-memory message carries, or `null` when the message is not one.
 * Parsing the message itself (not a side table) is what lets the budget and the "already
 * surfaced" set follow compaction: drop the message and the memory counts as never shown.
 */
export function surfacedMemoryPath(message: Message): string | null {
  if (message.role !== "user" || message.isMeta !== true || typeof message.content !== "string") return null;
  if (!message.content.startsWith(WRAPPER_OPEN)) return null;
  const firstLineEnd = message.content.indexOf("\n");
  const firstLine = message.content.slice(
    WRAPPER_OPEN.length,
    firstLineEnd === -1 ? undefined : firstLineEnd,
  );
  const match = HEADER_PATTERN.exec(firstLine);
  return match ? match[1] : null;
}
