import { createHash } from "node:crypto";
import { lstatSync, type Stats } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { MemdirError } from "../errors.ts";
import { yieldToEventLoop } from "../event-loop.ts";
import { conflictOf } from "../memdir/format/conflicts.ts";
import { parseFrontmatter } from "../memdir/format/frontmatter.ts";
import {
  applyIndexChanges,
  formatIndexLine,
  INDEX_FILE,
  indexEntryOf,
  indexLimitsExceeded,
  parseIndex,
} from "../memdir/format/index-file.ts";
import { openRegularFileNoFollow, readRegularFile, utf8OrNull } from "../memdir/fs/regular-file.ts";
import { describeFindings } from "../memdir/trust/quarantine.ts";
import { newInstructions } from "../memdir/trust/quarantine-diff.ts";
import type { ProgressSink } from "../types.ts";
import { listByBytes, NAME_NOT_UTF8, syncNameRefusal } from "./file-names.ts";
import { blobId, isRegularMode } from "./repository.ts";

// The memory dir's side of a sync: which files it holds (and which never leave it), their git
// blob ids, and MEMORY.md rebuilt after a merge (docs/design.md#sync).

/** One memory file as read for a sync. */
export interface LocalFile {
  /** Its git blob id, computed here (or taken from the stat cache), so unchanged files cost no git call. */
  blob: string;
  /** True when its frontmatter marks it as a conflict file (src/memdir/format/conflicts.ts). */
  conflict: boolean;
  /**
   * Its text: read now, or on demand when the stat cache vouched for it. Read on demand, a file
   * whose bytes no longer have `blob` (changed since the listing, or a cache entry that was
   * wrong) throws: the decision was made on the other text, and the next sync takes the new one.
   */
  text(): Promise<string>;
  /** True when `blob` is the stat cache's, not hashed by this read. */
  vouched?: true;
}

/** Why a file the stat cache vouched for is skipped when its bytes no longer have the cached blob. */
export const CHANGED_SINCE_READ = "changed while this sync ran; the next sync takes it";

/**
 * The reason to name in `skipped` for a `MemdirError` met on `file`: its message without the
 * `memdir: ` prefix, and without `sync: <file> ` where the message names the file itself.
 */
export function skipReason(file: string, error: MemdirError): string {
  const message = error.message.replace(/^memdir: /, "");
  const named = `sync: ${file} `;
  return message.startsWith(named) ? message.slice(named.length) : message;
}

/** True when a memory's frontmatter says `visibility: private` (or `metadata: {visibility: private}`): it never leaves the machine. */
export function isPrivate(text: string): boolean {
  if (!/^\uFEFF?---/.test(text) || !/visibility/.test(text)) return false;
  // Claude Code writes its own keys under `metadata:`, where memdir reads `type` too (docs/format.md).
  const data = parseFrontmatter(text).data;
  const metadata = data.metadata;
  const nested =
    metadata !== null && typeof metadata === "object"
      ? (metadata as Record<string, unknown>).visibility
      : undefined;
  return [data.visibility, nested].some(
    (value) => typeof value === "string" && value.trim().toLowerCase() === "private",
  );
}

/**
 * Why a file from the remote is not written here, or null when it may be: regular files only (no
 * symbolic link or submodule), for the user's remote nothing under `team/`, a name that is UTF-8
 * (`entry.notUtf8Name`, src/sync/repository.ts listFolder) and that every memdir writes
 * ({@link syncNameRefusal}, the rule the pushing side holds names by).
 */
export function incomingRefusal(
  file: string,
  entry: { mode: string; notUtf8Name?: true },
  excludeTeam: boolean,
): string | null {
  if (!isRegularMode(entry.mode)) return "not a regular file in the remote";
  if (excludeTeam && file.startsWith("team/")) return "team memory syncs with the team remote";
  if (entry.notUtf8Name) return NAME_NOT_UTF8;
  return syncNameRefusal(file);
}

