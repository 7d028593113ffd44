import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import v8 from "node:v8";
import { yieldToEventLoop } from "../../event-loop.ts";
import { tempFileWriterPid, writeFileAtomicStreamed } from "../fs/atomic.ts";
import { processIsAlive } from "../fs/lease.ts";
import {
  type BinaryCacheContent,
  type BinaryCacheInput,
  decodeBinaryCache,
  encodeBinaryCache,
} from "./binary-cache.ts";

/**
 * A cache file in the memory directory that lets a fresh process reuse the work of earlier ones
 * (docs/design.md#caches-and-watchers: "nothing re-reads unchanged files"; "a persisted index in the memory dir …
 * if it stays correct when files change behind its back").
 *
 * This module only loads and saves opaque values; the caller decides what goes in and must
 * check every entry it takes out against a fresh `stat` (path, mtimeMs, size), so edits,
 * deletions and additions made while no process was running are always seen.
 *
 * A file that is missing, corrupt, foreign, from another format or written by other parsing
 * code (the fingerprint) is ignored; the caller then rebuilds and saves a fresh one.
 */

/** The folder inside a memory directory. A dot-folder: scans, doctor and the dream history skip it. */
export const CACHE_DIRECTORY_NAME = ".memdir-cache";
/** Cache files larger than this are neither written nor read (a bound on disk and load time). */
export const PERSISTED_CACHE_MAX_BYTES = 256 * 1024 * 1024;

/**
 * Smaller memory directories get no cache file. The line is where a rebuild starts to cost more
 * than loading the files (docs/design.md#caches-and-watchers): a hook process pays ~2 ms to read and check the cache files
 * whatever their size, and ~70 µs per KB of memory text to re-read and tokenize it; 200 memories
 * of a few KB each cost every prompt half a second without a cache. Below 25 memories (a handful
 * of notes) a rebuild takes a few ms, and a file beside them that nobody asked for would only
 * surprise users (and tools that list the folder).
 */
export const PERSIST_MIN_MEMORIES = 25;

/** True when a directory of `memoryCount` memories is large enough to be worth a cache file. */
export function worthPersisting(memoryCount: number): boolean {
  return memoryCount >= PERSIST_MIN_MEMORIES;
}

const MAGIC = "memdir-cache";
/** Bump when the envelope changes; callers put their own schema in their fingerprint. */
const FORMAT_VERSION = 1;

interface Envelope {
  magic: string;
  format: number;
  name: string;
  fingerprint: string;
  data: unknown;
}

/** The path of cache `name` inside `memoryDir`: `.v8` (a v8 serialization), `.bin` (binary-cache.ts). */
export function persistedCachePath(memoryDir: string, name: string, format: CacheFormat = "v8"): string {
  return path.join(memoryDir, CACHE_DIRECTORY_NAME, `${name}.${format === "v8" ? "v8" : "bin"}`);
}

/** How a cache file is written: a v8 serialization of any value, or the binary layout of binary-cache.ts. */
export type CacheFormat = "v8" | "binary";

/**
 * A digest of the code and constants that produce cached values. Functions count by their
 * source text, so a change to a parser invalidates the caches built with the old one.
 *
 * @example
 * const fingerprint = codeFingerprint("headers/1", HEADER_MAX_LINES, parseFrontmatter);
 */
export function codeFingerprint(...parts: unknown[]): string {
  const hash = createHash("sha256");
  for (const part of parts) {
    const text = typeof part === "function" ? part.toString() : JSON.stringify(part);
    hash.update(String(text));
    hash.update("\u0000");
  }
  return hash.digest("hex").slice(0, 32);
}

/**
 * Reads cache `name` of `memoryDir`; `null` when absent, unreadable, too large, corrupt, foreign,
 * of another format or of another `fingerprint`. Never throws.
 *
 * @example
 * const data = await loadPersistedCache(memoryDir, "headers", fingerprint);
 */
export async function loadPersistedCache(
  memoryDir: string,
  name: string,
  fingerprint: string,
): Promise<unknown | null> {
  const file = persistedCachePath(memoryDir, name);
  try {
    const bytes = await readCacheFile(file);
    if (bytes === null) return null;
    const envelope = v8.deserialize(bytes) as Partial<Envelope> | null;
    if (
      envelope === null ||
      typeof envelope !== "object" ||
      envelope.magic !== MAGIC ||
      envelope.format !== FORMAT_VERSION ||
      envelope.name !== name ||
      envelope.fingerprint !== fingerprint
    ) {
      return null;
    }
    return envelope.data ?? null;
  } catch {
    return null; // missing, unreadable or not a v8 serialization: rebuild
  }
}

/**
 * Reads binary cache `name` of `memoryDir` (binary-cache.ts): its arrays are views into the one
 * buffer read. `null` when absent, unreadable, too large, torn, foreign, of another format or of
 * another `fingerprint`. Never throws.
 *
 * @example
 * const content = await loadPersistedBinary(memoryDir, "lexical", fingerprint);
 */
