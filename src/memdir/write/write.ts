import path from "node:path";
import { MemdirError } from "../../errors.ts";
import { type Clock, isMemoryType, MEMORY_TYPES, type MemoryType } from "../../types.ts";
import {
  frontmatterLineOf,
  parseFrontmatter,
  refreshModified,
  serializeMemory,
} from "../format/frontmatter.ts";
import {
  INDEX_FILE,
  INDEX_MAX_BYTES,
  INDEX_MAX_LINES,
  IndexLines,
  indexLimitsExceeded,
  removeIndexLine,
} from "../format/index-file.ts";
import { defaultTitle, MAX_HOOK_CHARS, oneLine, shorten, slugFor } from "../format/memory-names.ts";
import { memoryVersion } from "../format/memory-version.ts";
import { restoreFile, writeFileAtomic } from "../fs/atomic.ts";
import { assertStillLocked, type LockOptions, withMemoryLock } from "../fs/lock.ts";
import { readTextInside, removeFileInside } from "../fs/open-safely.ts";
import { nullUnlessRefused, readRegularText } from "../fs/regular-file.ts";
import type { WriteOrigin } from "../trust/provenance.ts";
import { assertNoSecrets } from "../trust/secrets.ts";
import { quarantineCheck, stampsFor, stampText } from "./write-checks.ts";
import {
  addedLines,
  assertMemorySize,
  assertNoControlCharacters,
  assertNoSecretsInFrontmatter,
  assertSaveAddsNoControlCharacters,
  type FileLayout,
  fileLineAt,
} from "./write-input.ts";
import {
  checkedTarget,
  exists,
  freeTarget,
  isIndexFile,
  memoryFileTarget,
  portableName,
  prepareMemoryDir,
  resolveOrThrow,
} from "./write-targets.ts";

export interface SaveMemoryInput {
  /** File name relative to the memory dir; derived from type + description when omitted. */
  file?: string;
  type: MemoryType | string;
  description: string;
  body: string;
  /** Index title; defaults to the existing entry's title, else one made from the file name. */
  title?: string;
  /** Index hook; defaults to the description. */
  hook?: string;
  /** Frontmatter keys besides description/type; default: those of the memory being replaced. */
  extra?: Record<string, unknown>;
  /** false: refuse (`invalid-input`) when `file` exists; true: refuse (`not-found`) when it does not. */
  replace?: boolean;
  /**
   * The {@link memoryVersion} of the text this save replaces (what an editor loaded): refused
   * (`conflict`) when the file on disk, read under the writer's lock, is no longer that text or is
   * gone, so a save never overwrites a change made after the editor loaded the file.
   */
  version?: string;
}

export interface SaveMemoryResult {
  file: string;
  path: string;
  /** False when an existing memory was replaced. */
  created: boolean;
  /** Set when this write left `MEMORY.md` over a load limit (docs/design.md#the-index: "tells the writer"). */
  indexWarning?: string;
  /** Set when an explicit save holds instruction-like text (docs/design.md#quarantine): what was found. */
  warning?: string;
}

export interface WriteOptions {
  lock?: LockOptions;
  /** The clock that stamps `modified` (default `Date.now`). */
  now?: Clock;
  /**
   * Who writes: stamped as `source:`/`session:` with the `anchors:` the text names
   * (docs/design.md#provenance); an automatic source's instruction-like text is held in the inbox
   * instead of written (docs/design.md#quarantine). Without one the write counts as explicit and
   * nothing is stamped.
   */
  origin?: WriteOrigin;
  /**
   * The time stamped as `modified` instead of now: an import keeps the date the source tool
   * recorded (docs/import.md). The clock still dates everything else (a held proposal's age).
   */
  modifiedAt?: number;
}