/** What a sync reads from the memory dir: its memory files, and the files held back with why. */
export interface LocalSide {
  files: Map<string, LocalFile>;
  held: Map<string, string>;
  index: string;
  /**
   * True when a memory file has more than one hard link: it can change through a path outside the
   * memory dir, where no watch of it sees the write (docs/design.md#sync-stat-cache), so no change
   * watch vouches for this read.
   */
  hardLinked?: true;
  /**
   * A digest of the listing, each file's size, times and inode, and the index's bytes, when every
   * file's stat vouches for the text read (none within the racy window, none hard-linked): a later
   * listing with the same digest found the same texts ({@link readLocalSideUnlessUnchanged}).
   * Computed when asked: only a quiet sync keeps one, and a sync with changes has no use for it.
   */
  statDigest?: () => string;
  /**
   * The stat cache after this read: what the next read may trust without opening a file. Replaced
   * by a copy without the entry when a file it vouched for turns out not to have the entry's blob
   * ({@link LocalFile.text}, {@link unchangedSinceRead}): the next read hashes that file afresh.
   */
  cache: StatCache;
}

/**
 * What one memory file was when it was last read (docs/design.md#sync-stat-cache): its size,
 * modification and change times, inode, and what reading it found: its blob id, whether it is a
 * conflict file, or why it is held. An entry is trusted only while all four stat fields are
 * unchanged, so a file rewritten with its size and mtime restored is read again (its ctime and,
 * after a rename over it, its inode differ).
 */
export interface StatEntry {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  blob: string;
  conflict?: true;
  held?: string;
}

/** The stat cache of one folder: file (relative, `/`-separated) → entry. */
export type StatCache = Record<string, StatEntry>;

/**
 * How recent a file's mtime or ctime may be, relative to when it was stat'ed, for its entry to be
 * kept: a write in the same timestamp tick as the stat (2 s on FAT, 1 s on HFS+ and some network
 * file systems) could leave every stat field as it was, so such a file is read again next time.
 */
const RACY_MS = 2_000;

type StatFields = Pick<StatEntry, "size" | "mtimeMs" | "ctimeMs" | "ino"> & { nlink?: number };

function sameStat(entry: StatEntry | undefined, stat: StatFields): entry is StatEntry {
  return (
    entry !== undefined &&
    entry.size === stat.size &&
    entry.mtimeMs === stat.mtimeMs &&
    entry.ctimeMs === stat.ctimeMs &&
    entry.ino === stat.ino
  );
}

const NOT_UTF8 = "not valid UTF-8 text: not synced (memdir never rewrites bytes it cannot read as text)";
const NOT_PUSHED = "not pushed: no other machine's memdir would write it";
const PRIVATE = "visibility: private (never leaves this machine)";

/**
 * The bytes of `full` and the stat of what was opened, the stat taken before the read (a write
 * during the read leaves a stat the next sync does not trust). Opened with `O_NOFOLLOW` and
 * `O_NONBLOCK`: a file swapped for a link after the listing is never read through, and a FIFO
 * never blocks; null when it is gone or not a regular file now.
 */
async function readRegular(full: string): Promise<{ bytes: Buffer; stat: StatFields } | null> {
  return readRegularFile(full, { open: openRegularFileNoFollow }).catch(() => null);
}

/** The text of `full` while it still hashes to `blob`; null when it changed, is gone or is not text. */
async function textOfBlob(full: string, blob: string): Promise<string | null> {
  const read = await readRegular(full);
  const text = read === null ? null : utf8OrNull(read.bytes);
  return text !== null && blobId(text) === blob ? text : null;
}

/**
 * The text of a file the stat cache vouched for, read when a sync needs it. Bytes that no longer
 * hash to the entry's blob mean the file changed since the listing or the entry was wrong (a
 * damaged or hand-edited stat-cache.json, one a buggy version wrote): either way the entry is
 * dropped (`forget`), so the next read hashes the file instead of trusting the entry again, which
 * skipped the file on every sync, never pushed (docs/design.md#sync-stat-cache, "Read later, checked").
 */
