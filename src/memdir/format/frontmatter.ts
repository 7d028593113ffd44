import { createRequire } from "node:module";
import { isMemoryType, type MemoryType } from "../../types.ts";
import { parsePlainFrontmatter, plainFrontmatterCode } from "./frontmatter-plain.ts";

// The YAML parser loads on the first frontmatter that the plain reader (frontmatter-plain.ts)
// leaves to it or that is written, not with this file: a prompt hook served from the header cache
// parses none, and loading yaml costs it ~20 ms (docs/design.md#the-prompt-hook-process). yaml's Node build is CommonJS, so `require` gives the module `import` would.
const requireFromHere = createRequire(import.meta.url);
function yaml(): typeof import("yaml") {
  return requireFromHere("yaml") as typeof import("yaml");
}

/**
 * What the parse of a frontmatter depends on besides the code of this file, for the cache
 * fingerprints (a cache built by another YAML parser is rebuilt): the yaml package's version,
 * read from its package.json so that computing a fingerprint does not load the parser itself.
 */
export function frontmatterParserVersion(): string {
  const manifest = requireFromHere("yaml/package.json") as { version?: unknown };
  return `yaml ${String(manifest.version)}`;
}

/**
 * The code a frontmatter parse runs, for the cache fingerprints: these functions' source texts
 * and the patterns they use (see {@link frontmatterParserVersion} for the YAML parser's part).
 */
export function frontmatterParserCode(): unknown[] {
  return [
    parseFrontmatter,
    lineEndAt,
    isAbsent,
    metadataOf,
    timeOf,
    String(OPEN),
    String(CLOSE),
    String(ISO_TIME),
    ...plainFrontmatterCode(),
  ];
}

/** A problem found in one file's frontmatter; never thrown, always returned. */
export interface FrontmatterIssue {
  code:
    | "no-frontmatter"
    | "unclosed"
    | "yaml"
    | "not-a-map"
    | "missing-type"
    | "invalid-type"
    | "missing-description";
  message: string;
}

export interface ParsedMemory {
  /** The frontmatter as a plain object (empty when absent or broken). */
  data: Record<string, unknown>;
  type: MemoryType | null;
  description: string | null;
  /** `name` (Claude Code's short slug), or null. */
  name: string | null;
  /** `modified` (top level or under `metadata:`) as ms when it is a valid ISO time, else null. */
  modifiedMs: number | null;
  /** Everything after the closing `---` (or the whole text when there is no frontmatter). */
  body: string;
  issues: FrontmatterIssue[];
}

const OPEN = /^\uFEFF?---[ \t]*\r?$/;
const CLOSE = /^---[ \t]*\r?$/;

/** A file with no frontmatter to parse: no fields, the whole text (less a BOM) as its body. */
function wholeTextAsBody(text: string, issue: FrontmatterIssue): ParsedMemory {
  return {
    data: {},
    type: null,
    description: null,
    name: null,
    modifiedMs: null,
    body: text.replace(/^\uFEFF/, ""),
    issues: [issue],
  };
}

/**
 * Splits and parses a memory file's frontmatter. Tolerant: a BOM, CRLF, quoted values and
 * missing fields are fine; a bad file yields issues, never an exception.
 * `maxLines` limits where the closing `---` may be (the header scan passes 30). The body is
 * always the end of `text` (the lexical index relies on it to read the body in place).
 *
 * @example
 * parseFrontmatter("---\ndescription: x\ntype: user\n---\nbody").type // "user"
 */
