import fs from "node:fs/promises";
import path from "node:path";
import { throwIfAborted } from "../../errors.ts";
import type { ProgressSink } from "../../types.ts";
import { conflictOf } from "../format/conflicts.ts";
import { type FrontmatterIssue, parseFrontmatter } from "../format/frontmatter.ts";
import {
  applyIndexChanges,
  formatIndexLine,
  INDEX_FILE,
  INDEX_MAX_BYTES,
  INDEX_MAX_LINES,
  type IndexEntry,
  parseIndex,
  readIndex,
} from "../format/index-file.ts";
import { defaultTitle } from "../format/memory-names.ts";
import { tempFileWriterPid } from "../fs/atomic.ts";
import { processIsAlive } from "../fs/lease.ts";
import { withMemoryLock } from "../fs/lock.ts";
import { nullUnlessRefused, readRegularFile } from "../fs/regular-file.ts";
import { hasControlCharacter } from "../fs/safe-path.ts";
import { HEADER_MAX_LINES } from "../scan/header-cache.ts";
import { scanHeaders } from "../scan/scan.ts";
import { unsafeAnchors } from "../trust/anchors.ts";
import { describeFindings, findInstructions } from "../trust/quarantine.ts";
import { findSecrets, secretKindPhrase } from "../trust/secrets.ts";
import { updateIndex } from "../write/write.ts";
import { type FileIssue, fileContentIssue, listTree, skippedFileIssues } from "./doctor-files.ts";

/** Doctor reports its checks every this many memories: often enough to move, rarely enough to cost nothing. */
const PROGRESS_EVERY = 256;

/** One problem `memdir doctor` found. `file` is relative to the memory dir. */
export interface DoctorIssue {
  code:
    | "dead-pointer"
    | "duplicate-pointer"
    | "missing-pointer"
    | FrontmatterIssue["code"]
    | "index-too-long"
    | "index-too-large"
    | "secret"
    | "instruction-like"
    | "unsafe-anchor"
    | "stale-temp"
    | "sync-conflict"
    | FileIssue["code"];
  file: string;
  message: string;
}

/**
 * One group of {@link diagnoseMemoryDir}'s checks as it finishes: `index` (`MEMORY.md`'s pointers,
 * limits and secrets), `memories` (each memory file; told every few hundred files, `done` of
 * `total`), `files` (files the scan skips) and `temp-files` (killed writers' temp files), with the
 * issues found since the previous one.
 */
export interface DoctorCheck {
  check: "index" | "memories" | "files" | "temp-files";
  issues: DoctorIssue[];
  done: number;
  total: number;
}

/** Options of {@link diagnoseMemoryDir}. */
export interface DiagnoseOptions {
  /** Where the header scan and the per-file checks report how far they are. */
  progress?: ProgressSink;
  /** Told each group of checks as it finishes, so a caller can show findings before the last one (the web view's Health page). */
  onCheck?: (check: DoctorCheck) => void;
  /** Ends the checks early (the page that asked went away). */
  signal?: AbortSignal;
}

/**
 * Checks a memory directory: index lines pointing at missing files (or listed twice), memory
 * files without an index line, missing or invalid `type`/`description` (as the 30-line header
 * scan sees them), an index over its load limits, secrets at rest, temp files left by a
 * killed writer, sync conflicts left to resolve (`conflictOf:`), and bad files (binary, over 1 MB, not UTF-8, unreadable, symlinks that loop,
 * dangle or leave the dir — see `doctor-files.ts`). Reads only.
 *
 * @example
 * const issues = await diagnoseMemoryDir(memoryDir);
 */
export async function diagnoseMemoryDir(
  memoryDir: string,
  options: DiagnoseOptions = {},
): Promise<DoctorIssue[]> {
  const { progress, signal } = options;
  const issues: DoctorIssue[] = [];
  let reported = 0;
  const finish = (check: DoctorCheck["check"], done: number, total: number) => {
    options.onCheck?.({ check, issues: issues.slice(reported), done, total });
    reported = issues.length;
  };
  const pointed = await indexIssues(memoryDir, issues);
  // The index's checks need no header: they are told first, before the scan of every file.
  finish("index", 1, 1);
  throwIfAborted(signal, "doctor");
  const headers = await scanHeaders(memoryDir, { cache: null, progress, signal });
  for (const [checked, header] of headers.entries()) {
    if (checked % PROGRESS_EVERY === 0) {
      throwIfAborted(signal, "doctor");
      progress?.("checking memories", checked, headers.length);
      if (checked > 0) finish("memories", checked, headers.length);
    }
    issues.push(...(await memoryFileIssues(header, pointed)));
  }
  if (headers.length > 0) progress?.("checking memories", headers.length, headers.length);
  finish("memories", headers.length, headers.length);
  // One listing of the tree serves both checks below.
  const names = await listTree(memoryDir);
  issues.push(...(await skippedFileIssues(memoryDir, new Set(headers.map((h) => h.file)), names)));
  finish("files", 1, 1);
  for (const name of staleTempFiles(names))
    issues.push({
      code: "stale-temp",
      file: name,
      message: `${name} is a temp file left by a killed writer`,
    });
  finish("temp-files", 1, 1);
  return issues;
}

