import { createHash } from "node:crypto";
import { MemdirError } from "../../errors.ts";
import type { JsonObject } from "../shared/json-config.ts";
import { isMemdirHandler } from "../shared/memdir-hooks.ts";
import { lineOf, scanToml, simpleTomlValue, TomlScanError, type TomlStatement } from "../shared/toml-scan.ts";

// Codex runs a hook from hooks.json only once the user trusted it: `[hooks.state."<hooks.json
// path>:<event>:<group>:<handler>"] trusted_hash = "sha256:…"` in the user's config.toml, which its
// TUI's /hooks writes; `codex exec` skips an untrusted hook without a word. The hash is of the
// hook's normalized identity, not of the file's text (codex-rs/hooks/src/engine/discovery.rs,
// `command_hook_hash`): `{event_name, matcher?, hooks: [{type, command, timeout, async,
// statusMessage?}]}` with the timeout defaulted (600 s, at least 1), as JSON with sorted keys,
// through SHA-256. memdir writes the entries for the hooks it wrote itself, so they run when
// setup is done (docs/integrations.md#codex-cli; test/integration/codex.test.ts runs them in the real
// binary without --dangerously-bypass-hook-trust). A hook edited afterwards no longer matches its
// hash, and Codex skips it until it is trusted again (`memdir doctor` says so).

/** One trust entry: the key Codex looks the hook up by, and the hash it must carry. */
export interface HookTrust {
  key: string;
  hash: string;
}

/** Codex's label of an event in a trust key: `SessionStart` → `session_start`. */
export function codexEventLabel(event: string): string {
  return event.replace(/(?<=[a-z0-9])([A-Z])/g, "_$1").toLowerCase();
}

/** Events whose matcher Codex ignores (codex-rs/hooks/src/events/common.rs, `matcher_pattern_for_event`). */
const MATCHERLESS = new Set(["user_prompt_submit", "stop"]);

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === "object")
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as JsonObject)[key])]),
    );
  return value;
}

/** The `trusted_hash` Codex expects for one command handler of a hooks.json group. */
export function codexHookHash(event: string, matcher: unknown, handler: JsonObject): string {
  const label = codexEventLabel(event);
  const timeout = typeof handler.timeout === "number" ? Math.max(1, Math.trunc(handler.timeout)) : 600;
  const normalized: JsonObject = {
    type: "command",
    command: handler.command,
    timeout,
    async: handler.async === true,
    ...(typeof handler.statusMessage === "string" ? { statusMessage: handler.statusMessage } : {}),
  };
  const identity: JsonObject = {
    event_name: label,
    ...(typeof matcher === "string" && !MATCHERLESS.has(label) ? { matcher } : {}),
    hooks: [normalized],
  };
  return `sha256:${createHash("sha256")
    .update(JSON.stringify(canonical(identity)))
    .digest("hex")}`;
}

/** The trust entries of memdir's command handlers in a hooks.json document, in file order. */
export function memdirHookTrust(hooksFile: string, doc: JsonObject): HookTrust[] {
  const hooks = doc.hooks;
  if (!hooks || typeof hooks !== "object" || Array.isArray(hooks)) return [];
  const entries: HookTrust[] = [];
  for (const [event, groups] of Object.entries(hooks as JsonObject)) {
    if (!Array.isArray(groups)) continue;
    groups.forEach((group: unknown, groupIndex) => {
      const handlers = (group as JsonObject | null)?.hooks;
      if (!Array.isArray(handlers)) return;
      handlers.forEach((handler: unknown, handlerIndex) => {
        const command = handler as JsonObject | null;
        if (command?.type !== "command" || !isMemdirHandler(command)) return;
        entries.push({
          key: `${hooksFile}:${codexEventLabel(event)}:${groupIndex}:${handlerIndex}`,
          hash: codexHookHash(event, (group as JsonObject).matcher, command),
        });
      });
    });
  }
  return entries;
}

type Header = Extract<TomlStatement, { kind: "table" | "array-table" }>;
type KeyValue = Extract<TomlStatement, { kind: "key-value" }>;

/** A `[hooks.state."<key>"]` table and its statements. */
interface StateTable {
  key: string;
  header: Header;
  body: KeyValue[];
}