export function parseFrontmatter(text: string, options: { maxLines?: number } = {}): ParsedMemory {
  const issues: FrontmatterIssue[] = [];
  // Line by line up to the closing `---` only: the body is one slice, not every line of a 64 KB
  // file split and joined again (the lexical index parses every file it indexes, docs/design.md#the-prompt-hook-process).
  let lineEnd = lineEndAt(text, 0);
  if (!OPEN.test(text.slice(0, lineEnd)))
    return wholeTextAsBody(text, {
      code: "no-frontmatter",
      message: "no frontmatter (the file must start with ---)",
    });
  const maxLines = options.maxLines ?? Number.POSITIVE_INFINITY;
  const yamlLines: string[] = [];
  let closeEnd = -1;
  for (let i = 1; i < maxLines && lineEnd < text.length; i++) {
    const lineStart = lineEnd + 1;
    lineEnd = lineEndAt(text, lineStart);
    const line = text.slice(lineStart, lineEnd);
    if (CLOSE.test(line)) {
      closeEnd = lineEnd;
      break;
    }
    yamlLines.push(line.replace(/\r$/, ""));
  }
  if (closeEnd < 0) {
    const where = options.maxLines ? ` within ${options.maxLines} lines` : "";
    return wholeTextAsBody(text, { code: "unclosed", message: `frontmatter is not closed by ---${where}` });
  }
  const yamlText = yamlLines.join("\n");
  const body = closeEnd < text.length ? text.slice(closeEnd + 1).replace(/^\r?\n/, "") : "";
  let data: Record<string, unknown> = {};
  let unreadable = false;
  try {
    const parsed: unknown =
      yamlText.trim() === ""
        ? {}
        : (parsePlainFrontmatter(yamlText) ?? yaml().parse(yamlText, { prettyErrors: false }));
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed))
      data = parsed as Record<string, unknown>;
    else issues.push({ code: "not-a-map", message: "frontmatter is not a key: value map" });
  } catch (error) {
    unreadable = true;
    issues.push({ code: "yaml", message: yamlErrorMessage(error, yamlText) });
  }
  // Claude Code (2.1.x) nests `type` (and `modified`) under `metadata:`; top level wins.
  const metadata = metadataOf(data);
  const rawType = isAbsent(data.type) ? metadata?.type : data.type;
  let type: MemoryType | null = null;
  // Frontmatter that does not parse has no fields to find: "missing" would send the user after
  // a type and a description the file may well have.
  if (isAbsent(rawType)) {
    if (!unreadable) issues.push({ code: "missing-type", message: 'missing "type"' });
  } else if (isMemoryType(typeof rawType === "string" ? rawType.trim() : rawType)) {
    type = (rawType as string).trim() as MemoryType;
  } else {
    issues.push({
      code: "invalid-type",
      message: `invalid "type": ${JSON.stringify(rawType)} (one of user, feedback, project, reference)`,
    });
  }
  const rawDescription = data.description;
  let description: string | null = null;
  if (typeof rawDescription === "string" && rawDescription.trim() !== "") description = rawDescription.trim();
  else if (typeof rawDescription === "number" || typeof rawDescription === "boolean")
    description = String(rawDescription);
  else if (!unreadable) issues.push({ code: "missing-description", message: 'missing "description"' });
  const name = typeof data.name === "string" && data.name.trim() !== "" ? data.name.trim() : null;
  const modifiedMs = timeOf(isAbsent(data.modified) ? metadata?.modified : data.modified);
  return { data, type, description, name, modifiedMs, body, issues };
}

/**
 * The `yaml` issue's message: the parser's first line, the file's line it points at (the
 * frontmatter starts on line 2), and for the commonest slip, an unquoted value holding `: `, what to do.
 *
 * @example
 * // description: broken: colon: here
 * yamlErrorMessage(error) // "frontmatter is not valid YAML (line 2): Nested mappings are not allowed in compact mappings; put a value that holds \": \" in quotes"
 */
function yamlErrorMessage(error: unknown, yamlText: string): string {
  const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
  // The parser's offset into the frontmatter (`pos`); its own line numbers need prettyErrors.
  const offset = (error as { pos?: number[] } | null)?.pos?.[0];
  const line = typeof offset === "number" ? yamlText.slice(0, offset).split("\n").length + 1 : undefined;
  const where = line === undefined ? "" : ` (line ${line})`;
  const hint = /compact mapping|Implicit map keys|mapping values/i.test(reason)
    ? '; put a value that holds ": " in quotes'
    : "";
  return `frontmatter is not valid YAML${where}: ${reason.replace(/ at line \d+, column \d+:?$/, "")}${hint}`;
}

/** Where the line starting at `start` ends: its `\n`, or the end of `text`. */
function lineEndAt(text: string, start: number): number {
  const end = text.indexOf("\n", start);
  return end < 0 ? text.length : end;
}