function readLater(full: string, file: string, blob: string, forget: () => void): () => Promise<string> {
  return async () => {
    const text = await textOfBlob(full, blob);
    if (text === null) {
      forget();
      throw new MemdirError("conflict", `sync: ${file} ${CHANGED_SINCE_READ}`);
    }
    return text;
  };
}

/**
 * True while `file` is as `local` read it: the same blob, or still absent when the read found no
 * such file. Asked right before a pulled write or deletion replaces it, under the writer lock
 * (docs/design.md#sync-stat-cache, "Written only over what was read"). A file absent then and
 * now costs one `lstat` (a first pull of 2,000 reads nothing), one this read hashed whose stat
 * still equals the entry it kept is not opened, and any other is read and hashed: one the stat
 * cache vouched for included, whose entry may be wrong (then dropped, as {@link LocalFile.text}
 * does), so a wrong entry never lets a pulled write replace a text no decision saw.
 */
export async function unchangedSinceRead(
  memoryDir: string,
  local: LocalSide,
  file: string,
): Promise<boolean> {
  const full = path.join(memoryDir, file);
  // Synchronous, as the listing's: 2,000 promise lstats took 90-220 ms on a loaded box, these 20-30.
  // Unreadable counts as absent: the write says what it finds, or the read below fails.
  const stat = statOrUndefined(full);
  const seen = local.files.get(file);
  if (seen === undefined) return stat === undefined;
  if (stat === undefined || !stat.isFile()) return false;
  if (seen.vouched)
    return seen.text().then(
      () => true,
      () => false,
    );
  const entry = local.cache[file];
  if (entry?.blob === seen.blob && sameStat(entry, stat)) return true;
  return (await textOfBlob(full, seen.blob)) !== null;
}

/**
 * Reads every memory file of `memoryDir` (not MEMORY.md, nothing in a dot-folder, no temp files;
 * with `excludeTeam`, nothing under `team/`). A symbolic link or a `visibility: private` memory
 * is held: it never leaves the machine; so is a name the pulling side refuses (`syncNameRefusal`,
 * a name that is not UTF-8 included). A file whose stat matches its `cache` entry is not
 * opened (docs/design.md#sync-stat-cache); `nowMs` is when the listing starts, for the entries'
 * racy rule.
 */
export async function readLocalSide(
  memoryDir: string,
  excludeTeam: boolean,
  cache: StatCache = {},
  nowMs: number = Date.now(),
  progress?: ProgressSink,
): Promise<LocalSide> {
  return readListed(memoryDir, await listLocal(memoryDir, excludeTeam), cache, nowMs, progress);
}

/**
 * {@link readLocalSide}, or null when nothing in the memory dir changed since the read whose
 * {@link LocalSide.statDigest} is `stats`: the same files, each with the same size, times and
 * inode, and the same index (docs/design.md#sync-stat-cache, "A quiet folder by its stats"). The
 * stat cache (`cache`, 2.7 MB of JSON at 20,000 memories) is read only when something did change,
 * and then each file is stat'ed once for both.
 */
export async function readLocalSideUnlessUnchanged(
  memoryDir: string,
  excludeTeam: boolean,
  cache: () => Promise<StatCache | undefined>,
  stats: string | undefined,
  nowMs: number,
  progress?: ProgressSink,
): Promise<LocalSide | null> {
  const listing = await listLocal(memoryDir, excludeTeam);
  if (stats === undefined) return readListed(memoryDir, listing, (await cache()) ?? {}, nowMs, progress);
  const { wanted } = listing;
  // Four numbers and a flag per file, not a Stats object kept per file: at 20,000 memories the
  // objects kept alive until the comparison were most of a quiet sync's garbage collection.
  const taken: TakenStats = {
    fields: new Float64Array(wanted.length * 4),
    flags: new Uint8Array(wanted.length),
  };
  for (let start = 0; start < wanted.length; start += STAT_SLICE) {
    if (start > 0) await yieldToEventLoop();
    progress?.("checking memory files", start, wanted.length);
    const end = Math.min(wanted.length, start + STAT_SLICE);
    for (let i = start; i < end; i++) putStat(taken, i, statOrUndefined(path.join(memoryDir, wanted[i])));
  }
  const indexBytes = await readIndexBytes(memoryDir);
  if (
    taken.flags.every((flag) => flag === REGULAR) &&
    statDigestOf(wanted, taken.fields, listing.held, indexBytes) === stats
  ) {
    if (wanted.length > 0) progress?.("checking memory files", wanted.length, wanted.length);
    return null;
  }
  return readListed(memoryDir, listing, (await cache()) ?? {}, nowMs, progress, { taken, indexBytes });
}

