import { isDeepStrictEqual } from "node:util";
import { MemdirError } from "../../errors.ts";
import { INTEGRATIONS_DOC } from "./json-config.ts";
import { lineOf, scanToml, simpleTomlValue, TomlScanError, type TomlStatement } from "./toml-scan.ts";

// Codex keeps its MCP servers in TOML (`[mcp_servers.<name>]` in config.toml). memdir edits only
// what it owns there — the keys `command` and `args` of `[mcp_servers.memdir]` — in place, found
// by a scanner that knows strings, comments and multi-line values (toml-scan.ts), and leaves every
// other byte as it was: a parse-and-rewrite would lose comments and layout
// (docs/design.md#agent-setup).

/** What memdir's server table holds: the keys it owns. */
export interface TomlServer {
  command: string;
  args: string[];
  /**
   * Keys written only when the table lacks them, never changed once there: a value the user set
   * (`required = false`) stays.
   */
  defaults?: Array<[key: string, value: boolean | number]>;
}

function tomlString(value: string): string {
  // A JSON string is a TOML basic string: the same quotes and escapes (`\uXXXX` included).
  return JSON.stringify(value);
}

function tomlValue(value: string | string[] | boolean | number): string {
  if (typeof value === "boolean" || typeof value === "number") return String(value);
  return Array.isArray(value) ? `[${value.map(tomlString).join(", ")}]` : tomlString(value);
}

/** The owned keys in the order memdir writes them. */
function ownedEntries(server: TomlServer): Array<[string, string | string[]]> {
  return [
    ["command", server.command],
    ["args", server.args],
  ];
}

/** The table memdir writes for a new server. */
export function memdirServerTable(server: TomlServer): string {
  const lines = [...ownedEntries(server), ...(server.defaults ?? [])].map(
    ([key, value]) => `${key} = ${tomlValue(value)}`,
  );
  return `[mcp_servers.memdir]\n${lines.join("\n")}\n`;
}

function isMemdirKey(keys: readonly string[]): boolean {
  return keys[0] === "mcp_servers" && keys[1] === "memdir";
}

/** A header of memdir's (its table or one of its sub-tables) and the statements under it. */
interface OwnGroup {
  header: Extract<TomlStatement, { kind: "table" | "array-table" }>;
  body: Array<Extract<TomlStatement, { kind: "key-value" }>>;
}

function refuse(file: string, reason: string): never {
  throw new MemdirError(
    "invalid-input",
    `memdir: setup: ${file}: ${reason}; nothing was changed — edit it by hand (the snippet is in ${INTEGRATIONS_DOC})`,
  );
}

/** memdir's groups, after checking that no other form of the server (inline, dotted keys) exists. */
function ownGroups(source: string, file: string): OwnGroup[] {
  let statements: TomlStatement[];
  try {
    statements = scanToml(source);
  } catch (error) {
    if (error instanceof TomlScanError) refuse(file, `memdir cannot read it as TOML (${error.message})`);
    throw error;
  }
  const groups: OwnGroup[] = [];
  let table: string[] = [];
  let own: OwnGroup | null = null;
  for (const statement of statements) {
    // Counted only for a refusal's message: counting for every statement made the pass quadratic.
    const line = () => lineOf(source, statement.start);
    if (statement.kind !== "key-value") {
      table = statement.keys;
      if (
        statement.kind === "array-table" &&
        statement.keys.length === 1 &&
        statement.keys[0] === "mcp_servers"
      )
        refuse(file, `line ${line()}: mcp_servers is an array of tables, where Codex wants a table`);
      own = isMemdirKey(statement.keys) ? { header: statement, body: [] } : null;
      if (own) groups.push(own);
      continue;
    }
    if (own) {
      own.body.push(statement);
      continue;
    }
    const full = [...table, ...statement.keys];
    if (isMemdirKey(full) || (full.length === 1 && full[0] === "mcp_servers"))
      refuse(
        file,
        `line ${line()}: the memdir MCP server is defined inline ("${source.slice(statement.start, statement.valueStart).trim()} …"); replace it with a [mcp_servers.memdir] table`,
      );
  }
  return groups;
}