/**
 * The index's checks (lines that point nowhere or twice, its load limits, secrets), pushed onto
 * `issues`; returns the files its lines point at.
 */
async function indexIssues(memoryDir: string, issues: DoctorIssue[]): Promise<Set<string>> {
  const index = await readIndex(memoryDir);
  const entries = parseIndex(index.raw);
  const pointed = new Set<string>();
  // Stat'ed all at once, not one await per line: 20,000 index lines took seconds one by one, and
  // the web view's Health page waits for this check before its first finding.
  const present = await Promise.all(entries.map((entry) => isMemoryFile(memoryDir, entry)));
  for (const [position, entry] of entries.entries()) {
    if (pointed.has(entry.file)) {
      issues.push({
        code: "duplicate-pointer",
        file: entry.file,
        message: `${INDEX_FILE} line ${entry.lineNumber} points at ${entry.file} again`,
      });
      continue;
    }
    pointed.add(entry.file);
    if (!present[position]) {
      issues.push({
        code: "dead-pointer",
        file: entry.file,
        message: `${INDEX_FILE} line ${entry.lineNumber} points at ${entry.file}, which does not exist`,
      });
    }
  }
  if (index.lines > INDEX_MAX_LINES) {
    issues.push({
      code: "index-too-long",
      file: INDEX_FILE,
      message: `${INDEX_FILE} has ${index.lines} lines; only the first ${INDEX_MAX_LINES} are loaded — ${INDEX_OVER_LIMIT_FIX}`,
    });
  }
  if (index.bytes > INDEX_MAX_BYTES) {
    issues.push({
      code: "index-too-large",
      file: INDEX_FILE,
      message: `${INDEX_FILE} has ${index.bytes} bytes; only the first ${INDEX_MAX_BYTES} are loaded — ${INDEX_OVER_LIMIT_FIX}`,
    });
  }
  issues.push(...secretIssues(INDEX_FILE, index.raw));
  return pointed;
}

/** One memory file's checks: its index line, its content, frontmatter, secrets, instructions, a sync conflict. */
async function memoryFileIssues(
  header: { file: string; path: string },
  pointed: ReadonlySet<string>,
): Promise<DoctorIssue[]> {
  const issues: DoctorIssue[] = [];
  if (!pointed.has(header.file)) {
    issues.push({
      code: "missing-pointer",
      file: header.file,
      message: `${header.file} has no line in ${INDEX_FILE}`,
    });
  }
  const bytes = await readRegularFile(header.path).then((read) => read.bytes, nullUnlessRefused);
  if (bytes === null) return issues;
  const contentIssue = fileContentIssue(header.file, bytes);
  if (contentIssue) issues.push(contentIssue);
  if (contentIssue?.code === "binary") return issues; // frontmatter and secret checks mean nothing here
  const text = bytes.toString("utf8");
  const parsed = parseFrontmatter(text, { maxLines: HEADER_MAX_LINES });
  for (const issue of parsed.issues) {
    issues.push({ code: issue.code, file: header.file, message: `${header.file}: ${issue.message}` });
  }
  for (const anchor of unsafeAnchors(parsed.data))
    issues.push({
      code: "unsafe-anchor",
      file: header.file,
      message: `${header.file}: anchor ${anchor.position} has ${anchor.reason}, so it is ignored (it could forge lines under recall's header): remove it by hand`,
    });
  issues.push(...secretIssues(header.file, text));
  issues.push(...instructionIssues(header.file, text));
  const original = conflictOf(text);
  if (original !== null)
    issues.push({
      code: "sync-conflict",
      file: header.file,
      // Not "the other machine's": the machine that found the conflict keeps its own text in the
      // memory, and every other machine pulls the pair as it is, its own text then in this file.
      message: `${header.file} is the other version of ${original} (a sync conflict; the two machines' texts are in these two files): merge what you need into ${original}, then delete ${header.file}`,
    });
  return issues;
}

