import { isUtf8 } from "node:buffer";
import path from "node:path";
import { MemdirError } from "../../errors.ts";
import { readRegularFile } from "../fs/regular-file.ts";
import { parseFrontmatter } from "./frontmatter.ts";
import { defaultTitle, MAX_HOOK_CHARS, oneLine, shorten } from "./memory-names.ts";

/** Load limits of `MEMORY.md` (docs/design.md#the-index). */
export const INDEX_MAX_LINES = 200;
export const INDEX_MAX_BYTES = 25_000;
export const INDEX_FILE = "MEMORY.md";

export type IndexLimit = "lines" | "bytes";

export interface IndexRead {
  path: string;
  exists: boolean;
  /** What goes into the context: the index within its limits, plus the warning line when cut. */
  content: string;
  /** The whole file as on disk ("" when missing). */
  raw: string;
  /** The limit that decided where the content ends (`bytes` when both cut), or `false`. */
  truncated: false | IndexLimit;
  /** Every limit the whole file exceeds. */
  limitsExceeded: IndexLimit[];
  /** Lines and UTF-8 bytes of the whole (trimmed) file. */
  lines: number;
  bytes: number;
}

/** One pointer line `- [Title](file.md) — hook`. */
export interface IndexEntry {
  title: string;
  file: string;
  hook: string;
  /** 1-based line number in the text it was parsed from (0 for entries not from a text). */
  lineNumber: number;
}

/**
 * Reads `MEMORY.md` with the load limits of docs/design.md#the-index: at most 200 lines and 25,000 bytes (cut at the
 * last newline under the byte cap). When a limit cuts it, a warning line names the limit and asks
 * for one short line per entry. A missing index reads as empty.
 *
 * @example
 * const index = await readIndex(memoryDir);
 * if (index.truncated) console.warn(index.content.split("\n").at(-1));
 */
export async function readIndex(memoryDir: string): Promise<IndexRead> {
  const indexPath = path.join(memoryDir, INDEX_FILE);
  let bytes: Buffer;
  try {
    ({ bytes } = await readRegularFile(indexPath));
  } catch (error) {
    if (error instanceof MemdirError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") {
      return {
        path: indexPath,
        exists: false,
        content: "",
        raw: "",
        truncated: false,
        limitsExceeded: [],
        lines: 0,
        bytes: 0,
      };
    }
    throw new MemdirError("io", `index: cannot read ${indexPath}: ${code ?? String(error)}`, {
      cause: error,
    });
  }
  const capped = bytes.length > BYTE_CAP_MIN_BYTES ? capIndexBytes(bytes) : null;
  if (capped === null) {
    const raw = bytes.toString("utf8");
    return { path: indexPath, exists: true, raw, ...capIndex(raw) };
  }
  let raw: string | undefined;
  return {
    path: indexPath,
    exists: true,
    get raw() {
      raw ??= bytes.toString("utf8");
      return raw;
    },
    ...capped,
  };
}

/**
 * Above this size the limits are applied to the bytes ({@link capIndexBytes}). Session start
 * reads the index on every session: at 20,000 memories MEMORY.md is 2.8 MB, and decoding,
 * trimming and splitting all of it cost the memory helper ~9 ms of its ~35 ms (docs/design.md#the-prompt-hook-process).
 */
const BYTE_CAP_MIN_BYTES = 64 * 1024;
/** How much of each end is decoded to find where the trimmed text starts and ends. */
const TRIM_WINDOW_BYTES = 4096;

/**
 * {@link capIndex} of `bytes` as UTF-8, computed on the bytes: only each end and the part that is
 * kept are decoded, and lines are counted as newline bytes. Null when it cannot be exact this way
 * (not valid UTF-8, whose replacement characters change the byte count; an end all whitespace
 * for a whole window): the caller decodes the whole text instead.
 */