/**
 * What {@link saveMemory} refuses before it touches anything (an unknown type, an empty
 * description, a credential or a control character in the name, the text or any frontmatter key
 * it is given, a body over the size a memory file may have): callers that record history around
 * a save check first, so a refused save leaves the memory dir as it was.
 *
 * A control character is refused only where the save adds it (docs/design.md#the-single-writer):
 * here over a memory that is new for sure (no `file`, or `replace: false`) or whose current text
 * the caller read and hands in as `existing` (null: no such file); {@link saveMemory} checks
 * again against the text it reads under the writer lock.
 *
 * @throws MemdirError("invalid-type" | "invalid-input" | "secret")
 */
export function checkSaveInput(
  input: SaveMemoryInput,
  existing?: string | null,
): {
  type: MemoryType;
  description: string;
  file?: string;
} {
  const type = input.type;
  if (!isMemoryType(type)) {
    throw new MemdirError(
      "invalid-type",
      `write: unknown memory type ${JSON.stringify(type)} (one of ${MEMORY_TYPES.join(", ")})`,
    );
  }
  const description = oneLine(input.description ?? "");
  if (description === "") throw new MemdirError("invalid-input", "write: the description is empty");
  const file = input.file?.normalize("NFC");
  // The file name is scanned like the text: it is also written into MEMORY.md. It, the title and
  // the hook are one line each, not lines of the file: a finding names no line.
  if (file) assertNoSecrets(file, "file name", null);
  const layout = fileLayout({ type, description, file, extra: input.extra });
  assertNoSecrets(description, "description", fileLineAt(layout, ["description"], "value"));
  if (input.title) assertNoSecrets(input.title, "title", null);
  if (input.hook) assertNoSecrets(input.hook, "hook", null);
  assertNoSecrets(input.body ?? "", "body");
  // The other frontmatter keys are written too (an import's, the memory tool's): the same checks.
  if (input.extra) assertNoSecretsInFrontmatter(input.extra, layout);
  const fields = { description, body: input.body ?? "", extra: input.extra };
  if (existing === null || (existing === undefined && (input.replace === false || !file)))
    assertSaveAddsNoControlCharacters({ ...fields, title: input.title, hook: input.hook }, null);
  // The old title and hook are in MEMORY.md, which saveLocked reads: they are checked there.
  else if (existing !== undefined) assertSaveAddsNoControlCharacters(fields, savedFields(existing));
  // The whole text is measured once it is made; a body over the limit alone is refused here.
  assertMemorySize(input.body ?? "", file ?? "the memory");
  return { type, description, ...(file ? { file } : {}) };
}

/**
 * The file a save writes, as its refusals point into it: named by `file` (`the memory file` while
 * the writer has yet to derive it), each frontmatter key at the line it gets in the text
 * {@link saveLocked} serializes (`name` first, then description, type and the caller's keys, in
 * their order). Made only when a message needs it. The writer's stamps come later: only a key
 * after an `anchors:` list the save changes moves from the line named.
 */
function fileLayout(save: {
  type: MemoryType;
  description: string;
  file?: string;
  extra?: Record<string, unknown>;
}): FileLayout {
  const extra = save.extra ?? {};
  const hasName = typeof extra.name === "string" && extra.name.trim() !== "";
  const fields = {
    description: save.description,
    type: save.type,
    body: "",
    previous: extra,
    name: hasName ? undefined : path.posix.basename(save.file ?? "memory.md").replace(/\.md$/i, ""),
    modified: new Date(0).toISOString(),
  };
  return {
    file: save.file ?? "the memory file",
    lineOf: (at, part, valueLine) => frontmatterLineOf(fields, at, part, valueLine),
  };
}

/** What a memory's current text holds, for {@link assertSaveAddsNoControlCharacters}. */
function savedFields(existing: string, entry?: { title: string; hook: string }) {
  const parsed = parseFrontmatter(existing);
  return {
    body: parsed.body,
    frontmatter: parsed.data,
    ...(parsed.description !== null ? { description: parsed.description } : {}),
    ...(entry ? { title: entry.title, hook: entry.hook } : {}),
  };
}