function stateTables(source: string, file: string): StateTable[] {
  let statements: TomlStatement[];
  try {
    statements = scanToml(source);
  } catch (error) {
    if (error instanceof TomlScanError)
      throw new MemdirError(
        "invalid-input",
        `memdir: setup: ${file}: memdir cannot read it as TOML (${error.message}); nothing was changed`,
      );
    throw error;
  }
  const tables: StateTable[] = [];
  let current: StateTable | null = null;
  for (const statement of statements) {
    if (statement.kind !== "key-value") {
      const [hooks, state, key, ...rest] = statement.keys;
      const isState =
        statement.kind === "table" && hooks === "hooks" && state === "state" && key && rest.length === 0;
      current = isState ? { key, header: statement, body: [] } : null;
      if (current) tables.push(current);
    } else if (current) current.body.push(statement);
    else if (statement.keys[0] === "hooks" && statement.keys.length > 1)
      throw new MemdirError(
        "invalid-input",
        `memdir: setup: ${file}: line ${lineOf(source, statement.start)}: hook state set with dotted keys; nothing was changed — trust memdir's hooks in Codex's /hooks instead`,
      );
  }
  return tables;
}

function hashOf(table: StateTable): KeyValue | undefined {
  return table.body.find((entry) => entry.keys.length === 1 && entry.keys[0] === "trusted_hash");
}

/**
 * The config.toml text with a `trusted_hash` for each of `wanted` (set in place when its table
 * exists, else a new table at the end), and without the ones in `dropped` that still carry the
 * hash memdir wrote (a hash the user changed, and every other byte, stays). A table left empty
 * goes with its header.
 */
export function withHookTrust(
  text: string | null,
  wanted: HookTrust[],
  dropped: HookTrust[],
  file: string,
): string {
  const source = text ?? "";
  const tables = stateTables(source, file);
  const edits: Array<{ start: number; end: number; text: string }> = [];
  const appended: string[] = [];
  for (const trust of wanted) {
    const table = tables.find((candidate) => candidate.key === trust.key);
    const line = `trusted_hash = ${JSON.stringify(trust.hash)}`;
    if (!table) {
      appended.push(`[hooks.state.${JSON.stringify(trust.key)}]\n${line}\n`);
      continue;
    }
    const statement = hashOf(table);
    if (!statement) edits.push({ start: table.header.end, end: table.header.end, text: `${line}\n` });
    else if (simpleTomlValue(source.slice(statement.valueStart, statement.valueEnd)) !== trust.hash)
      edits.push({ start: statement.valueStart, end: statement.valueEnd, text: JSON.stringify(trust.hash) });
  }
  const keep = new Set(wanted.map((trust) => trust.key));
  let removed = false;
  for (const trust of dropped) {
    if (keep.has(trust.key)) continue;
    const table = tables.find((candidate) => candidate.key === trust.key);
    const statement = table && hashOf(table);
    if (!table || !statement) continue;
    if (simpleTomlValue(source.slice(statement.valueStart, statement.valueEnd)) !== trust.hash) continue;
    removed = true;
    if (table.body.length === 1) {
      let end = statement.end;
      const blank = /[ \t]*\r?\n/y;
      blank.lastIndex = end;
      while (blank.exec(source) !== null) end = blank.lastIndex;
      edits.push({ start: table.header.start, end, text: "" });
    } else edits.push({ start: statement.start, end: statement.end, text: "" });
  }
  let result = source;
  for (const edit of edits.sort((a, b) => b.start - a.start))
    result = result.slice(0, edit.start) + edit.text + result.slice(edit.end);
  if (appended.length > 0) {
    const separator =
      result === "" ? "" : result.endsWith("\n\n") ? "" : result.endsWith("\n") ? "\n" : "\n\n";
    result = `${result}${separator}${appended.join("")}`;
  }
  if (removed && appended.length === 0 && result.endsWith("\n\n")) result = result.replace(/\n+$/, "\n");
  return result;
}

/** The `trusted_hash` of each `[hooks.state."<key>"]` table in a config.toml text. */
export function trustedHashes(text: string, file: string): Map<string, string> {
  const hashes = new Map<string, string>();
  for (const table of stateTables(text, file)) {
    const statement = hashOf(table);
    const value = statement && simpleTomlValue(text.slice(statement.valueStart, statement.valueEnd));
    if (typeof value === "string") hashes.set(table.key, value);
  }
  return hashes;
}

/** A memdir hook Codex will not run: never trusted, or changed since it was. */
export interface UntrustedHook {
  key: string;
  state: "untrusted" | "modified";
}

/**
 * memdir's hooks in a Codex hooks.json document that the config.toml text does not trust as they
 * are now: Codex skips them, `codex exec` without a word (what `memdir doctor` reports).
 */
export function untrustedMemdirHooks(
  hooksFile: string,
  hooksDoc: JsonObject,
  configText: string | null,
  configFile: string,
): UntrustedHook[] {
  const trusted = trustedHashes(configText ?? "", configFile);
  return memdirHookTrust(hooksFile, hooksDoc).flatMap(({ key, hash }): UntrustedHook[] => {
    const current = trusted.get(key);
    if (current === hash) return [];
    return [{ key, state: current === undefined ? "untrusted" : "modified" }];
  });
}