export function capIndexBytes(
  bytes: Buffer,
): Pick<IndexRead, "content" | "truncated" | "limitsExceeded" | "lines" | "bytes"> | null {
  if (!isUtf8(bytes)) return null;
  // String.prototype.trim strips U+FEFF too, so it also drops the BOM capIndex removes first.
  const head = bytes.toString("utf8", 0, Math.min(bytes.length, TRIM_WINDOW_BYTES));
  const headKept = head.trimStart();
  const tail = bytes.toString("utf8", Math.max(0, bytes.length - TRIM_WINDOW_BYTES));
  const tailKept = tail.trimEnd();
  const start = Buffer.byteLength(head.slice(0, head.length - headKept.length));
  const end = bytes.length - Buffer.byteLength(tail.slice(tailKept.length));
  // A window cut inside a character decodes to U+FFFD there; that character may be whitespace
  // (U+3000 is 3 bytes), so the text must start and end well inside the windows.
  const inside = TRIM_WINDOW_BYTES - 4;
  if (start >= inside || bytes.length - end >= inside || end - start <= TRIM_WINDOW_BYTES) return null;
  const trimmed = bytes.subarray(start, end);
  let lines = 1;
  let kept = trimmed.length; // where the first INDEX_MAX_LINES lines end
  for (let at = trimmed.indexOf(0x0a); at >= 0; at = trimmed.indexOf(0x0a, at + 1)) {
    if (lines === INDEX_MAX_LINES) kept = at;
    lines++;
  }
  const limitsExceeded = indexLimitsExceeded(lines, trimmed.length);
  if (limitsExceeded.length === 0) return null;
  let truncated: IndexLimit = "lines";
  let contentEnd = kept;
  if (kept > INDEX_MAX_BYTES) {
    truncated = "bytes";
    contentEnd = byteCapEnd(trimmed);
  }
  return {
    content: `${trimmed.toString("utf8", 0, contentEnd)}\n\n${indexWarning(limitsExceeded, lines, trimmed.length)}`,
    truncated,
    limitsExceeded,
    lines,
    bytes: trimmed.length,
  };
}

/** Applies the index limits to `raw` (pure; see {@link readIndex}). */
export function capIndex(
  raw: string,
): Pick<IndexRead, "content" | "truncated" | "limitsExceeded" | "lines" | "bytes"> {
  const trimmed = raw.replace(/^\uFEFF/, "").trim();
  const allLines = trimmed === "" ? [] : trimmed.split("\n");
  const lines = allLines.length;
  const bytes = Buffer.byteLength(trimmed, "utf8");
  const limitsExceeded = indexLimitsExceeded(lines, bytes);
  if (limitsExceeded.length === 0)
    return { content: trimmed, truncated: false, limitsExceeded, lines, bytes };
  let content = limitsExceeded.includes("lines") ? allLines.slice(0, INDEX_MAX_LINES).join("\n") : trimmed;
  let truncated: IndexLimit = "lines";
  const encoded = Buffer.from(content, "utf8");
  if (encoded.length > INDEX_MAX_BYTES) {
    truncated = "bytes";
    content = encoded.toString("utf8", 0, byteCapEnd(encoded));
  }
  return {
    content: `${content}\n\n${indexWarning(limitsExceeded, lines, bytes)}`,
    truncated,
    limitsExceeded,
    lines,
    bytes,
  };
}

/**
 * Where text longer than {@link INDEX_MAX_BYTES} is cut: at its last newline under the cap, or
 * (a first line that long) at the cap, moved back to a character's first byte.
 */
function byteCapEnd(encoded: Buffer): number {
  const cut = encoded.lastIndexOf(0x0a, INDEX_MAX_BYTES);
  let end = cut > 0 ? cut : INDEX_MAX_BYTES;
  while (end > 0 && (encoded[end] & 0xc0) === 0x80) end--; // only matters without any newline
  return end;
}

/** The limits a text of `lines` lines and `bytes` bytes exceeds. */
export function indexLimitsExceeded(lines: number, bytes: number): IndexLimit[] {
  const exceeded: IndexLimit[] = [];
  if (lines > INDEX_MAX_LINES) exceeded.push("lines");
  if (bytes > INDEX_MAX_BYTES) exceeded.push("bytes");
  return exceeded;
}

/** The warning line for an index over its limits (also given to a writer that pushed it over). */
export function indexWarning(limits: IndexLimit[], lines: number, bytes: number): string {
  const parts: string[] = [];
  if (limits.includes("lines")) parts.push(`${lines} lines (limit ${INDEX_MAX_LINES})`);
  if (limits.includes("bytes")) parts.push(`${bytes} bytes (limit ${INDEX_MAX_BYTES})`);
  return `> WARNING: ${INDEX_FILE} is ${parts.join(" and ")}, so only part of it was loaded. Keep each index entry to one short line and move details into the memory files.`;
}