/**
 * Saves one memory: its own file with frontmatter plus its pointer line in `MEMORY.md`, both
 * changed together under the writer lock, each written atomically (docs/design.md#the-single-writer).
 * Replacing an existing file updates its index line instead of adding another.
 *
 * Refused with a `MemdirError` and nothing written: an unknown type (`invalid-type`), an empty
 * description, a control character or a file over `MEMORY_FILE_MAX_BYTES` (`invalid-input`), a
 * path outside the memory dir (`path-outside`), a secret in the description, title, body or any
 * other frontmatter key (`secret`), instruction-like text from an automatic writer
 * (`quarantined`: it waits in the inbox instead).
 *
 * @example
 * const saved = await saveMemory(memoryDir, {
 *   type: "feedback",
 *   description: "login integration tests must hit a real database",
 *   body: "Why: a mocked test passed while the production migration failed.",
 * });
 * saved.file // "feedback-login-integration-tests-hit-real-database.md"
 */
export async function saveMemory(
  memoryDir: string,
  input: SaveMemoryInput,
  options: WriteOptions = {},
): Promise<SaveMemoryResult> {
  const checked = checkSaveInput(input);
  await prepareMemoryDir(memoryDir);
  return withMemoryLock(
    memoryDir,
    async () => {
      const indexPath = path.join(memoryDir, INDEX_FILE);
      const index = await readText(indexPath);
      const lines = new IndexLines(index);
      const step = await saveLocked(memoryDir, input, checked, options, lines);
      const updated = lines.text();
      // The file and its index line change together or not at all: when the index cannot be
      // written (a full disk, a lost lease), the file goes back to what it was.
      try {
        if (updated !== index) {
          await assertStillLocked(memoryDir);
          await writeFileAtomic(indexPath, updated, { inside: memoryDir });
        }
      } catch (error) {
        await restoreFile(memoryDir, step.result.path, step.existing);
        throw error;
      }
      const indexWarning = indexWarningFor(updated);
      return { ...step.result, ...(indexWarning ? { indexWarning } : {}) };
    },
    options.lock,
  );
}

/** One save inside the lock: the memory's file written, its index line only upserted in `index`. */
interface LockedSave {
  result: SaveMemoryResult;
  /** The file's text before the save (null: it is new), to restore it if the index cannot be written. */
  existing: string | null;
}

/** What a save writes, once every check has passed. */
interface PlannedSave {
  target: { file: string; path: string };
  /** The file's current text (null: it is new). */
  existing: string | null;
  /** The whole text the file gets. */
  text: string;
  title: string;
  hook: string;
  /** The quarantine's warning for an explicit save. */
  warning?: string;
}

/**
 * The body of {@link saveMemory} under the lock, against `index` (the current `MEMORY.md` lines,
 * where the memory's line is upserted but not written).
 */
async function saveLocked(
  memoryDir: string,
  input: SaveMemoryInput,
  checked: ReturnType<typeof checkSaveInput>,
  options: WriteOptions,
  index: IndexLines,
): Promise<LockedSave> {
  const { target, existing, text, title, hook, warning } = await planSave(
    memoryDir,
    input,
    checked,
    options,
    index,
  );
  await assertStillLocked(memoryDir);
  await writeFileAtomic(target.path, text, { inside: memoryDir });
  index.upsert({ title, file: target.file, hook });
  return {
    result: {
      file: target.file,
      path: target.path,
      created: existing === null,
      ...(warning ? { warning } : {}),
    },
    existing,
  };
}

/**
 * Every step of a save but the write: the target, the text it replaces, the refusals that need it
 * (a conflict, a control character the save adds), the final text, its size and the quarantine.
 * A `preview` (a dry run, {@link previewSave}) reads `pending` before the disk (what its earlier
 * saves would have written) and makes no proposal.
 */