function secretIssues(file: string, text: string): DoctorIssue[] {
  // The name is checked too: a token used as a file name also sits in MEMORY.md (docs/design.md#secrets).
  const inName = findSecrets(file).map((found) => ({
    code: "secret" as const,
    file,
    message: `the file name ${file} holds what looks like ${secretKindPhrase(found.kind)}; rename it by hand`,
  }));
  return [
    ...inName,
    ...findSecrets(text).map((found) => ({
      code: "secret" as const,
      file,
      message: `${file} line ${found.line} holds what looks like ${secretKindPhrase(found.kind)}; remove it by hand`,
    })),
  ];
}

// Text at rest that the quarantine would hold (docs/design.md#quarantine): an explicit save that
// got the warning, a hand edit, or text written before the rules knew it. A future session reads
// it as context, so it is reported with what was found, the words and how they were read.
function instructionIssues(file: string, text: string): DoctorIssue[] {
  return findInstructions(text).map((finding) => ({
    code: "instruction-like" as const,
    file,
    message: `${file} holds ${describeFindings([finding])}; a future session reads it as context: remove it by hand unless it is meant`,
  }));
}

async function isMemoryFile(memoryDir: string, entry: IndexEntry): Promise<boolean> {
  if (entry.file.split("/").includes("..") || path.isAbsolute(entry.file)) return false;
  const stat = await fs.stat(path.join(memoryDir, entry.file)).catch(() => null);
  return stat?.isFile() ?? false;
}

/** Temp files of `writeFileAtomic` whose writer process is gone. */
function staleTempFiles(names: readonly string[]): string[] {
  return names.filter((name) => {
    const pid = tempFileWriterPid(path.posix.basename(name));
    return pid !== null && (pid === process.pid ? false : !processIsAlive(pid));
  });
}

/** The findings {@link repairMemoryDir} repairs (`memdir doctor --fix`; the web view's Health button). */
export const REPAIRABLE_CODES: ReadonlySet<string> = new Set([
  "dead-pointer",
  "duplicate-pointer",
  "missing-pointer",
  "stale-temp",
]);

/**
 * Repairs what is safe, under the writer lock (which also clears a lock left by a dead writer):
 * dead and duplicate pointers are removed, missing pointers are added from the files'
 * descriptions (never for a description that holds a secret), dead writers' temp files are
 * deleted. Returns one line per repair.
 */
export async function repairMemoryDir(memoryDir: string): Promise<string[]> {
  const fixed: string[] = [];
  await withMemoryLock(memoryDir, async () => {
    const issues = await diagnoseMemoryDir(memoryDir);
    const headers = new Map((await scanHeaders(memoryDir, { cache: null })).map((h) => [h.file, h]));
    // Every index change of the repair is collected first and written once (applyIndexChanges).
    const remove = new Set<string>();
    const add: { title: string; file: string; hook: string }[] = [];
    // A file doctor has more to say about is not indexed by the repair: its line would carry
    // mis-decoded text, or words the session must not read as an instruction, into every session's
    // index (the session-start filter would only leave it out again); the issue stays for the user.
    const notToIndex = new Set(
      issues.filter((issue) => UNINDEXABLE.has(issue.code)).map((issue) => issue.file),
    );
    for (const issue of issues) {
      if (issue.code === "dead-pointer") {
        remove.add(issue.file);
        fixed.push(`removed the line for missing ${issue.file}`);
      } else if (issue.code === "duplicate-pointer") {
        fixed.push(`removed a second line for ${issue.file}`);
      } else if (issue.code === "missing-pointer") {
        const description = headers.get(issue.file)?.description;
        if (!description || notToIndex.has(issue.file) || findSecrets(description).length > 0) continue;
        const entry = { title: defaultTitle(issue.file, description), file: issue.file, hook: description };
        // Only a line that reads back as this file: one that does not (a name with a line break,
        // which the scan leaves out anyway) would be added again at every repair, lines and all.
        if (hasControlCharacter(issue.file) || parseIndex(formatIndexLine(entry))[0]?.file !== issue.file)
          continue;
        add.push(entry);
        fixed.push(`added a line for ${issue.file}`);
      }
    }
    await updateIndex(memoryDir, (text) => applyIndexChanges(text, { remove, add }));
    for (const issue of issues) {
      if (issue.code !== "stale-temp") continue;
      await fs.rm(path.join(memoryDir, issue.file), { force: true });
      fixed.push(`deleted ${issue.file}`);
    }
  });
  return fixed;
}

/** Issues that keep `--fix` from adding a file's index line. */
const UNINDEXABLE = new Set([
  "invalid-utf8",
  "binary",
  "too-large",
  "unreadable",
  "unsafe-name",
  "instruction-like",
]);

/** What to do about an index over its limits: what `add` says when it pushes the index past them. */
const INDEX_OVER_LIMIT_FIX =
  "keep each entry to one short line, merge or remove old memories (`memdir dream` consolidates them)";