// `- [Title](file.md) — hook`: the title may hold escaped brackets, the target may be `<…>`
// (spaces or parentheses in a file name), the hook separator may be an em dash, en dash, hyphen or colon.
// The `s` flag: a hook holding U+2028 or U+2029 (which `.` would stop at) still parses.
const ENTRY = /^\s*[-*+]\s+\[((?:\\.|[^\]\\])*)\]\((?:<([^>]+)>|([^()\s]+))\)(.*)$/s;

/**
 * Parses the pointer lines of an index (pure). Lines that are not pointers (headings, prose,
 * blank lines) are ignored.
 *
 * @example
 * parseIndex("- [Real DB](feedback-real-database.md) — login tests hit a real DB")[0].file // "feedback-real-database.md"
 */
export function parseIndex(text: string): IndexEntry[] {
  const entries: IndexEntry[] = [];
  const lines = text.replace(/^\uFEFF/, "").split("\n");
  for (let i = 0; i < lines.length; i++) {
    const match = ENTRY.exec(lines[i].replace(/\r$/, ""));
    if (!match) continue;
    const target = match[2] ?? match[3];
    entries.push({
      title: match[1].replace(/\\(.)/g, "$1"),
      file: normalizeTarget(target),
      hook: match[4].replace(/^\s*[—–:-]+/, "").trim(),
      lineNumber: i + 1,
    });
  }
  return entries;
}

/** A link target as a memory-dir-relative path: no `./`, `%20` decoded, `/` separators. */
function normalizeTarget(target: string): string {
  let decoded = target;
  try {
    decoded = decodeURI(target);
  } catch {
    // keep it as written
  }
  return decoded.replace(/^(\.\/)+/, "").normalize("NFC");
}

/**
 * Formats one pointer line (pure): `- [Title](file.md) — hook`, on one line, with brackets in the
 * title escaped and file names holding spaces or parentheses wrapped in `<…>`.
 */
export function formatIndexLine(entry: { title: string; file: string; hook?: string }): string {
  const title = oneLine(entry.title).replace(/([[\]\\])/g, "\\$1");
  const target = /[\s()<>]/.test(entry.file) ? `<${entry.file}>` : entry.file;
  const hook = oneLine(entry.hook ?? "");
  return hook ? `- [${title}](${target}) — ${hook}` : `- [${title}](${target})`;
}

/**
 * The pointer line sync's rebuild gives a memory file that came in (pure): the frontmatter's
 * `title` (shortened), else a title made from the file name, and the description as the hook.
 * The quarantine reads a file's line through this same function, since the title and the
 * description, each harmless alone, are one sentence there (docs/design.md#quarantine).
 */
export function indexEntryOf(file: string, text: string): { file: string; title: string; hook: string } {
  const data = parseFrontmatter(text).data;
  const description = oneLine(String(data.description ?? ""));
  const named = oneLine(String(data.title ?? ""));
  return {
    file,
    title: shorten(named, 60) || defaultTitle(file, description),
    hook: shorten(description, MAX_HOOK_CHARS),
  };
}

/**
 * Adds or replaces the pointer line for `entry.file` (pure). An existing line for the same file is
 * replaced in place (and any duplicates dropped); otherwise the line is appended.
 */
export function upsertIndexLine(text: string, entry: { title: string; file: string; hook?: string }): string {
  const line = formatIndexLine(entry);
  const file = normalizeTarget(entry.file);
  const lines = splitLines(text);
  const out: string[] = [];
  let placed = false;
  for (const current of lines) {
    if (pointsAt(current, file)) {
      if (!placed) out.push(line);
      placed = true;
    } else out.push(current);
  }
  if (!placed) {
    while (out.length > 0 && out[out.length - 1].trim() === "") out.pop();
    out.push(line);
  }
  return joinLines(out);
}

/**
 * An index text taking many {@link upsertIndexLine} calls: each file's pointer lines are found
 * once, so an upsert costs what its line costs, not a parse of the whole index. The text it gives
 * is what the same upserts one after another give. A batch of saves (`saveMemoriesTogether`)
 * re-parsed a 20,000-line index once per memory: quadratic in an offline dream at 20,000
 * (docs/benchmarks.md, "Whole commands at 20,000 memories").
 */
