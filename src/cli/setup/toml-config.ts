import { MemdirError } from "../../errors.ts";

// Codex keeps its MCP servers in TOML (`[mcp_servers.<name>]` in config.toml). memdir has no TOML
// dependency and needs none: it edits only its own table, line by line, and leaves every other
// byte of the file as it was (comments, order, formatting — which a parse-and-rewrite would lose).

/** `[mcp_servers.memdir]` or one of its sub-tables (`[mcp_servers.memdir.env]`), quoted or not. */
const OWN_HEADER = /^\s*\[\s*mcp_servers\s*\.\s*("memdir"|'memdir'|memdir)\s*(\.[^\]]*)?\]\s*(#.*)?$/;
/** Any table or array-of-tables header. */
const ANY_HEADER = /^\s*\[\[?[^\]]+\]\]?\s*(#.*)?$/;

function tomlString(value: string): string {
  return JSON.stringify(value);
}

/** The table memdir writes for `command` + `args`. */
export function memdirServerTable(command: string, args: string[]): string {
  return `[mcp_servers.memdir]\ncommand = ${tomlString(command)}\nargs = [${args.map(tomlString).join(", ")}]\n`;
}

/**
 * The TOML text with memdir's server table set to `table` (or removed when null). Tables are
 * found by their header lines; memdir's ends at the next header that is not one of its own
 * sub-tables. A server defined another way (`memdir = {…}` under `[mcp_servers]`, dotted keys)
 * is an error: editing it line by line could break the file, so nothing is changed.
 */
export function withServerTable(text: string | null, table: string | null, file: string): string {
  const source = text ?? "";
  const lines = source.split("\n");
  let currentHeader = "";
  for (const line of lines) {
    if (ANY_HEADER.test(line)) currentHeader = line.trim();
    else if (
      (/^\s*\[\s*mcp_servers\s*\]/.test(currentHeader) && /^\s*["']?memdir["']?\s*=/.test(line)) ||
      /^\s*mcp_servers\s*\.\s*["']?memdir["']?\s*[.=]/.test(line) ||
      (currentHeader === "" && /^\s*mcp_servers\s*=/.test(line) && /\bmemdir\b/.test(line))
    )
      throw new MemdirError(
        "invalid-input",
        `memdir: setup: ${file}: the memdir MCP server is defined inline ("${line.trim()}"); nothing was changed — replace it with a [mcp_servers.memdir] table or edit it by hand`,
      );
  }
  const kept: string[] = [];
  const own: string[] = [];
  let inOwn = false;
  for (const line of lines) {
    if (ANY_HEADER.test(line)) inOwn = OWN_HEADER.test(line);
    (inOwn ? own : kept).push(line);
  }
  const ownText = `${own.join("\n").trimEnd()}\n`;
  if (table !== null && ownText === table && own.length > 0) return source;
  if (table === null && own.length === 0) return source;
  let result = kept.join("\n").replace(/\n+$/, "");
  if (table !== null) result = result === "" ? table : `${result}\n\n${table}`;
  else if (result !== "") result = `${result}\n`;
  return result;
}