async function planSave(
  memoryDir: string,
  input: SaveMemoryInput,
  { type, description, file }: ReturnType<typeof checkSaveInput>,
  options: WriteOptions,
  index: IndexLines,
  preview?: { pending?: ReadonlyMap<string, string> },
): Promise<PlannedSave> {
  const pending = preview?.pending;
  const body = input.body ?? "";
  const target = file
    ? await checkedTarget(memoryDir, file, { newName: true })
    : await freeTarget(
        memoryDir,
        slugFor(type, description),
        new Set([...(pending?.keys() ?? [])].map((name) => name.toLowerCase())),
      );
  const existing =
    pending?.get(target.file) ?? (await readTextInside(memoryDir, target.path).catch(nullUnlessRefused));
  if (input.version !== undefined && (existing === null || memoryVersion(existing) !== input.version))
    throw new MemdirError(
      "conflict",
      `write: ${target.file} ${existing === null ? "was deleted" : "changed on disk"} since it was loaded for editing`,
    );
  if (input.replace !== undefined && (existing !== null) !== input.replace)
    throw new MemdirError(
      existing ? "invalid-input" : "not-found",
      `write: ${target.file} ${existing ? "exists" : "does not exist"}`,
    );
  const previous = index.entryFor(target.file);
  // Only what this save adds: a control character the memory already held (a memory sync pulled
  // byte for byte) must not block an unrelated edit (docs/design.md#the-single-writer).
  assertSaveAddsNoControlCharacters(
    { description, body, title: input.title, hook: input.hook, extra: input.extra },
    existing === null ? null : savedFields(existing, previous),
  );
  // Unknown keys and the file's shape are kept (Claude Code's `metadata:` map included) unless
  // the caller gives its own; `name` is the stem unless there is one (other memories link to
  // it), `modified` is now.
  const frontmatter = { ...(input.extra ?? (existing === null ? {} : parseFrontmatter(existing).data)) };
  const stamps = await stampsFor(memoryDir, options.origin, { description, body });
  for (const [key, value] of Object.entries(stamps))
    if (value === undefined) delete frontmatter[key];
    else frontmatter[key] = value;
  const hasName = typeof frontmatter.name === "string" && frontmatter.name.trim() !== "";
  const name = hasName ? undefined : path.posix.basename(target.file).replace(/\.md$/i, "");
  const modified = new Date(options.modifiedAt ?? (options.now ?? Date.now)()).toISOString();
  const title = oneLine(input.title ?? "") || previous?.title || defaultTitle(target.file, description);
  const hook = shorten(oneLine(input.hook ?? "") || description, MAX_HOOK_CHARS);
  await assertStillLocked(memoryDir);
  const text = serializeMemory({ description, type, body, previous: frontmatter, name, modified });
  assertMemorySize(text, target.file);
  const { warning } = await quarantineCheck(memoryDir, {
    file: target.file,
    before: existing,
    after: text,
    origin: options.origin,
    now: (options.now ?? Date.now)(),
    ...(preview ? { preview: true } : {}),
  });
  return { target, existing, text, title, hook, ...(warning ? { warning } : {}) };
}

/**
 * What {@link saveMemory} would do with `input`, with nothing written, no lock taken and no
 * proposal made: every check the writer runs, in its order, refused with the writer's own error
 * (a quarantine with `it would wait for the user's review in the inbox`), else the file it would
 * write and its text. `pending` is what earlier previews of the same batch would have written
 * (file → text), read in place of the disk: how `memdir import --dry-run` predicts each save of
 * the real run, merges into memories it changed or made included (docs/design.md#import-and-export).
 *
 * @example
 * const planned = await previewSave(memoryDir, { file: "user-role.md", replace: true, type: "user", description, body });
 * planned.created // false
 */
export async function previewSave(
  memoryDir: string,
  input: SaveMemoryInput,
  options: WriteOptions = {},
  pending?: ReadonlyMap<string, string>,
): Promise<SaveMemoryResult & { text: string }> {
  const checked = checkSaveInput(input);
  const index = new IndexLines(await readText(path.join(memoryDir, INDEX_FILE)));
  const { target, existing, text, warning } = await planSave(memoryDir, input, checked, options, index, {
    pending,
  });
  return {
    file: target.file,
    path: target.path,
    created: existing === null,
    text,
    ...(warning ? { warning } : {}),
  };
}

