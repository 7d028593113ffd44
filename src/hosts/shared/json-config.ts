import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { MemdirError } from "../../errors.ts";
import { isMemdirHandler } from "./memdir-hooks.ts";

/** A parsed JSON config file: an object, whatever else it holds is kept as it is. */
export type JsonObject = Record<string, unknown>;

/** One hook memdir adds under an event key, with the group fields the agent's format wants. */
export interface HookEntry {
  event: string;
  /** The whole group (Claude Code shape: `{hooks: [handler]}`) or the handler alone (Cursor). */
  entry: JsonObject;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Whether one entry under an event (a group with `hooks`, or a bare handler as Cursor and
 * Copilot CLI write them) is memdir's or holds a handler of memdir's (memdir-hooks.ts).
 */
function isMemdirEntry(entry: unknown): boolean {
  if (!isObject(entry)) return false;
  if (isMemdirHandler(entry)) return true;
  return Array.isArray(entry.hooks) && entry.hooks.some(isMemdirHandler);
}

/** Drops memdir's handlers from one entry; null when nothing of it is left. */
function withoutMemdir(entry: unknown): unknown {
  if (!isMemdirEntry(entry) || !isObject(entry)) return entry;
  if (isMemdirHandler(entry)) return null;
  const hooks = (entry.hooks as unknown[]).filter((handler) => !isMemdirHandler(handler));
  return hooks.length === 0 ? null : { ...entry, hooks };
}

function objectAt(doc: JsonObject, key: string, file: string): JsonObject | undefined {
  const value = doc[key];
  if (value === undefined) return undefined;
  if (!isObject(value))
    throw new MemdirError(
      "invalid-input",
      `memdir: setup: ${file}: "${key}" is not an object; nothing was changed`,
    );
  return value;
}

/**
 * The hooks object with memdir's entries exactly `wanted` (none with `remove`). Leaves the
 * document as it is when memdir's entries already are what is wanted, so a second run changes
 * nothing even where the user added hooks after memdir's.
 */
export function withHooks(doc: JsonObject, wanted: HookEntry[], file: string): JsonObject {
  const hooks = objectAt(doc, "hooks", file) ?? {};
  const current: HookEntry[] = [];
  for (const [event, entries] of Object.entries(hooks)) {
    if (!Array.isArray(entries)) continue;
    for (const entry of entries) if (isMemdirEntry(entry) && isObject(entry)) current.push({ event, entry });
  }
  if (isDeepStrictEqual(sortByEvent(current), sortByEvent(wanted))) return doc;
  const next: JsonObject = {};
  for (const [event, entries] of Object.entries(hooks)) {
    if (!Array.isArray(entries)) {
      next[event] = entries;
      continue;
    }
    const kept = entries.map(withoutMemdir).filter((entry) => entry !== null);
    if (kept.length > 0 || entries.length === 0) next[event] = kept;
  }
  for (const { event, entry } of wanted) {
    const entries = Array.isArray(next[event]) ? (next[event] as unknown[]) : [];
    next[event] = [...entries, entry];
  }
  const result: JsonObject = { ...doc, hooks: next };
  if (Object.keys(next).length === 0) delete result.hooks;
  return result;
}

function sortByEvent(entries: HookEntry[]): HookEntry[] {
  return [...entries].sort((a, b) => a.event.localeCompare(b.event));
}

/**
 * `doc[key].memdir` with the keys of `server` set — the ones memdir owns (`command`, `args`,
 * `type`, `enabled`, …); every other key a user added to the entry (`env`, `timeout`,
 * `required`, …) stays (docs/design.md#agent-setup). Removed as a whole when `server` is null;
 * the key dropped when left empty.
 */
export function withServer(
  doc: JsonObject,
  key: string,
  server: JsonObject | null,
  file: string,
): JsonObject {
  const servers = objectAt(doc, key, file) ?? {};
  const current = isObject(servers.memdir) ? servers.memdir : undefined;
  if (
    server !== null &&
    current &&
    Object.entries(server).every(([name, value]) => isDeepStrictEqual(current[name], value))
  )
    return doc;
  if (server === null && !Object.hasOwn(servers, "memdir")) return doc;
  const next: JsonObject = { ...servers };
  if (server === null) delete next.memdir;
  else next.memdir = { ...current, ...server };
  const result: JsonObject = { ...doc, [key]: next };
  if (Object.keys(next).length === 0) delete result[key];
  return result;
}

/**
 * `doc[key].allow` (a permission list such as Qwen Code's `permissions.allow`) holding each of
 * `names` once, or none of them with `remove`; the user's own entries stay in their order, and
 * a list or object left empty is dropped.
 */
export function withAllowed(
  doc: JsonObject,
  key: string,
  names: readonly string[],
  remove: boolean,
  file: string,
): JsonObject {
  const section = objectAt(doc, key, file) ?? {};
  const current = section.allow;
  if (current !== undefined && !Array.isArray(current))
    throw new MemdirError(
      "invalid-input",
      `memdir: setup: ${file}: "${key}.allow" is not a list; nothing was changed`,
    );
  const list = current ?? [];
  const next = remove
    ? list.filter((entry) => !names.includes(entry as string))
    : [...list, ...names.filter((name) => !list.includes(name))];
  if (isDeepStrictEqual(next, list)) return doc;
  const nextSection = withKey(section, "allow", next.length > 0 ? next : undefined);
  return withKey(doc, key, Object.keys(nextSection).length > 0 ? nextSection : undefined);
}

/** `doc[key]` set to `value`, or removed when `value` is undefined. */
export function withKey(doc: JsonObject, key: string, value: unknown): JsonObject {
  if (isDeepStrictEqual(doc[key], value)) return doc;
  const result: JsonObject = { ...doc };
  if (value === undefined) delete result[key];
  else result[key] = value;
  return result;
}

/**
 * The page with every agent's snippet, as installed: the package ships docs/ beside dist/ (the
 * same two folders up from src/hosts/shared as from dist/hosts/shared).
 */
export const INTEGRATIONS_DOC = fileURLToPath(new URL("../../../docs/integrations.md", import.meta.url));

/**
 * JSON.parse's complaint with the line and column where it stopped (Node 20 says only
 * "at position 57", which nobody counts to in an editor).
 */
function jsonErrorWhere(error: unknown, text: string): string {
  const message = error instanceof Error ? error.message : String(error);
  const position = /at position (\d+)/.exec(message);
  if (position === null || /line \d+/.test(message)) return message;
  const before = text.slice(0, Number(position[1])).split("\n");
  return `${message}: line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
}

/** Parses a config file's text; a file that is not a JSON object is an error that changes nothing. */
export function parseJsonConfig(text: string | null, file: string): JsonObject {
  if (text === null || text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new MemdirError(
      "invalid-input",
      `memdir: setup: ${file}: not valid JSON (${jsonErrorWhere(error, text)}); nothing was changed — fix it or add the snippet from ${INTEGRATIONS_DOC} by hand`,
      { cause: error },
    );
  }
  if (!isObject(value))
    throw new MemdirError("invalid-input", `memdir: setup: ${file}: not a JSON object; nothing was changed`);
  return value;
}

/** Serializes with the file's own indentation (two spaces for a new file) and a final newline. */
export function formatJsonConfig(doc: JsonObject, original: string | null): string {
  const indent = original?.match(/^[{[][^\n]*\n([ \t]+)\S/)?.[1] ?? "  ";
  return `${JSON.stringify(doc, null, indent)}\n`;
}