export async function loadPersistedBinary(
  memoryDir: string,
  name: string,
  fingerprint: string,
): Promise<BinaryCacheContent | null> {
  const file = persistedCachePath(memoryDir, name, "binary");
  try {
    const bytes = await readCacheFile(file);
    return bytes === null ? null : decodeBinaryCache(bytes, name, fingerprint);
  } catch {
    return null; // missing or unreadable: rebuild
  }
}

/**
 * Cache files at least this big are read off the event loop. A synchronous read of the 52 MB
 * lexical index of 20,000 memories held the loop for ~140 ms, most of the longest stretch in which
 * the memory helper, loading a dir ahead of its first prompt, could not acknowledge a prompt
 * (docs/design.md#the-memory-helper). Below it (fewer than ~3,000 memories) the read is short.
 */
const READ_OFF_LOOP_BYTES = 8 * 1024 * 1024;

/**
 * The bytes of a cache file, or null when it is not a regular file or is too large. A file below
 * READ_OFF_LOOP_BYTES is read synchronously: a process reads each cache file once, at its start,
 * and the promise API's `readFile` reads in 512 KB chunks, each a hop through libuv's thread pool
 * — on a loaded box every hop waits for a CPU (docs/design.md#caches-and-watchers). A bigger one is read in one hop into one
 * buffer. Throws when the file is missing or unreadable.
 */