/**
 * Saves many memories under ONE hold of the writer lock, with `MEMORY.md` written once at the
 * end instead of once per memory (an import of 1,000 rows rewrote a growing index 1,000 times:
 * docs/design.md#import-and-export). `work` gets a `save` that does exactly what
 * {@link saveMemory} does for one memory (same checks, same refusals, thrown per call) except
 * the index write. When `work` ends — also when it throws — the index gets the lines of every
 * file saved so far; if that write fails, every saved file goes back to what it was, so files and
 * index still change together or not at all.
 *
 * @example
 * const files = await saveMemoriesTogether(memoryDir, async (save) => {
 *   const a = await save({ type: "user", description: "prefers tabs" });
 *   const b = await save({ type: "project", description: "CI runs on Fridays" });
 *   return [a.file, b.file];
 * });
 */
export async function saveMemoriesTogether<T>(
  memoryDir: string,
  work: (save: (input: SaveMemoryInput, options?: WriteOptions) => Promise<SaveMemoryResult>) => Promise<T>,
  options: Pick<WriteOptions, "lock"> = {},
): Promise<T> {
  await prepareMemoryDir(memoryDir);
  return withMemoryLock(
    memoryDir,
    async () => {
      const indexPath = path.join(memoryDir, INDEX_FILE);
      const original = await readText(indexPath);
      const state = {
        index: new IndexLines(original),
        saved: [] as { path: string; existing: string | null }[],
      };
      const save = async (input: SaveMemoryInput, itemOptions: WriteOptions = {}) => {
        const checked = checkSaveInput(input);
        const step = await saveLocked(memoryDir, input, checked, itemOptions, state.index);
        state.saved.push({ path: step.result.path, existing: step.existing });
        return step.result;
      };
      try {
        return await work(save);
      } finally {
        try {
          const updated = state.index.text();
          if (updated !== original) {
            await assertStillLocked(memoryDir);
            await writeFileAtomic(indexPath, updated, { inside: memoryDir });
          }
        } catch (error) {
          for (const { path: file, existing } of state.saved.reverse())
            await restoreFile(memoryDir, file, existing);
          // biome-ignore lint/correctness/noUnsafeFinally: the index failure is the error to report
          throw error;
        }
      }
    },
    options.lock,
  );
}

/**
 * Runs `work` under ONE hold of the writer lock of `memoryDir` (made if missing): the writes it
 * makes through this module re-enter the lock instead of taking it once per file. A sync's first
 * pull of 2,000 memories took and released the lock 2,000 times (docs/design.md#sync); like
 * {@link saveMemoriesTogether}, the batch is one hold, refreshed while it runs.
 */
export async function withWriterHeld<T>(
  memoryDir: string,
  work: () => Promise<T>,
  options: Pick<WriteOptions, "lock"> = {},
): Promise<T> {
  await prepareMemoryDir(memoryDir);
  return withMemoryLock(memoryDir, work, options.lock);
}

/**
 * `file` (relative, absolute inside the memory dir, in NFC or NFD) as every write of this module
 * resolves it: `file` relative to the memory dir, as the history records it before a write
 * (docs/design.md#undo), and `path`.
 *
 * @throws MemdirError("path-outside")
 */
export function resolveMemoryTarget(
  memoryDir: string,
  file: string,
): Promise<{ file: string; path: string }> {
  return resolveOrThrow(memoryDir, file);
}

/**
 * Removes one memory file and every index line pointing at it, together under the lock.
 * A file already gone but still listed in the index is fine (its line is removed).
 *
 * @throws MemdirError("not-found") when neither the file nor an index line exists.
 * @example
 * await removeMemory(memoryDir, "feedback-old-rule.md");
 */
