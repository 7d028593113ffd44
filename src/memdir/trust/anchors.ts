import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { relativeInside } from "../fs/inside.ts";
import { readRegularText } from "../fs/regular-file.ts";
import { hasControlCharacter } from "../fs/safe-path.ts";
import { readProjectMarker } from "../location/paths.ts";

/**
 * Stale anchors (docs/design.md#stale-anchors): the project files, folders, symbols, commands and
 * config keys a memory names, recorded by the writer in the frontmatter as `anchors:` with a short
 * content hash, so a memory about code that has since moved or vanished can say so. Checking is a
 * stat plus a hash of the named files only, never a walk of the project.
 */
export interface Anchor {
  /** Relative to the project root, `/` separators. */
  path: string;
  /** The first 12 hex digits of the SHA-256 of the file, or of the line defining `symbol`. */
  hash?: string;
  /** A symbol, command (`npm run build` → `build` in package.json) or config key defined in `path`. */
  symbol?: string;
  /** A folder (no hash: its contents change all the time). */
  dir?: boolean;
}

/** How one anchor no longer matches the project. */
export interface AnchorChange {
  anchor: Anchor;
  change: "vanished" | "changed";
  /** One line: `src/auth/login.ts no longer exists`. */
  message: string;
}

/** At most this many anchors per memory, and this many candidate paths looked at: the check stays bounded. */
export const MAX_ANCHORS = 8;
const MAX_CANDIDATES = 24;
/** Larger files are anchored by existence only (no hash, no symbol search). */
const MAX_HASHED_BYTES = 1_000_000;

const FILE_EXTENSION =
  /\.(?:[cm]?[jt]sx?|json5?|ya?ml|toml|ini|cfg|conf|env|md|py|rb|go|rs|java|kt|swift|c|h|cc|cpp|hpp|cs|php|sh|bash|zsh|sql|graphql|proto|css|scss|html|vue|svelte|lock|txt|xml|gradle|tf)$/i;
// A path-like word: `src/auth/login.ts`, `./scripts/x.sh`, `docs/`, `package.json`.
const PATH_WORD =
  /(?<=^|[\s`'"([<])(?:\.{1,2}\/)?[\w@.-]+(?:\/[\w@.-]+)*\/?(?=$|[\s`'")\]>:,;!?]|\.(?:\s|$))/gm;
const CODE_SPAN = /`([^`\n]{1,80})`/g;
const COMMAND = /\b(?:npm run|pnpm(?: run)?|yarn(?: run)?|bun run|make|just)\s+([A-Za-z][\w:.-]*)/g;
const COMMAND_FILES: Record<string, string[]> = {
  make: ["Makefile", "makefile", "GNUmakefile"],
  just: ["justfile", "Justfile"],
};

/** The short content hash anchors use. */
export function anchorHash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 12);
}

/** `text` as a regular expression that matches it literally. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The line of `text` that defines `symbol` (a declaration, a key, a make target), or null. */
export function definingLine(text: string, symbol: string): string | null {
  const name = escapeRegExp(symbol);
  const declaration = new RegExp(
    `\\b(?:function\\*?|class|interface|type|enum|const|let|var|def|fn|func|struct|trait|module|macro_rules!)\\s+${name}\\b`,
  );
  const key = new RegExp(
    `^\\s*(?:export\\s+)?["']?${name}["']?\\s*[:=]|^\\s*(?:async\\s+)?${name}\\s*\\([^)]*\\)\\s*[:{]`,
  );
  for (const line of text.split("\n")) if (declaration.test(line) || key.test(line)) return line.trim();
  return null;
}

async function statOrNull(file: string) {
  return fs.stat(file).catch(() => null);
}

async function readSmall(file: string): Promise<string | null> {
  const stat = await statOrNull(file);
  if (!stat?.isFile() || stat.size > MAX_HASHED_BYTES) return null;
  return readRegularText(file).catch(() => null);
}

/**
 * The project-relative form of a path word, or null when it points outside the project or holds
 * a control character or line separator (no project path memdir anchors does; see {@link anchorsOf}).
 */