async function readCacheFile(file: string): Promise<Buffer | null> {
  const stat = statSync(file);
  if (!stat.isFile() || stat.size > PERSISTED_CACHE_MAX_BYTES) return null;
  if (stat.size < READ_OFF_LOOP_BYTES) return readFileSync(file);
  const handle = await fs.open(file, "r");
  try {
    // The size of the file opened: a save may have replaced the one stat saw (a torn or
    // foreign result is caught by the decoding anyway).
    const opened = await handle.stat();
    if (!opened.isFile() || opened.size > PERSISTED_CACHE_MAX_BYTES) return null;
    const { size } = opened;
    const bytes = Buffer.allocUnsafe(size);
    let filled = 0;
    while (filled < size) {
      const { bytesRead } = await handle.read(bytes, filled, size - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return bytes.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

/** What a save did. `skipped`: the directory is missing or not writable, or the data is too large. */
export type PersistedSaveOutcome = "saved" | "skipped";

/**
 * Writes cache `name` of `memoryDir` atomically (readers see the old file or the new one).
 * Creates `.memdir-cache/` but never the memory directory itself. A memory directory this
 * process may not write to (read-only mount, another user's) is `skipped`, not an error.
 *
 * @example
 * await savePersistedCache(memoryDir, "headers", fingerprint, entries);
 */
export async function savePersistedCache(
  memoryDir: string,
  name: string,
  fingerprint: string,
  data: unknown,
): Promise<PersistedSaveOutcome> {
  const envelope: Envelope = { magic: MAGIC, format: FORMAT_VERSION, name, fingerprint, data };
  return writeCacheFile(memoryDir, persistedCachePath(memoryDir, name), () => v8.serialize(envelope));
}

/**
 * {@link savePersistedCache} for a binary cache (binary-cache.ts), read back with
 * {@link loadPersistedBinary}. A `.v8` file of the same name, which earlier versions wrote and no
 * one reads now (tens of MB for a big lexical index), is removed once the binary one is saved.
 */
export async function savePersistedBinary(
  memoryDir: string,
  name: string,
  fingerprint: string,
  content: BinaryCacheInput,
): Promise<PersistedSaveOutcome> {
  const outcome = await writeCacheFile(memoryDir, persistedCachePath(memoryDir, name, "binary"), () =>
    encodeBinaryCache(name, fingerprint, content),
  );
  if (outcome === "saved")
    await fs.rm(persistedCachePath(memoryDir, name), { force: true }).catch(() => undefined);
  return outcome;
}

async function writeCacheFile(
  memoryDir: string,
  file: string,
  encode: () => Uint8Array | Uint8Array[],
): Promise<PersistedSaveOutcome> {
  const directory = path.join(memoryDir, CACHE_DIRECTORY_NAME);
  try {
    await fs.mkdir(directory);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "EEXIST") {
      if (code !== undefined && UNWRITABLE.has(code)) return "skipped";
      throw error;
    }
  }
  await removeDeadWritersTemps(directory);
  const encoded = encode();
  const parts = Array.isArray(encoded) ? encoded : [encoded];
  if (parts.reduce((sum, part) => sum + part.byteLength, 0) > PERSISTED_CACHE_MAX_BYTES) {
    // An old, smaller file would still be loaded and mostly miss: drop it.
    await fs.rm(file, { force: true }).catch(() => undefined);
    return "skipped";
  }
  try {
    await writeFileAtomicStreamed(file, async (write) => {
      for (const part of parts) await write(part);
    });
  } catch (error) {
    const code = ((error as Error).cause as NodeJS.ErrnoException | undefined)?.code;
    if (code !== undefined && UNWRITABLE.has(code)) return "skipped";
    throw error;
  }
  return "saved";
}

/**
 * Removes temp files of writers that died mid-save (a hook killed at its time limit): each can
 * be tens of MB, and nothing else looks inside this folder.
 */
async function removeDeadWritersTemps(directory: string): Promise<void> {
  const names = await fs.readdir(directory).catch(() => [] as string[]);
  for (const name of names) {
    const pid = tempFileWriterPid(name);
    if (pid === null || pid === process.pid || processIsAlive(pid)) continue;
    await fs.rm(path.join(directory, name), { force: true }).catch(() => undefined);
  }
}

// ENOENT: the memory directory itself is missing (the scan found nothing; do not create it).
const UNWRITABLE = new Set(["EACCES", "EPERM", "EROFS", "ENOENT", "ENOTDIR", "ENOSPC", "EDQUOT"]);

/** Reports a failed background save. */
export type CacheLog = (message: string) => void;

/** A {@link CacheLog} that prints to stderr when `debug` (`MEMDIR_DEBUG`), else nothing. */
export function debugCacheLog(debug: boolean): CacheLog {
  return debug ? (message) => process.stderr.write(`memdir: ${message}\n`) : () => undefined;
}

/**
 * How much a process took from cache files versus read from memory files, for
 * `recall --explain --json` (evidence that a second process reused the first one's work).
 */
export interface PersistedCacheStats {
  /** Memory headers taken from the cache file / parsed from disk. */
  headers: { hits: number; misses: number };
  /** Memories whose lexical statistics came from the cache file / were read and tokenized. */
  index: { hits: number; misses: number };
}

/** Options of {@link PersistedCaches}. */
export interface PersistedCachesOptions {
  /** False: {@link PersistedCaches.saveInBackground} writes nothing (`MEMDIR_NO_CACHE=1`). */
  enabled: boolean;
  /** Where failed saves are reported (default: nowhere). */
  log?: CacheLog;
}

/**
 * The background saves of one owner (a {@link Memdir}, see `instance.ts`) and their counters:
 * saves of the same file coalesce, and {@link flush} waits for all of them.
 */
export class PersistedCaches {
  readonly enabled: boolean;
  /** Hits and misses of the caches saved here (updated by the scan and the lexical index). */
  readonly stats: PersistedCacheStats = { headers: { hits: 0, misses: 0 }, index: { hits: 0, misses: 0 } };
  readonly #log: CacheLog;
  readonly #pending = new Map<string, { running: Promise<void>; again: boolean }>();

  constructor(options: PersistedCachesOptions) {
    this.enabled = options.enabled;
    this.#log = options.log ?? (() => undefined);
  }

  /**
   * Saves cache `name` after the current work is done, never blocking the caller: `produce` runs
   * on a later turn of the event loop (after the caller has its result) and its value is written
   * in the background. Calls while a save of the same file runs coalesce into one more save.
   * Errors are swallowed and logged. Resolves when the save (and any coalesced one) is over;
   * callers normally ignore the promise. Skipped entirely when not {@link enabled}. `format`
   * "binary": `produce` returns a {@link BinaryCacheInput}, written as binary-cache.ts lays it out.
   *
   * @example
   * memdir.persisted.saveInBackground(memoryDir, "headers", fingerprint, () => cache.snapshot(root));
   */
  saveInBackground(
    memoryDir: string,
    name: string,
    fingerprint: string,
    produce: () => unknown,
    format: CacheFormat = "v8",
  ): Promise<void> {
    if (!this.enabled) return Promise.resolve();
    const key = persistedCachePath(path.resolve(memoryDir), name, format);
    const current = this.#pending.get(key);
    if (current) {
      current.again = true;
      return current.running;
    }
    const state = { running: Promise.resolve(), again: false };
    const once = async () => {
      await yieldToEventLoop();
      try {
        if (format === "v8") await savePersistedCache(memoryDir, name, fingerprint, produce());
        else await savePersistedBinary(memoryDir, name, fingerprint, produce() as BinaryCacheInput);
      } catch (error) {
        this.#log(`cache ${name}: not saved: ${error instanceof Error ? error.message : String(error)}`);
      }
    };
    state.running = (async () => {
      do {
        state.again = false;
        await once();
      } while (state.again);
      this.#pending.delete(key);
    })();
    this.#pending.set(key, state);
    return state.running;
  }

  /** Resolves when every background save started so far has finished (tests, clean shutdown). */
  async flush(): Promise<void> {
    while (this.#pending.size > 0)
      await Promise.all([...this.#pending.values()].map((state) => state.running));
  }
}