/**
 * The stats of a listing's files, by position: `fields` holds the size, mtimeMs, ctimeMs and
 * inode of each; `flags` {@link REGULAR} (a regular file), {@link LINKED} (more than one link).
 */
interface TakenStats {
  fields: Float64Array;
  flags: Uint8Array;
}
const REGULAR = 1;
const LINKED = 2;

function putStat(taken: TakenStats, i: number, stat: Stats | undefined): void {
  if (stat === undefined) return;
  const at = i * 4;
  taken.fields[at] = stat.size;
  taken.fields[at + 1] = stat.mtimeMs;
  taken.fields[at + 2] = stat.ctimeMs;
  taken.fields[at + 3] = stat.ino;
  taken.flags[i] = (stat.isFile() ? REGULAR : 0) | (stat.nlink > 1 ? LINKED : 0);
}

/** File `i`'s stat fields as {@link sameStat} compares them; undefined when gone or not a regular file. */
function takenStat(taken: TakenStats, i: number): StatFields | undefined {
  if ((taken.flags[i] & REGULAR) === 0) return undefined;
  const at = i * 4;
  return {
    size: taken.fields[at],
    mtimeMs: taken.fields[at + 1],
    ctimeMs: taken.fields[at + 2],
    ino: taken.fields[at + 3],
  };
}

/** What a listing of the memory dir gives a sync: the memory files to read, and those held by name or kind. */
interface LocalListing {
  wanted: string[];
  held: Map<string, string>;
}

async function listLocal(memoryDir: string, excludeTeam: boolean): Promise<LocalListing> {
  const held = new Map<string, string>();
  const wanted: string[] = [];
  const take = (file: string, kind: { isFile: boolean; isSymbolicLink: boolean; notUtf8: boolean }) => {
    if (file.startsWith(".") || file.includes("/.")) return;
    if (excludeTeam && (file === "team" || file.startsWith("team/"))) return;
    if (!file.toLowerCase().endsWith(".md") || file === INDEX_FILE) return;
    if (!kind.isFile && !kind.isSymbolicLink) return;
    // Held by the rule the pulling side refuses names by (incomingRefusal): pushed, such a name
    // would only pile up in the remote, refused by every other machine (docs/design.md#sync).
    if (kind.notUtf8) held.set(file, `${NAME_NOT_UTF8}; ${NOT_PUSHED}`);
    else if (kind.isSymbolicLink) held.set(file, "a symbolic link: only regular files are synced");
    else {
      const refusal = syncNameRefusal(file.normalize("NFC"));
      if (refusal === null) wanted.push(file);
      else held.set(file, `${refusal}; ${NOT_PUSHED}`);
    }
  };
  const entries = await fs.readdir(memoryDir, { recursive: true, withFileTypes: true }).catch(() => null);
  // A name that is not UTF-8 comes back from the string listing decoded lossily (U+FFFD), and a
  // folder so named makes the whole listing fail: then the memory dir is listed again by its
  // names' bytes, which names such files instead of losing them (src/sync/file-names.ts).
  if (entries !== null && !entries.some((entry) => entry.name.includes("\uFFFD")))
    for (const entry of entries) {
      const parent = (entry as { parentPath?: string }).parentPath ?? (entry as { path: string }).path;
      take(listedName(memoryDir, parent, entry.name), {
        isFile: entry.isFile(),
        isSymbolicLink: entry.isSymbolicLink(),
        notUtf8: false,
      });
    }
  else for (const entry of await listByBytes(memoryDir)) take(entry.file, entry);
  return { wanted, held };
}