function projectRelative(projectRoot: string, word: string): string | null {
  const cleaned = word.replace(/\/+$/, "");
  if (cleaned === "" || cleaned === "." || cleaned === ".." || /:\/\//.test(word)) return null;
  if (hasControlCharacter(word)) return null;
  const absolute = path.resolve(projectRoot, cleaned);
  const relative = relativeInside(projectRoot, absolute);
  return relative === null || relative === "" ? null : relative.split(path.sep).join("/");
}

function candidatePaths(text: string): string[] {
  const words = new Set<string>();
  for (const match of text.matchAll(PATH_WORD)) {
    // A path that ends a sentence ("See src/auth/login.ts.") keeps its full stop in the match.
    const word = /^\.{1,2}\/?$/.test(match[0]) ? match[0] : match[0].replace(/\.+$/, "");
    if (word.includes("/") || FILE_EXTENSION.test(word)) words.add(word);
    if (words.size >= MAX_CANDIDATES) break;
  }
  return [...words];
}

function candidateSymbols(text: string): string[] {
  const symbols = new Set<string>();
  for (const match of text.matchAll(CODE_SPAN)) {
    const span = match[1].trim().replace(/\(\)$/, "");
    if (/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/.test(span) && !FILE_EXTENSION.test(span)) {
      const last = span.split(".").at(-1)!;
      if (last.length >= 3) symbols.add(last);
    }
  }
  return [...symbols].slice(0, MAX_CANDIDATES);
}

/**
 * The anchors for a memory text: the project paths it names that exist (files hashed, folders
 * not), then the symbols, commands and config keys it names in backticks (or as `npm run x`,
 * `make x`) that one of those files, or the project's package.json / Makefile, defines — each with
 * the hash of its defining line. At most {@link MAX_ANCHORS}.
 *
 * @example
 * await findAnchors("login lives in `src/auth/login.ts` (`refreshToken`)", "/repo")
 * // [{path: "src/auth/login.ts", hash: "…"}, {path: "src/auth/login.ts", symbol: "refreshToken", hash: "…"}]
 */
export async function findAnchors(text: string, projectRoot: string): Promise<Anchor[]> {
  const anchors: Anchor[] = [];
  const files = new Map<string, string>();
  for (const word of candidatePaths(text)) {
    if (anchors.length >= MAX_ANCHORS) break;
    const relative = projectRelative(projectRoot, word);
    if (relative === null || anchors.some((a) => a.path === relative)) continue;
    const absolute = path.join(projectRoot, relative);
    const stat = await statOrNull(absolute);
    if (stat === null) continue;
    if (stat.isDirectory()) {
      anchors.push({ path: relative, dir: true });
      continue;
    }
    const content = await readSmall(absolute);
    anchors.push(content === null ? { path: relative } : { path: relative, hash: anchorHash(content) });
    if (content !== null) files.set(relative, content);
  }
  const wanted: { symbol: string; inFiles?: string[] }[] = candidateSymbols(text).map((symbol) => ({
    symbol,
  }));
  for (const match of text.matchAll(COMMAND)) {
    const tool = match[0].split(/\s+/)[0];
    wanted.push({ symbol: match[1], inFiles: COMMAND_FILES[tool] ?? ["package.json"] });
  }
  for (const { symbol, inFiles } of wanted) {
    if (anchors.length >= MAX_ANCHORS) break;
    if (anchors.some((a) => a.symbol === symbol)) continue;
    for (const file of inFiles ?? [...files.keys()]) {
      if (!files.has(file)) {
        const content = await readSmall(path.join(projectRoot, file));
        if (content === null) continue;
        files.set(file, content);
      }
      const line = definingLine(files.get(file)!, symbol);
      if (line === null) continue;
      anchors.push({ path: file, symbol, hash: anchorHash(line) });
      break;
    }
  }
  return anchors;
}

/**
 * Why one `anchors:` entry is not an anchor memdir reads, or null when it is: it needs a string
 * `path`, and neither it nor its `symbol` may hold a control character or line separator. The
 * writer never records one; a pulled or hand-written memory can, and the path would go into a
 * `note:` line under recall's header, forging lines there (docs/design.md#stale-anchors).
 */
function anchorRefusal(item: unknown): string | null {
  if (!item || typeof item !== "object" || typeof (item as Anchor).path !== "string") return "malformed";
  const { path: file, symbol } = item as Record<string, unknown>;
  if (hasControlCharacter(file as string)) return "a control character or line break in its path";
  if (typeof symbol === "string" && hasControlCharacter(symbol))
    return "a control character or line break in its symbol";
  return null;
}

/**
 * The `anchors:` entries of a frontmatter that are ignored for a control character or line
 * break in their path or symbol, as `memdir doctor` reports them: 1-based position and why.
 */
export function unsafeAnchors(data: Record<string, unknown>): { position: number; reason: string }[] {
  const raw = data.anchors;
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((item, index) => {
    const reason = anchorRefusal(item);
    return reason === null || reason === "malformed" ? [] : [{ position: index + 1, reason }];
  });
}

/** The `anchors:` of a frontmatter, the well-formed entries only (see {@link unsafeAnchors}). */
export function anchorsOf(data: Record<string, unknown>): Anchor[] {
  const raw = data.anchors;
  if (!Array.isArray(raw)) return [];
  const anchors: Anchor[] = [];
  for (const item of raw) {
    if (anchorRefusal(item) !== null) continue;
    const { path: file, hash, symbol, dir } = item as Record<string, unknown>;
    anchors.push({
      path: file as string,
      ...(typeof hash === "string" ? { hash } : {}),
      ...(typeof symbol === "string" ? { symbol } : {}),
      ...(dir === true ? { dir: true } : {}),
    });
  }
  return anchors.slice(0, MAX_ANCHORS);
}

/**
 * How a memory's anchors differ from the project now: each anchor whose path or symbol vanished,
 * and (unless `vanishedOnly`) each whose file or defining line changed. Reads only the named files.
 *
 * @example
 * await checkAnchors([{ path: "src/auth/login.ts", hash: "0a1b2c3d4e5f" }], "/repo")
 * // [{ change: "vanished", message: "src/auth/login.ts no longer exists", anchor }]
 */
export async function checkAnchors(
  anchors: readonly Anchor[],
  projectRoot: string,
  options: { vanishedOnly?: boolean } = {},
): Promise<AnchorChange[]> {
  const changes: AnchorChange[] = [];
  // Several anchors may name one file (a symbol each): it is read once.
  const contents = new Map<string, Promise<string | null>>();
  for (const anchor of anchors.slice(0, MAX_ANCHORS)) {
    const relative = projectRelative(projectRoot, anchor.path);
    if (relative === null) continue;
    const absolute = path.join(projectRoot, relative);
    const stat = await statOrNull(absolute);
    if (stat === null) {
      // One line per vanished path, however many anchors point into it.
      if (!changes.some((c) => c.change === "vanished" && c.anchor.path === anchor.path))
        changes.push({ anchor, change: "vanished", message: `${anchor.path} no longer exists` });
      continue;
    }
    if (anchor.dir || !anchor.hash || (options.vanishedOnly && !anchor.symbol)) continue;
    let reading = contents.get(absolute);
    if (reading === undefined) {
      reading = readSmall(absolute);
      contents.set(absolute, reading);
    }
    const content = await reading;
    if (content === null) continue;
    if (anchor.symbol) {
      const line = definingLine(content, anchor.symbol);
      if (line === null)
        changes.push({
          anchor,
          change: "vanished",
          message: `\`${anchor.symbol}\` is no longer defined in ${anchor.path}`,
        });
      else if (!options.vanishedOnly && anchorHash(line) !== anchor.hash)
        changes.push({
          anchor,
          change: "changed",
          message: `the line defining \`${anchor.symbol}\` in ${anchor.path} changed`,
        });
    } else if (anchorHash(content) !== anchor.hash) {
      changes.push({
        anchor,
        change: "changed",
        message: `${anchor.path} changed since the memory was saved`,
      });
    }
  }
  return changes;
}

/** The project root anchors of `memoryDir` resolve against: `given`, else its project marker's, else null. */
export async function anchorRoot(memoryDir: string, given?: string | null): Promise<string | null> {
  if (given) return path.resolve(given);
  return (await readProjectMarker(memoryDir))?.projectRoot ?? null;
}