export async function removeMemory(
  memoryDir: string,
  file: string,
  options: WriteOptions & {
    /**
     * The caller has already taken the file's index lines out (one `MEMORY.md` write for a batch
     * of removals, as the consolidation's groups do): only the file is removed. Reading and
     * parsing a 2,000-line index once per removed file was ~3 s of an offline dream at 2,000
     * memories (docs/benchmarks.md).
     */
    indexLinesRemoved?: boolean;
  } = {},
): Promise<{ file: string; path: string }> {
  await resolveOrThrow(memoryDir, file);
  return withMemoryLock(
    memoryDir,
    async () => {
      const target = await checkedTarget(memoryDir, file);
      let removedFile = true;
      try {
        await assertStillLocked(memoryDir);
        await removeFileInside(memoryDir, target.path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw asIoError(error, target.path);
        removedFile = false;
      }
      if (options.indexLinesRemoved) {
        if (!removedFile)
          throw new MemdirError("not-found", `write: no memory ${target.file} in ${memoryDir}`);
        return { file: target.file, path: target.path };
      }
      const indexPath = path.join(memoryDir, INDEX_FILE);
      const index = await readText(indexPath);
      const updated = removeIndexLine(index, target.file);
      if (updated !== index) {
        await assertStillLocked(memoryDir);
        await writeFileAtomic(indexPath, updated, { inside: memoryDir });
      } else if (!removedFile) {
        throw new MemdirError("not-found", `write: no memory ${target.file} in ${memoryDir}`);
      }
      return { file: target.file, path: target.path };
    },
    options.lock,
  );
}

/**
 * {@link removeMemory}, where a memory already gone is fine (undo of an addition, a proposal's
 * delete). The index is not a memory: undoing its addition leaves it empty.
 */
export async function removeMemoryIfPresent(
  memoryDir: string,
  file: string,
  options: WriteOptions & { indexLinesRemoved?: boolean } = {},
): Promise<void> {
  if (isIndexFile(file)) {
    await updateIndex(memoryDir, () => "", options);
    return;
  }
  await removeMemory(memoryDir, file, options).catch((error: unknown) => {
    if (!(error instanceof MemdirError && error.code === "not-found")) throw error;
  });
}

/**
 * Writes raw text to a file in the memory dir, for agent Write/Edit tools: the path must stay
 * inside the memory dir, the text must hold no secret, and the write is atomic and under the
 * writer lock (so it never interleaves with {@link saveMemory} on `MEMORY.md`). The index is not
 * touched: the agent maintains it itself (docs/design.md#memory-rules). With an `origin`, the
 * provenance and anchors are stamped into the frontmatter, and the quarantine applies as in
 * {@link saveMemory}.
 *
 * @example
 * await writeMemoryText(memoryDir, "user-role.md", "---\ndescription: …\ntype: user\n---\n…");
 */
export async function writeMemoryText(
  memoryDir: string,
  file: string,
  text: string,
  options: WriteOptions & {
    verbatim?: boolean;
    /**
     * A batch under {@link withWriterHeld}: the file is fsynced, its folder is added here instead,
     * and the caller fsyncs each folder once when the batch is done (`syncFoldersInside`).
     */
    folderSyncs?: Set<string>;
  } = {},
): Promise<{ file: string; path: string; created: boolean; warning?: string }> {
  // A batch's withWriterHeld prepared the dir once; the target's own check below still refuses a
  // memory dir swapped for a link since.
  if (!options.folderSyncs) await prepareMemoryDir(memoryDir);
  const target = await memoryFileTarget(memoryDir, file.normalize("NFC"));
  // A new file's name must be one the index and other file systems carry; an existing file
  // with an old, odd name can still be edited (and renamed by hand).
  if (!isIndexFile(target.file) && !(await exists(target.path))) portableName(target.file);
  // The whole text, frontmatter included, is scanned.
  assertNoSecrets(target.file, "file name");
  assertNoSecrets(text, target.file);
  // A memory pulled by sync is written as it is on the other machine (refusing it would stop
  // every sync); what it holds is doctor's to report, and the CLI escapes it when printing.
  if (!options.verbatim) assertMemorySize(text, target.file);
  return withMemoryLock(
    memoryDir,
    async () => {
      const before = (await exists(target.path))
        ? await readTextInside(memoryDir, target.path).catch(nullUnlessRefused)
        : null;
      const nowMs = (options.now ?? Date.now)();
      // A `modified` the text already has is brought up to now (an edit must not keep a stale one);
      // `verbatim` (a memory pulled by sync, docs/design.md#sync) keeps the text byte for byte: no
      // refreshed `modified`, no provenance stamp, either of which would make every sync push again.
      // The quarantine below still reads it.
      const refreshed = options.verbatim ? text : refreshModified(text, new Date(nowMs));
      const final =
        isIndexFile(target.file) || options.verbatim
          ? refreshed
          : await stampText(memoryDir, options.origin, refreshed);
      // Only the lines this write adds: an old control character must not block an unrelated edit.
      if (!options.verbatim) assertNoControlCharacters(addedLines(before, final), target.file);
      const { warning } = await quarantineCheck(memoryDir, {
        file: target.file,
        before,
        after: final,
        origin: options.origin,
        now: nowMs,
      });
      await assertStillLocked(memoryDir);
      await writeFileAtomic(target.path, final, {
        inside: memoryDir,
        ...(options.folderSyncs ? { durability: "file" as const } : {}),
      });
      options.folderSyncs?.add(path.posix.dirname(target.file));
      return {
        file: target.file,
        path: target.path,
        created: before === null,
        ...(warning ? { warning } : {}),
      };
    },
    options.lock,
  );
}

/**
 * Rewrites `MEMORY.md` through `change` under the writer lock (used by repairs such as
 * `memdir doctor --fix`). `change` gets the current text ("" when missing) and returns the new one.
 */
export async function updateIndex(
  memoryDir: string,
  change: (text: string) => string | Promise<string>,
  options: WriteOptions = {},
): Promise<{ changed: boolean; indexWarning?: string; warning?: string }> {
  await prepareMemoryDir(memoryDir);
  return withMemoryLock(
    memoryDir,
    async () => {
      const indexPath = path.join(memoryDir, INDEX_FILE);
      const before = await readText(indexPath);
      const after = await change(before);
      // Only new lines are checked: a secret already at rest is doctor's to report, and must
      // not block an unrelated repair.
      const known = new Set(before.split("\n"));
      assertNoSecrets(
        after
          .split("\n")
          .filter((line) => !known.has(line))
          .join("\n"),
        INDEX_FILE,
      );
      if (after === before) return { changed: false };
      const { warning } = await quarantineCheck(memoryDir, {
        file: INDEX_FILE,
        before,
        after,
        origin: options.origin,
        now: (options.now ?? Date.now)(),
      });
      await assertStillLocked(memoryDir);
      await writeFileAtomic(indexPath, after, { inside: memoryDir });
      const indexWarning = indexWarningFor(after);
      return { changed: true, ...(indexWarning ? { indexWarning } : {}), ...(warning ? { warning } : {}) };
    },
    options.lock,
  );
}

/** A writer-facing warning when `indexText` is over a load limit, else undefined. */
export function indexWarningFor(indexText: string): string | undefined {
  const trimmed = indexText.trim();
  const lines = trimmed === "" ? 0 : trimmed.split("\n").length;
  const bytes = Buffer.byteLength(trimmed, "utf8");
  const over = indexLimitsExceeded(lines, bytes);
  if (over.length === 0) return undefined;
  const parts: string[] = [];
  if (over.includes("lines")) parts.push(`${lines} lines (limit ${INDEX_MAX_LINES})`);
  if (over.includes("bytes")) parts.push(`${bytes} bytes (limit ${INDEX_MAX_BYTES})`);
  return (
    `${INDEX_FILE} is now ${parts.join(" and ")}: new conversations load only the part within the limits. ` +
    "Keep each entry to one short line, and merge or remove old memories."
  );
}

// ---- helpers ----

async function readText(filePath: string): Promise<string> {
  try {
    return await readRegularText(filePath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "";
    throw asIoError(error, filePath);
  }
}

function asIoError(error: unknown, filePath: string): unknown {
  if (error instanceof MemdirError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  return new MemdirError("io", `write: ${filePath}: ${code ?? String(error)}`, { cause: error });
}