/** The stat of `full` without following a link, undefined when it is gone or cannot be stat'ed. */
function statOrUndefined(full: string): Stats | undefined {
  try {
    return lstatSync(full, { throwIfNoEntry: false });
  } catch {
    return undefined; // unreadable now: a read says what it finds
  }
}

/**
 * The digest of a listing's files in order with their stat fields (four numbers each, as bytes:
 * no number is written out as text), the files it holds by name or kind, and the index's bytes.
 */
function statDigestOf(
  files: readonly string[],
  fields: Float64Array,
  held: ReadonlyMap<string, string>,
  index: Buffer | null,
): string {
  const hash = createHash("sha1").update(files.join("\0")).update("\0stats\0");
  hash.update(new Uint8Array(fields.buffer, fields.byteOffset, fields.byteLength));
  for (const [file, reason] of held) hash.update(`\0held\0${file}\0${reason}`);
  return hash
    .update("\0index\0")
    .update(index ?? "\0none")
    .digest("hex");
}

/** MEMORY.md's bytes, or null without one. */
async function readIndexBytes(memoryDir: string): Promise<Buffer | null> {
  return fs.readFile(path.join(memoryDir, INDEX_FILE)).catch(() => null);
}

/**
 * Reads the files of `listing` ({@link readLocalSide}); `known`: their stats taken already and the
 * index's bytes, when {@link readLocalSideUnlessUnchanged} read them to compare.
 */