/** Where a group's text ends: after its last statement and the blank lines that follow it. */
function groupEnd(source: string, group: OwnGroup): number {
  let end = group.body.at(-1)?.end ?? group.header.end;
  const blankLine = /[ \t]*\r?\n/y;
  blankLine.lastIndex = end;
  while (blankLine.exec(source) !== null) end = blankLine.lastIndex;
  return end;
}

/** The text with `[start, end)` replaced, edits applied from the last to the first. */
function applyEdits(source: string, edits: Array<{ start: number; end: number; text: string }>): string {
  let result = source;
  for (const edit of [...edits].sort((a, b) => b.start - a.start))
    result = result.slice(0, edit.start) + edit.text + result.slice(edit.end);
  return result;
}

/** The text without memdir's tables; at the end of the file, the blank line setup put before them goes too. */
function withoutServer(source: string, groups: OwnGroup[]): string {
  if (groups.length === 0) return source;
  const edits = groups.map((group) => ({
    start: group.header.start,
    end: groupEnd(source, group),
    text: "",
  }));
  let result = applyEdits(source, edits);
  const last = edits.reduce((a, b) => (a.start > b.start ? a : b));
  if (last.end === source.length && result.endsWith("\n\n")) result = result.slice(0, -1);
  return result;
}

/** The text with a new memdir table at the end, after a blank line (what removal takes away again). */
function withNewTable(source: string, server: TomlServer): string {
  const table = memdirServerTable(server);
  if (source === "") return table;
  return `${source}${source.endsWith("\n") ? "\n" : "\n\n"}${table}`;
}

/**
 * The TOML text with memdir's server set to `server` (removed, with its sub-tables, when null).
 * Only memdir's keys are set: a `command` or `args` that differs is replaced in place, a missing
 * one added under the header, a `defaults` key added only when absent, and every other key of the table (`startup_timeout_sec`, `env`,
 * `required`, …) and every other byte of the file stay. A server defined another way
 * (`memdir = {…}` under `[mcp_servers]`, dotted keys, `mcp_servers = {…}`) or a file memdir cannot
 * read is an error, and nothing is changed.
 *
 * @example withServerTable("# mine\n", { command: "memdir", args: ["mcp"] }, "config.toml")
 * // '# mine\n\n[mcp_servers.memdir]\ncommand = "memdir"\nargs = ["mcp"]\n'
 */
export function withServerTable(text: string | null, server: TomlServer | null, file: string): string {
  const source = text ?? "";
  const groups = ownGroups(source, file);
  if (server === null) return withoutServer(source, groups);
  const main = groups.find((group) => group.header.kind === "table" && group.header.keys.length === 2);
  if (!main) return withNewTable(source, server);
  const edits: Array<{ start: number; end: number; text: string }> = [];
  const missing: string[] = [];
  let insertAt = main.header.end;
  for (const [key, value] of ownedEntries(server)) {
    const statement = main.body.find((entry) => entry.keys.length === 1 && entry.keys[0] === key);
    if (!statement) {
      missing.push(`${key} = ${tomlValue(value)}\n`);
      continue;
    }
    insertAt = statement.end;
    const current = simpleTomlValue(source.slice(statement.valueStart, statement.valueEnd));
    if (!isDeepStrictEqual(current, value))
      edits.push({ start: statement.valueStart, end: statement.valueEnd, text: tomlValue(value) });
  }
  for (const [key, value] of server.defaults ?? []) {
    const present = main.body.some((entry) => entry.keys.length === 1 && entry.keys[0] === key);
    if (!present) missing.push(`${key} = ${tomlValue(value)}\n`);
  }
  if (missing.length > 0) {
    const newline = insertAt > 0 && source[insertAt - 1] !== "\n" ? "\n" : "";
    edits.push({ start: insertAt, end: insertAt, text: newline + missing.join("") });
  }
  return applyEdits(source, edits);
}
