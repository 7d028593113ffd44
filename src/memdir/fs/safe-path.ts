import fsp from "node:fs/promises";
import path from "node:path";
import { MemdirError } from "../../errors.ts";
import { TEMP_NAME_OVERHEAD_BYTES } from "./atomic.ts";
import { isInside } from "./inside.ts";

/** Which rule refused a path; stable, for callers and tests that need to tell them apart. */
export type UnsafePathRule =
  | "empty"
  | "control-character"
  | "url-encoded"
  | "lookalike-character"
  | "backslash"
  | "drive"
  | "home"
  | "dot-dot"
  | "too-long"
  | "outside"
  | "memory-dir-symlink"
  | "symlink-outside"
  | "dangling-symlink"
  | "symlink-loop"
  | "not-a-folder"
  | "memory-dir-itself";

export type SafePathResult =
  | {
      ok: true;
      /** Absolute path of the file: the memory dir as given, joined with `file`. */
      path: string;
      /** Path relative to the memory dir, `/`-separated, symlinks inside the dir resolved. */
      file: string;
    }
  | { ok: false; rule: UnsafePathRule; reason: string };

/** Longest file-name component most file systems accept (bytes). */
const MAX_COMPONENT_BYTES = 255;
const MAX_PATH_BYTES = 4096;

/**
 * Characters that normalize (NFKC) or look like `.`, `/`, `\` or `:`: full-width forms, small
 * forms, dot leaders, division and fraction slashes. A model or a tool that "normalizes" a path
 * would turn them into a real traversal, so they are refused outright.
 */
const LOOKALIKE =
  /[\uFF0E\uFF0F\uFF3C\uFF1A\uFE52\uFE68\uFE55\u2024\u2025\u2026\u2044\u2215\u29F8\u29F9\u2216]/;
const URL_ESCAPE = /%[0-9A-Fa-f]{2}/;
// Control characters (C0, DEL, C1) and the Unicode line and paragraph separators: NUL truncates
// paths in C APIs; a line break (U+2028/2029 and NEL are one to some readers) breaks an index line
// and, in a name memdir shows on one line, forges lines of its own (docs/design.md#path-safety).
const CONTROL = /[\u0000-\u001F\u007F-\u009F\u2028\u2029]/;
const CONTROL_ALL = new RegExp(CONTROL.source, "g");

/**
 * Whether `text` holds a control character (C0, DEL, C1) or U+2028/2029: the one rule for the
 * names memdir writes (`fileNameRefusal`), carries in a sync, scans (a memory file so named is
 * left out) and prints on one line.
 */
export function hasControlCharacter(text: string): boolean {
  return CONTROL.test(text);
}

/**
 * `text` on one line: every character {@link hasControlCharacter} finds written as `\uXXXX`, so
 * a name or a note memdir puts in a line of its own can never start another line.
 *
 * @example escapeControlCharacters("a\nUser: b") // "a\\u000aUser: b"
 */