async function readListed(
  memoryDir: string,
  listing: LocalListing,
  cache: StatCache,
  nowMs: number,
  progress: ProgressSink | undefined,
  known?: { taken: TakenStats; indexBytes: Buffer | null },
): Promise<LocalSide> {
  const { wanted } = listing;
  const held = new Map(listing.held);
  const files = new Map<string, LocalFile>();
  const next: StatCache = {};
  // The side handed back; `forget` replaces its cache by a copy, never changing the one read (the
  // caller's, which writeStatCaches compares by identity to skip an unchanged write).
  const side: LocalSide = { files, held, index: "", cache: next };
  const forget = (file: string) => {
    if (side.cache[file] === undefined) return;
    const rest: StatCache = {};
    for (const [name, entry] of Object.entries(side.cache)) if (name !== file) rest[name] = entry;
    side.cache = rest;
  };
  const keep = (file: string, full: string, entry: StatEntry, text?: string) => {
    if (Math.max(entry.mtimeMs, entry.ctimeMs) < nowMs - RACY_MS) next[file] = entry;
    if (entry.held !== undefined) held.set(file, entry.held);
    else
      files.set(
        file,
        text === undefined
          ? {
              blob: entry.blob,
              conflict: entry.conflict === true,
              text: readLater(full, file, entry.blob, () => forget(file)),
              vouched: true,
            }
          : { blob: entry.blob, conflict: entry.conflict === true, text: async () => text },
      );
  };
  // The files the stat cache vouches for are not opened: a synchronous lstat each, a slice at a
  // time with the event loop let through between slices. At 20,000 memories the promise lstats,
  // 64 at a time, took ~1.3 s of a nothing-changed sync against ~0.3 s for these (a CPU profile
  // of `.tmp`'s quiet sync, docs/benchmarks.md#sync).
  const toRead: string[] = [];
  for (let start = 0; start < wanted.length; start += STAT_SLICE) {
    if (start > 0) await yieldToEventLoop();
    progress?.("checking memory files", start, wanted.length);
    const end = Math.min(wanted.length, start + STAT_SLICE);
    for (let i = start; i < end; i++) {
      const file = wanted[i];
      const cached = cache[file];
      const full = path.join(memoryDir, file);
      if (cached !== undefined) {
        let stat: StatFields | undefined;
        if (known !== undefined) {
          if ((known.taken.flags[i] & LINKED) !== 0) side.hardLinked = true;
          stat = takenStat(known.taken, i);
        } else {
          const now = statOrUndefined(full);
          if (now !== undefined && now.nlink > 1) side.hardLinked = true;
          stat = now?.isFile() ? now : undefined;
        }
        if (stat !== undefined && sameStat(cached, stat)) {
          keep(file, full, cached);
          continue;
        }
      }
      toRead.push(file);
    }
  }
  // Side by side in batches: one read at a time cost 0.5 s at 2,000 memories on a loaded box.
  for (let start = 0; start < toRead.length; start += READ_BATCH) {
    // Told per batch (docs/design.md#progress): at 20,000 memories this read and hash takes seconds.
    progress?.("reading and hashing memory files", start, toRead.length);
    const batch = toRead.slice(start, start + READ_BATCH);
    await Promise.all(
      batch.map(async (file) => {
        const full = path.join(memoryDir, file);
        const read = await readRegular(full);
        if (read === null) return;
        const { size, mtimeMs, ctimeMs, ino } = read.stat;
        if ((read.stat.nlink ?? 1) > 1) side.hardLinked = true;
        const text = utf8OrNull(read.bytes);
        // The blob of the decoded text, as the clone gets it (a byte-order mark is not kept).
        const base = { size, mtimeMs, ctimeMs, ino, blob: blobId(text ?? read.bytes) };
        if (text === null) return keep(file, full, { ...base, held: NOT_UTF8 });
        if (isPrivate(text)) return keep(file, full, { ...base, held: PRIVATE });
        keep(file, full, { ...base, ...(conflictOf(text) !== null ? { conflict: true } : {}) }, text);
      }),
    );
  }
  if (wanted.length > 0) progress?.("checking memory files", wanted.length, wanted.length);
  if (toRead.length > 0) progress?.("reading and hashing memory files", toRead.length, toRead.length);
  // As bytes, decoded once (not through a StringDecoder): a generated 20,000-memory index is
  // 2.8 MB, and its chunked decoding was ~20 ms of a nothing-changed sync (docs/benchmarks.md#sync).
  const indexBytes = known !== undefined ? known.indexBytes : await readIndexBytes(memoryDir);
  const index = indexBytes === null ? "" : indexBytes.toString("utf8");
  // Nothing new to remember: the cache read is handed back as it was, so the sync does not
  // write 20,000 entries again (src/sync/state.ts writeStatCaches).
  const same =
    Object.keys(next).length === Object.keys(cache).length &&
    Object.keys(next).every((file) => next[file] === cache[file]);
  side.index = index;
  side.cache = same ? cache : next;
  // Every file's stat vouches for its text (kept: not within the racy window) and none has another
  // link: the next sync may know this side unchanged by its stats alone.
  if (!side.hardLinked && wanted.every((file) => next[file] !== undefined))
    side.statDigest = () => {
      const fields = new Float64Array(wanted.length * 4);
      for (const [i, file] of wanted.entries()) {
        const entry = next[file];
        fields.set([entry.size, entry.mtimeMs, entry.ctimeMs, entry.ino], i * 4);
      }
      return statDigestOf(wanted, fields, listing.held, indexBytes);
    };
  return side;
}

/**
 * `parent/name` relative to `dir`, `/`-separated. The listing's parents start with `dir` as it was
 * given, so a slice does what `path.relative(path.join(…))` did at several times the cost per file
 * (docs/benchmarks.md#sync); anything else takes the slow, general way.
 */
function listedName(dir: string, parent: string, name: string): string {
  if (parent === dir) return name;
  if (parent.startsWith(dir) && parent[dir.length] === path.sep)
    return `${parent
      .slice(dir.length + 1)
      .split(path.sep)
      .join("/")}/${name}`;
  return path.relative(dir, path.join(parent, name)).split(path.sep).join("/");
}

/**
 * A digest of what a sync decides from on this side: every file with its blob id (or why it is
 * held) and the index's text. Two reads with the same digest lead to the same decision.
 */
export function localDigest(local: {
  files: ReadonlyMap<string, { blob: string }>;
  held: ReadonlyMap<string, string>;
  index: string;
}): string {
  const lines: string[] = [];
  for (const [file, { blob }] of local.files) lines.push(`${file}\0${blob}`);
  for (const [file, reason] of local.held) lines.push(`${file}\0held\0${reason}`);
  lines.sort();
  return createHash("sha1").update(lines.join("\n")).update("\0index\0").update(local.index).digest("hex");
}