function isAbsent(value: unknown): boolean {
  return value === undefined || value === null || value === "";
}

/** The `metadata:` map of a frontmatter, or null when it has none (or it is not a map). */
export function metadataOf(data: Record<string, unknown>): Record<string, unknown> | null {
  const metadata = data.metadata;
  return metadata && typeof metadata === "object" && !Array.isArray(metadata)
    ? (metadata as Record<string, unknown>)
    : null;
}

// An ISO 8601 date or date-time (what Claude Code writes: `2026-07-30T07:40:18.191Z`).
const ISO_TIME = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** A `modified` value as ms, or null when it is not a valid ISO time. @internal */
export function timeOf(value: unknown): number | null {
  if (value instanceof Date) return Number.isFinite(value.getTime()) ? value.getTime() : null;
  if (typeof value !== "string" || !ISO_TIME.test(value.trim())) return null;
  const ms = Date.parse(value.trim());
  return Number.isFinite(ms) ? ms : null;
}

/**
 * Serializes a memory file: frontmatter and the body, ending in one newline. The frontmatter is
 * `name` (when given), `description`, `type`, then every other key of `previous` (the file being
 * replaced) or `extra`, kept as they were, then `modified` (when given). A file whose `type` sat
 * under `metadata:` (Claude Code's shape) keeps it there, and its `modified` too
 * (docs/design.md#claude-code-format).
 *
 * @example
 * serializeMemory({ name: "feedback-real-db", description: "tests hit a real DB", type: "feedback", body: "Why: …" })
 */
export function serializeMemory(fields: {
  description: string;
  type: MemoryType;
  body: string;
  /** Other frontmatter keys to keep (older callers; `previous` does the same and more). */
  extra?: Record<string, unknown>;
  /** The frontmatter of the file this text replaces: its unknown keys and its shape are kept. */
  previous?: Record<string, unknown>;
  name?: string;
  /** ISO time of this save. */
  modified?: string;
}): string {
  const yamlText = frontmatterYaml(fields);
  const body = fields.body.replace(/\r\n/g, "\n").replace(/\s+$/, "");
  return `---\n${yamlText}\n---\n${body}\n`;
}

function frontmatterYaml(fields: Parameters<typeof serializeMemory>[0]): string {
  return yaml().stringify(frontmatterData(fields), { lineWidth: 0 }).trimEnd();
}

/** A place in a frontmatter: the keys and list indexes down to it (`["metadata", "owner"]`, `["tags", 1]`). */
export type FrontmatterPath = readonly (string | number)[];

/**
 * Where a frontmatter entry is in the file {@link serializeMemory} writes of `fields`, as a 1-based
 * line of the whole file (its `---` is line 1), for messages that point into it: the line of the
 * entry's key name (`part` "key"), or of line `valueLine` of its value (a multi-line value is a
 * block, one line a line; a value on one line is that line). Null when there is no such entry.
 *
 * @example
 * frontmatterLineOf({ description: "d", type: "user", body: "", name: "a", previous: { tags: ["x"] } }, ["tags", 0], "value") // 6
 */
export function frontmatterLineOf(
  fields: Parameters<typeof serializeMemory>[0],
  path: FrontmatterPath,
  part: "key" | "value",
  valueLine = 1,
): number | null {
  const { isMap, isNode, isScalar, LineCounter, parseDocument } = yaml();
  const lineCounter = new LineCounter();
  const document = parseDocument(frontmatterYaml(fields), { lineCounter });
  let node: unknown;
  if (part === "key") {
    const parent = path.length === 1 ? document.contents : document.getIn(path.slice(0, -1), true);
    const name = String(path.at(-1));
    if (isMap(parent))
      node = parent.items.find((pair) => isScalar(pair.key) && String(pair.key.value) === name)?.key;
  } else node = document.getIn(path, true);
  if (!isNode(node) || !node.range) return null;
  const line = lineCounter.linePos(node.range[0]).line + 1;
  // A block scalar's text starts on the line after its `|-`.
  const block = isScalar(node) && (node.type === "BLOCK_LITERAL" || node.type === "BLOCK_FOLDED");
  return part === "value" && block ? line + valueLine : line;
}