export class IndexLines {
  /** The lines; null where a duplicate pointer line was dropped. */
  private readonly lines: (string | null)[];
  /** Each file's first pointer line (its duplicates are dropped by the first upsert). */
  private readonly pointers = new Map<string, { entry: IndexEntry; at: number[] }>();

  constructor(text: string) {
    this.lines = splitLines(text);
    this.lines.forEach((line, at) => {
      const entry = line === null ? undefined : parseIndex(line)[0];
      if (entry === undefined) return;
      const known = this.pointers.get(entry.file);
      if (known) known.at.push(at);
      else this.pointers.set(entry.file, { entry: { ...entry, lineNumber: at + 1 }, at: [at] });
    });
  }

  /** The first pointer line for `file`, as {@link parseIndex} reads it. */
  entryFor(file: string): IndexEntry | undefined {
    return this.pointers.get(file)?.entry;
  }

  /** {@link upsertIndexLine} on the current lines. */
  upsert(entry: { title: string; file: string; hook?: string }): void {
    const line = formatIndexLine(entry);
    const file = normalizeTarget(entry.file);
    const known = this.pointers.get(file);
    let at: number;
    if (known) {
      at = known.at[0];
      this.lines[at] = line;
      for (const duplicate of known.at.slice(1)) this.lines[duplicate] = null;
    } else {
      const lines = this.lines;
      while (lines.length > 0) {
        const last = lines[lines.length - 1];
        if (last !== null && last.trim() !== "") break;
        lines.pop();
      }
      at = lines.push(line) - 1;
    }
    // Keyed as a later upsert finds it: by the file its line reads back as.
    this.pointers.delete(file);
    const parsed = parseIndex(line)[0];
    if (parsed === undefined) return;
    const other = this.pointers.get(parsed.file);
    const lines = other ? [...other.at, at].sort((a, b) => a - b) : [at];
    const first = lines[0] === at ? { ...parsed, lineNumber: at + 1 } : (other?.entry ?? parsed);
    this.pointers.set(parsed.file, { entry: first, at: lines });
  }

  /** The index text now. */
  text(): string {
    return joinLines(this.lines.filter((line): line is string => line !== null));
  }
}

/** Removes every pointer line for `file` (pure). Other lines are kept as they are. */
export function removeIndexLine(text: string, file: string): string {
  const target = normalizeTarget(file);
  const lines = splitLines(text);
  const kept = lines.filter((line) => !pointsAt(line, target));
  return kept.length === lines.length ? text : joinLines(kept);
}

/**
 * Applies many pointer changes in one pass (pure): drops the lines for `remove`, keeps only the
 * first line for each file, then appends `add` for files without a line. Linear in the index,
 * where one {@link removeIndexLine} / {@link upsertIndexLine} call per change re-parses the whole
 * text each time (quadratic: `doctor --fix` at 20,000 memories held the lock 682 s, docs/design.md#the-index).
 */
export function applyIndexChanges(
  text: string,
  changes: { remove?: ReadonlySet<string>; add?: readonly { title: string; file: string; hook?: string }[] },
): string {
  const seen = new Set<string>();
  const kept: string[] = [];
  let dropped = false;
  for (const line of splitLines(text)) {
    const entry = parseIndex(line)[0];
    if (entry !== undefined) {
      if (changes.remove?.has(entry.file) || seen.has(entry.file)) {
        dropped = true;
        continue;
      }
      seen.add(entry.file);
    }
    kept.push(line);
  }
  const added = (changes.add ?? []).filter((entry) => {
    const file = normalizeTarget(entry.file);
    if (seen.has(file)) return false;
    seen.add(file);
    return true;
  });
  if (!dropped && added.length === 0) return text;
  if (added.length > 0) while (kept.length > 0 && kept[kept.length - 1].trim() === "") kept.pop();
  return joinLines([...kept, ...added.map(formatIndexLine)]);
}

function pointsAt(line: string, file: string): boolean {
  const entry = parseIndex(line)[0];
  return entry !== undefined && entry.file === file;
}

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

function joinLines(lines: string[]): string {
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}