const READ_BATCH = 64;
/** Cached files lstat'ed between two turns of the event loop, as the scan does (src/memdir/scan/scan-list.ts). */
const STAT_SLICE = 256;

/**
 * MEMORY.md after a merge, never merged as text: the local index with the lines of `removed`
 * files dropped and a line added for each `added` file, made from that file's own frontmatter
 * (its `title` when it has one, else a title made from its name, and its description).
 * Nothing of the remote's MEMORY.md is read: its text passed no check, so a line there could
 * carry an instruction into every session's context (docs/sync.md). Lines are added only while
 * the index stays within its load limits; the others are counted in `leftOut` (their files are
 * still there, and recall still finds them).
 */
export function rebuildIndex(
  local: string,
  changes: { added: readonly { file: string; text: string }[]; removed: ReadonlySet<string> },
): { text: string; leftOut: number } {
  const kept = applyIndexChanges(local, { remove: changes.removed });
  // Nothing pulled in: no line to add, and no listing to parse (a 2.8 MB generated index took
  // ~100 ms to parse on every push of one change at 20,000, docs/benchmarks.md#sync).
  if (changes.added.length === 0) return { text: kept, leftOut: 0 };
  const listed = new Set(parseIndex(local).map((entry) => entry.file));
  const trimmed = kept.trim();
  let lines = trimmed === "" ? 0 : trimmed.split("\n").length;
  let bytes = Buffer.byteLength(trimmed, "utf8");
  const add: { file: string; title: string; hook: string }[] = [];
  let leftOut = 0;
  for (const { file, text: memory } of changes.added) {
    if (listed.has(file)) continue;
    const line = indexEntryOf(file, memory);
    const added = Buffer.byteLength(formatIndexLine(line), "utf8") + (lines === 0 ? 0 : 1);
    if (indexLimitsExceeded(lines + 1, bytes + added).length > 0) {
      leftOut++;
      continue;
    }
    lines++;
    bytes += added;
    add.push(line);
  }
  return { text: applyIndexChanges(kept, { add }), leftOut };
}

/**
 * {@link rebuildIndex}, less the lines of pulled files the quarantine would find new
 * instruction-like text in (read as the writer reads an index rewrite: `newInstructions` of the
 * index before and after), each named in `held`. Each pulled file's own line was read when the
 * file was written (docs/design.md#quarantine); this is what keeps the index rewrite, which passes
 * sync's origin, from ever being held and stopping the sync (docs/design.md#sync).
 */
export function rebuildIndexChecked(
  local: string,
  changes: { added: readonly { file: string; text: string }[]; removed: ReadonlySet<string> },
): { text: string; leftOut: number; held: { file: string; reason: string }[] } {
  const held: { file: string; reason: string }[] = [];
  let added = changes.added;
  for (;;) {
    const rebuilt = rebuildIndex(local, { added, removed: changes.removed });
    // Removals add no text: only an added line can hold a new finding.
    if (added.length === 0) return { ...rebuilt, held };
    const { findings } = newInstructions(local, rebuilt.text);
    if (findings.length === 0) return { ...rebuilt, held };
    const fileAt = new Map(parseIndex(rebuilt.text).map((entry) => [entry.lineNumber, entry.file]));
    const ours = new Set(added.map((entry) => entry.file));
    const out = new Map<string, typeof findings>();
    for (const finding of findings) {
      const file = fileAt.get(finding.line);
      if (file !== undefined && ours.has(file)) out.set(file, [...(out.get(file) ?? []), finding]);
    }
    // A finding no single added line explains (lines read together): none of them is added.
    if (out.size === 0) for (const file of ours) out.set(file, findings);
    for (const [file, found] of out)
      held.push({ file, reason: `no index line: it would hold ${describeFindings(found)}` });
    added = added.filter((entry) => !out.has(entry.file));
  }
}