const OWN_KEYS = new Set(["name", "description", "type", "metadata", "modified"]);

function frontmatterData(fields: Parameters<typeof serializeMemory>[0]): Record<string, unknown> {
  const previous: Record<string, unknown> = { ...fields.extra, ...fields.previous };
  const previousMetadata = metadataOf(previous);
  const metadata = previousMetadata ? { ...previousMetadata } : null;
  const typeNested = metadata !== null && "type" in metadata;
  const modifiedNested =
    metadata !== null && ("modified" in metadata || (typeNested && !("modified" in previous)));
  const data: Record<string, unknown> = {};
  if (fields.name !== undefined) data.name = fields.name;
  else if (previous.name !== undefined) data.name = previous.name;
  data.description = fields.description;
  if (!typeNested || "type" in previous) data.type = fields.type;
  if (metadata !== null) {
    if (typeNested) metadata.type = fields.type;
    if (fields.modified !== undefined && modifiedNested) metadata.modified = fields.modified;
    data.metadata = metadata;
  } else if (previous.metadata !== undefined) data.metadata = previous.metadata;
  for (const [key, value] of Object.entries(previous)) if (!OWN_KEYS.has(key)) data[key] = value;
  if (fields.modified !== undefined && !modifiedNested) data.modified = fields.modified;
  else if (fields.modified === undefined && previous.modified !== undefined)
    data.modified = previous.modified;
  return data;
}

/**
 * `text` with the value of the `modified:` key its frontmatter already has (top level, or under
 * `metadata:`) set to `at`; any other text comes back unchanged, byte for byte. Raw-text writes
 * (an agent's Write/Edit of a memory) use it so an edit never keeps a stale `modified`.
 */
export function refreshModified(text: string, at: Date): string {
  const lines = text.split("\n");
  if (lines.length < 2 || !OPEN.test(lines[0])) return text;
  let inMetadata = false;
  for (let i = 1; i < lines.length && i < 200; i++) {
    const line = lines[i];
    if (CLOSE.test(line)) return text;
    if (/^\S/.test(line)) inMetadata = /^metadata:\s*\r?$/.test(line);
    const match = /^(modified:|[ \t]+modified:)[ \t]*[^\r]*?(\r?)$/.exec(line);
    if (match && (!/^\s/.test(line) || inMetadata)) {
      lines[i] = `${match[1]} ${at.toISOString()}${match[2]}`;
      return lines.join("\n");
    }
  }
  return text;
}

/**
 * `text` with top-level frontmatter keys set (a value) or removed (`undefined`), every other line
 * kept byte for byte: how the writer stamps provenance and anchors into text an agent wrote
 * (docs/design.md#provenance). A key's indented continuation lines go with it. Text without a
 * closed frontmatter comes back unchanged.
 *
 * @example
 * setFrontmatterKeys("---\ntype: user\n---\nbody", { source: "agent" }) // "---\ntype: user\nsource: agent\n---\nbody"
 */
export function setFrontmatterKeys(text: string, keys: Record<string, unknown>): string {
  const lines = text.split("\n");
  if (lines.length < 2 || !OPEN.test(lines[0])) return text;
  const close = lines.findIndex((line, i) => i > 0 && CLOSE.test(line));
  if (close < 0) return text;
  const names = new Set(Object.keys(keys));
  const kept: string[] = [];
  let dropping = false;
  for (const line of lines.slice(1, close)) {
    if (/^\S/.test(line)) {
      const key = /^["']?([^:"']+)["']?\s*:/.exec(line)?.[1]?.trim();
      dropping = key !== undefined && names.has(key);
    } else if (line.trim() === "") dropping = false;
    if (!dropping) kept.push(line);
  }
  const values = Object.fromEntries(Object.entries(keys).filter(([, value]) => value !== undefined));
  const crlf = lines[0].endsWith("\r") ? "\r" : "";
  const added =
    Object.keys(values).length === 0
      ? []
      : yaml()
          .stringify(values, { lineWidth: 0 })
          .trimEnd()
          .split("\n")
          .map((line) => `${line}${crlf}`);
  return [lines[0], ...kept, ...added, ...lines.slice(close)].join("\n");
}