export function escapeControlCharacters(text: string): string {
  if (!CONTROL.test(text)) return text;
  return text.replace(
    CONTROL_ALL,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
const DRIVE = /^[A-Za-z]:/;

function countPathPunctuation(text: string): number {
  return text.match(/[./\\:]/g)?.length ?? 0;
}

/** A refused path: the rule it broke and why, in words. */
type Refused = Extract<SafePathResult, { ok: false }>;

function refuse(rule: UnsafePathRule, reason: string): Refused {
  return { ok: false, rule, reason };
}

function shown(requested: string): string {
  const characters = Array.from(requested); // never cut a surrogate pair in half
  return JSON.stringify(characters.length > 120 ? `${characters.slice(0, 120).join("")}…` : requested);
}

/** Checks that need no file system: the spelling of the request. */
function checkSpelling(requested: string, memoryDir: string): SafePathResult | null {
  const hint = `use a path relative to the memory directory ${memoryDir}, such as "feedback-testing.md"`;
  if (requested.trim() === "") return refuse("empty", `the path is empty; ${hint}`);
  if (CONTROL.test(requested)) {
    return refuse(
      "control-character",
      `the path ${shown(requested)} contains a NUL or control character; ${hint}`,
    );
  }
  if (URL_ESCAPE.test(requested)) {
    return refuse(
      "url-encoded",
      `the path ${shown(requested)} contains URL-encoded characters (%xx); write the plain characters instead; ${hint}`,
    );
  }
  if (
    LOOKALIKE.test(requested) ||
    countPathPunctuation(requested.normalize("NFKC")) > countPathPunctuation(requested)
  ) {
    return refuse(
      "lookalike-character",
      `the path ${shown(requested)} contains full-width or look-alike dots, slashes or colons; ${hint}`,
    );
  }
  if (requested.includes("\\")) {
    return refuse(
      "backslash",
      `the path ${shown(requested)} contains a backslash; separate folders with "/"; ${hint}`,
    );
  }
  if (DRIVE.test(requested)) {
    return refuse("drive", `the path ${shown(requested)} is a Windows drive path; ${hint}`);
  }
  const segments = requested.split("/");
  if (segments[0] === "~") {
    return refuse("home", `the path ${shown(requested)} starts with "~", which is not expanded; ${hint}`);
  }
  if (segments.includes("..")) {
    return refuse(
      "dot-dot",
      `the path ${shown(requested)} contains "..", which could leave the memory directory; ${hint}`,
    );
  }
  if (Buffer.byteLength(requested) > MAX_PATH_BYTES) {
    return refuse("too-long", `the path is longer than ${MAX_PATH_BYTES} bytes; ${hint}`);
  }
  if (segments.some((segment) => Buffer.byteLength(segment) > MAX_COMPONENT_BYTES)) {
    return refuse(
      "too-long",
      `a name in the path ${shown(requested)} is longer than ${MAX_COMPONENT_BYTES} bytes; use a shorter file name`,
    );
  }
  return null;
}

type RealPath = { ok: true; real: string } | { ok: false; rule: UnsafePathRule; at: string };

/**
 * The real path `target` would have: the nearest existing ancestor's real path plus the part that
 * does not exist yet. A symlink whose target is missing (dangling) is reported, never followed:
 * writing through it would create a file wherever it points.
 */
async function realPathOf(target: string): Promise<RealPath> {
  const tail: string[] = [];
  let current = target;
  // A concurrent writer may create `current` (rename of its temp file) between the failed
  // realpath and the lstat below: then it is looked at again, a bounded number of times.
  let retries = 3;
  for (;;) {
    try {
      const real = await fsp.realpath(current);
      return { ok: true, real: path.join(real, ...tail) };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ELOOP") return { ok: false, rule: "symlink-loop", at: current };
      if (code === "ENOTDIR") return { ok: false, rule: "not-a-folder", at: current };
      if (code !== "ENOENT") throw error;
    }
    const link = await fsp.lstat(current).catch(() => null);
    if (link && retries-- > 0) continue;
    if (link) return { ok: false, rule: "dangling-symlink", at: current };
    const parent = path.dirname(current);
    if (parent === current) return { ok: true, real: path.join(current, ...tail) };
    tail.unshift(path.basename(current));
    current = parent;
  }
}

export interface SafePathOptions {
  /**
   * Memory root. When given, the memory directory's real path must also lie inside the root's
   * real path (no symlinked `projects/…` folder pointing elsewhere).
   */
  root?: string;
}

/**
 * The memory dir's real path; refused when the directory itself is a symbolic link, cannot be
 * resolved, or really lives outside `root`.
 */
async function realMemoryDir(
  memoryDirPath: string,
  root: string | undefined,
): Promise<{ ok: true; real: string } | Refused> {
  const memoryDirStat = await fsp.lstat(memoryDirPath).catch(() => null);
  if (memoryDirStat?.isSymbolicLink()) {
    const target = await fsp.readlink(memoryDirPath).catch(() => "?");
    return refuse(
      "memory-dir-symlink",
      `the memory directory ${memoryDirPath} is a symbolic link (to ${target}); memdir does not write through it — ` +
        `pass the real directory with --dir`,
    );
  }
  const realMemory = await realPathOf(memoryDirPath);
  if (!realMemory.ok)
    return refuse(
      realMemory.rule,
      `the memory directory ${memoryDirPath} cannot be resolved (${realMemory.rule})`,
    );
  if (root) {
    const realRoot = await realPathOf(path.resolve(root));
    if (realRoot.ok && !isInside(realRoot.real, realMemory.real, { orSame: true })) {
      return refuse(
        "memory-dir-symlink",
        `the memory directory ${memoryDirPath} really lives at ${realMemory.real}, outside the memory root ${root}`,
      );
    }
  }
  return { ok: true, real: realMemory.real };
}

/** Why a requested path whose real path cannot be found is refused. */
function unresolvedRefusal(requested: string, rule: string): Refused {
  const where = shown(requested);
  if (rule === "dangling-symlink") {
    return refuse(
      "dangling-symlink",
      `the path ${where} goes through a symbolic link whose target does not exist`,
    );
  }
  if (rule === "symlink-loop") {
    return refuse("symlink-loop", `the path ${where} goes through a loop of symbolic links`);
  }
  return refuse("not-a-folder", `the path ${where} uses a file as if it were a folder`);
}

/**
 * Resolves a path a caller (often a model) asked for to a file inside the memory directory,
 * or says in one readable sentence why not. Relative paths are taken from the memory dir; an
 * absolute path is accepted only when it lies inside it. Everything is decided on real paths:
 * the nearest existing ancestor is resolved, so a file that does not exist yet can be checked,
 * and a differently-cased spelling on a case-insensitive file system cannot slip past.
 *
 * Refused: `..` segments, absolute paths elsewhere, `~`, NUL and control characters, URL
 * escapes (`%2e`, `%2f`, double-encoded `%252e`), full-width or look-alike dots and slashes,
 * backslashes, Windows drive and UNC forms, names over 255 bytes, symlinks (the file or any
 * folder) whose real path leaves the memory dir, dangling symlinks, symlink loops, and a memory
 * directory that is itself a symlink (its ancestors may be links, e.g. macOS `/tmp`; the
 * directory itself may not, since a planted `memory -> ~/.ssh` would redirect every write).
 *
 * @example
 * const result = await resolveInsideMemoryDir(memoryDir, "feedback-testing.md");
 * if (!result.ok) return { content: result.reason, isError: true };
 */
export async function resolveInsideMemoryDir(
  memoryDir: string,
  requested: string,
  options: SafePathOptions = {},
): Promise<SafePathResult> {
  const memoryDirPath = path.resolve(memoryDir);
  if (typeof requested !== "string") return refuse("empty", "the path must be a string");
  const spelling = checkSpelling(requested, memoryDirPath);
  if (spelling) return spelling;

  const realMemory = await realMemoryDir(memoryDirPath, options.root);
  if (!realMemory.ok) return realMemory;

  const candidate = path.isAbsolute(requested)
    ? path.resolve(requested)
    : path.resolve(memoryDirPath, requested);
  const resolved = await realPathOf(candidate);
  if (!resolved.ok) return unresolvedRefusal(requested, resolved.rule);
  if (!isInside(realMemory.real, resolved.real, { orSame: true })) {
    const lexicallyInside =
      isInside(memoryDirPath, candidate, { orSame: true }) ||
      isInside(realMemory.real, candidate, { orSame: true });
    if (lexicallyInside) {
      return refuse(
        "symlink-outside",
        `the path ${shown(requested)} goes through a symbolic link that leads outside the memory directory ` +
          `(to ${resolved.real}); memdir reads and writes only files inside ${memoryDirPath}`,
      );
    }
    return refuse(
      "outside",
      `the path ${shown(requested)} is outside the memory directory ${memoryDirPath}; ` +
        `use a path relative to it, such as "feedback-testing.md"`,
    );
  }
  const file = path.relative(realMemory.real, resolved.real).split(path.sep).join("/");
  if (file === "") {
    return refuse(
      "memory-dir-itself",
      `the path ${shown(requested)} names the memory directory itself, not a file in it`,
    );
  }
  return { ok: true, path: path.join(memoryDirPath, ...file.split("/")), file };
}

/**
 * {@link resolveInsideMemoryDir}, throwing instead of returning a refusal.
 *
 * @throws MemdirError("path-outside") with the readable reason.
 * @example
 * const { path } = await assertInsideMemoryDir(memoryDir, input.file);
 */
export async function assertInsideMemoryDir(
  memoryDir: string,
  requested: string,
  options: SafePathOptions = {},
): Promise<{ path: string; file: string }> {
  const result = await resolveInsideMemoryDir(memoryDir, requested, options);
  if (!result.ok) throw new MemdirError("path-outside", `memdir: path: ${result.reason}`);
  return { path: result.path, file: result.file };
}

/**
 * Why `file` (relative to the memory dir, `/`-separated, as {@link resolveInsideMemoryDir}
 * returns it) is not a memory file, or null when it is one: a memory file ends in `.md` and no
 * part of its path starts with `.`. Everything else in a memory dir is memdir's own state (the
 * history repository `.git`, `.memdir-project`, lock files, the extraction queue, caches) or not
 * memory at all (`run.sh`); an automatic writer that could change those could plant a command
 * that a later git call runs (`.git/config` with `core.fsmonitor`; docs/design.md#path-safety), so every writer
 * applies this one rule.
 *
 * @example memoryFileRefusal(".git/config") // "… is memdir's own state (a name starts with \".\") …"
 */
export function memoryFileRefusal(file: string): string | null {
  if (file.split("/").some((segment) => segment.startsWith(".")))
    return `${file} is memdir's own state or hidden (a name starts with "."), not a memory file`;
  if (!path.posix.basename(file).toLowerCase().endsWith(".md"))
    return `${file} is not a memory file (memory files end in .md)`;
  return null;
}

// Names Windows reserves for devices, with any extension (`con.md`, `LPT1.notes.md`).
const WINDOWS_RESERVED =
  /^(?:con|prn|aux|nul|com[0-9\u00b9\u00b2\u00b3]|lpt[0-9\u00b9\u00b2\u00b3])(?:\..*)?$/i;
// One part of letters, digits, `-`, `_` and inner dots, ending in neither a dot nor a space.
const PLAIN_NAME = /^[A-Za-z0-9_-](?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?$/;
// Characters NTFS, exFAT and FAT cannot hold; `<` and `>` also end an index line's `<…>` target.
const NOT_PORTABLE = /[<>:"|?*]/;

/**
 * Why `file` (relative, `/`-separated, NFC) cannot be the name of a new memory, or null when it
 * can: no control character or backslash, and every part a name that the common file systems hold (no `<>:"|?*`, no Windows
 * device name, no trailing dot or space, at most 255 bytes) and that an index line carries back
 * unchanged; the file's own name must leave room for the writer's temp name (docs/design.md#path-safety).
 *
 * @example fileNameRefusal("a>b.md") // "… has \">\" …"
 */
export function fileNameRefusal(file: string): string | null {
  // Most names are one plain ASCII part well under the byte limit: one pattern settles them (sync
  // asks this of every file at 20,000; the full walk below took 13-36 ms there).
  if (file.length <= 200 && PLAIN_NAME.test(file) && !WINDOWS_RESERVED.test(file)) return null;
  // What the writer's path check refuses in any path (checkSpelling), named here too: sync asks
  // this of names it pushes and pulls, and a name one machine pushed that every other refuses to
  // write only piled up in the remote (test/sync/sync.test.ts).
  if (CONTROL.test(file)) return `${JSON.stringify(file)} has a control character`;
  if (file.includes("\\")) return `${JSON.stringify(file)} has "\\", which separates folders on Windows`;
  const segments = file.split("/");
  for (const [index, segment] of segments.entries()) {
    if (segment === "." || segment === "..") continue; // the containment check's business
    const bad = NOT_PORTABLE.exec(segment);
    if (bad)
      return `${JSON.stringify(file)} has "${bad[0]}", which common file systems and index lines cannot hold`;
    if (WINDOWS_RESERVED.test(segment))
      return `${JSON.stringify(file)} uses the reserved device name "${segment.split(".")[0]}" (Windows cannot hold it)`;
    if (/[. ]$/.test(segment))
      return `${JSON.stringify(file)} has a name ending in a dot or a space (Windows cannot hold it)`;
    const limit =
      index === segments.length - 1 ? MAX_COMPONENT_BYTES - TEMP_NAME_OVERHEAD_BYTES : MAX_COMPONENT_BYTES;
    if (Buffer.byteLength(segment, "utf8") > limit)
      return `${JSON.stringify(file)} has a name over ${limit} bytes (the limit is 255 bytes with the writer's temp name)`;
  }
  return null;
}
