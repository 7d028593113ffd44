import path from "node:path";
import { loadMemoryDocuments } from "../dream/dedupe.ts";
import { recordChange } from "../dream/history.ts";
import { MemdirError } from "../errors.ts";
import { parseFrontmatter } from "../memdir/format/frontmatter.ts";
import { slugFor } from "../memdir/format/memory-names.ts";
import { describeFindings, findInstructions } from "../memdir/trust/quarantine.ts";
import { isPending, listProposals } from "../memdir/write/proposal-store.ts";
import { proposeChanges } from "../memdir/write/scratch.ts";
import {
  previewSave,
  type SaveMemoryInput,
  type SaveMemoryResult,
  saveMemoriesTogether,
  type WriteOptions,
} from "../memdir/write/write.ts";
import { checkedTarget, exists, freeTarget } from "../memdir/write/write-targets.ts";
import type { Clock, MemoryMode } from "../types.ts";
import { type Decision, importedFromOf, KnownMemories, type KnownMemory } from "./plan.ts";
import type { ImportCandidate, ImportReport } from "./sources/types.ts";

export interface ImportIntoOptions {
  /** Report what would happen; write nothing, record nothing. */
  dryRun?: boolean;
  /** The project anchors resolve against (the memory dir's project), null for none. */
  projectRoot: string | null;
  /** What the history entry says was imported (`claude-mem from ~/.claude-mem/claude-mem.db`). */
  what: string;
  /**
   * The memory dir's `memoryMode` (docs/modes.md#memory-modes): under `review` and `manual` the
   * import is written as ONE proposal in the inbox, as an automatic writer's work is, and every
   * memory it holds is reported as skipped with the proposal to accept. Default `auto`.
   */
  memoryMode?: MemoryMode;
  /** How the inbox command names this memory dir (` --dir …` for another project's), for the reasons. */
  inboxFlags?: string;
  now?: Clock;
  /** Called after each candidate, with how many are done of how many (a progress count). */
  onProgress?: (done: number, total: number) => void;
}

/**
 * Imports `candidates` into one memory dir (docs/design.md#import-and-export): each through the
 * single writer as an automatic writer (`source: import`: a secret is refused, instruction-like
 * text waits in the inbox), dated by its source, and the whole import recorded as ONE history
 * entry, so one `memdir undo` takes it back. A candidate the writer refuses is skipped and said;
 * the rest go on. Under `memoryMode` review or manual the same import runs on a scratch copy and
 * becomes one proposal (source `import`): nothing in the memory dir changes until it is accepted.
 *
 * @example
 * const report = await importInto(memoryDir, read.candidates, { projectRoot, what: "mem0 from export.json" });
 * report.imported // ["user-prefers-dark-mode.md"]
 */
export async function importInto(
  memoryDir: string,
  candidates: readonly ImportCandidate[],
  options: ImportIntoOptions,
): Promise<ImportReport> {
  const waiting = await keysWaitingForReview(memoryDir);
  const mode = options.memoryMode ?? "auto";
  if (mode === "auto") return (await importDirect(memoryDir, candidates, options, waiting, true)).report;
  if (options.dryRun) {
    const outcome = await importDirect(memoryDir, candidates, options, waiting, false);
    return heldForReview(outcome, (file) => `would wait for review as ${file} (memoryMode ${mode})`);
  }
  let outcome: DirectOutcome | undefined;
  const proposal = await proposeChanges(memoryDir, {
    source: "import",
    now: options.now,
    run: async (scratchDir) => {
      outcome = await importDirect(scratchDir, candidates, options, waiting, false);
      const { imported, merged, skipped } = outcome.report;
      return `import ${options.what}: ${imported.length} to import, ${merged.length} to merge, ${skipped.length} skipped`;
    },
  });
  if (!outcome) return { imported: [], merged: [], skipped: [] };
  const id = proposal?.id;
  return heldForReview(
    outcome,
    (file) =>
      `waits for review as ${file} (memoryMode ${mode}): memdir inbox accept ${id}${options.inboxFlags ?? ""}`,
  );
}

/** A direct import's report, and which source became which file. */
interface DirectOutcome {
  report: ImportReport;
  written: { source: string; file: string }[];
}

/** Every memory an import wrote (or would write) reported as waiting in the inbox instead. */
function heldForReview(outcome: DirectOutcome, reason: (file: string) => string): ImportReport {
  return {
    imported: [],
    merged: [],
    skipped: [
      ...outcome.written.map(({ source, file }) => ({ source, reason: reason(file) })),
      ...outcome.report.skipped,
    ],
  };
}

/**
 * The `imported_from` keys that pending proposals hold, each with its proposal's id: what an
 * earlier import proposed under review, or what the quarantine held from one.
 */
async function keysWaitingForReview(memoryDir: string): Promise<Map<string, string>> {
  const waiting = new Map<string, string>();
  for (const proposal of await listProposals(memoryDir)) {
    if (!isPending(proposal) || proposal.source !== "import") continue;
    for (const change of proposal.changes) {
      if (change.after === null) continue;
      for (const key of importedFromOf(parseFrontmatter(change.after).data))
        if (!waiting.has(key)) waiting.set(key, proposal.id);
    }
  }
  return waiting;
}

/**
 * The import itself, into `memoryDir` (the memory dir, or a scratch copy of it under review): one
 * hold of the writer lock, and with `record` one history entry.
 */
async function importDirect(
  memoryDir: string,
  candidates: readonly ImportCandidate[],
  options: ImportIntoOptions,
  waiting: ReadonlyMap<string, string>,
  record: boolean,
): Promise<DirectOutcome> {
  // One read of the memory dir serves both the duplicate test and the names taken.
  const documents = await loadMemoryDocuments(memoryDir);
  const known = new KnownMemories(knownMemories(documents), waiting);
  const files = new Set(documents.map((doc) => doc.file.toLowerCase()));
  const outcome: DirectOutcome = { report: { imported: [], merged: [], skipped: [] }, written: [] };
  // Under review the import becomes one proposal (a dry run of it too: it says what would wait).
  const proposing = !record;
  const run = async (save: Save) => {
    const batch: Batch = { memoryDir, save, known, files, outcome };
    for (const [index, candidate] of candidates.entries()) {
      const decision = known.decide(candidate);
      await carryOut(batch, decision, { ...options, proposing });
      options.onProgress?.(index + 1, candidates.length);
    }
    return outcome;
  };
  if (options.dryRun) return run(dryRunSave(memoryDir));
  if (!record) return saveMemoriesTogether(memoryDir, run);
  await recordChange(
    memoryDir,
    {
      kind: "import",
      command: "memdir import",
      now: options.now,
      message: (result) =>
        `import ${options.what}: ${result?.report.imported.length ?? 0} imported, ${result?.report.merged.length ?? 0} merged, ` +
        `${result?.report.skipped.length ?? 0} skipped`,
    },
    // One hold of the writer lock and one index write for the whole import.
    () => saveMemoriesTogether(memoryDir, run),
  );
  return outcome;
}

/** The batch writer's save (in a dry run, {@link dryRunSave}, which writes nothing). */
type Save = (input: SaveMemoryInput, options?: WriteOptions) => Promise<SaveMemoryResult>;

/** What one import into one memory dir carries from candidate to candidate. */
interface Batch {
  /** The memory dir written (or a scratch copy of it under review). */
  memoryDir: string;
  save: Save;
  known: KnownMemories;
  /** The memory dir's files, lower-case, with those this import wrote (or would write) so far. */
  files: Set<string>;
  outcome: DirectOutcome;
}

/**
 * A dry run's save: the writer's own steps without the write (`previewSave`: every refusal the
 * real run would meet, a control character a merge adds and a merged memory over the size limit
 * included, instruction-like text said to wait in the inbox), each save reading what the ones
 * before it would have written. The file is the one the real run passes (`fileFor`), so a dry run
 * names what the real run writes (docs/design.md#import-and-export).
 */
function dryRunSave(memoryDir: string): Save {
  const pending = new Map<string, string>();
  return async (input, options) => {
    const { text, ...result } = await previewSave(memoryDir, input, options, pending);
    pending.set(result.file, text);
    return result;
  };
}

function knownMemories(documents: Awaited<ReturnType<typeof loadMemoryDocuments>>): KnownMemory[] {
  return documents.map((doc) => {
    const parsed = parseFrontmatter(doc.text);
    return {
      file: doc.file,
      type: doc.type,
      description: doc.description,
      body: doc.body,
      data: parsed.data,
      modifiedMs: parsed.modifiedMs,
      importedFrom: importedFromOf(parsed.data),
    };
  });
}

async function carryOut(
  batch: Batch,
  decision: Decision,
  options: ImportIntoOptions & { proposing: boolean },
): Promise<void> {
  const { report } = batch.outcome;
  const { candidate } = decision;
  if (decision.action === "skip") {
    report.skipped.push({ source: candidate.label, reason: decision.reason });
    return;
  }
  const origin = {
    source: "import" as const,
    projectRoot: options.projectRoot,
    // Under review the whole import is one proposal: instruction-like text is named in its
    // reason rather than held on its own (docs/design.md#quarantine).
    ...(options.proposing ? { proposing: true } : {}),
  };
  try {
    const how = { origin, now: options.now };
    if (decision.action === "merge") await carryOutMerge(batch, decision, how);
    else await carryOutImport(batch, candidate, how);
  } catch (error) {
    // Refused by the writer (a secret, held for review, a name it will not write): this one is
    // skipped and said, the import goes on. Anything else (a full disk) stops it: what was
    // written is in the history entry, and one undo takes it back.
    if (!(error instanceof MemdirError) || error.code === "io" || error.code === "lock-lost") throw error;
    const reason =
      error.code === "quarantined" ? heldInSourceWords(error.message, candidate.body) : error.message;
    report.skipped.push({ source: candidate.label, reason: reason.replace(/^memdir: /, "") });
  }
}

/**
 * The quarantine's reason for a held import, with the line counted in the source's own text: the
 * writer counts in the memory it would have written, whose frontmatter memdir made (a one-line
 * note was held "at line 9"). Unchanged when the finding is not in the text (a title, a description).
 */
function heldInSourceWords(message: string, body: string): string {
  const findings = findInstructions(body);
  const waits = /; (it (?:waits|would wait) .*)$/.exec(message)?.[1];
  if (findings.length === 0 || waits === undefined) return message;
  return `not imported: its text holds ${describeFindings(findings)}, which a memory must not tell a future session; ${waits}`;
}

/** How an import writes: as `source: import`, with the run's clock. */
interface ImportWrite {
  origin: NonNullable<WriteOptions["origin"]>;
  now: ImportIntoOptions["now"];
}

/** A candidate merged into the memory it duplicates: its body, and its key added to `imported_from`. */
async function carryOutMerge(
  { save, known, outcome }: Batch,
  decision: Extract<Decision, { action: "merge" }>,
  how: ImportWrite,
): Promise<void> {
  const { report } = outcome;
  const { candidate } = decision;
  const { into } = decision;
  const importedFrom = [...into.importedFrom, candidate.key];
  const modifiedMs = Math.max(into.modifiedMs ?? 0, candidate.modifiedMs ?? 0) || undefined;
  await save(
    {
      file: into.file,
      replace: true,
      type: into.type,
      description: into.description,
      body: decision.body,
      extra: { ...into.data, imported_from: importedFrom },
    },
    { origin: how.origin, now: how.now, modifiedAt: modifiedMs },
  );
  known.add({ ...into, body: decision.body, importedFrom, modifiedMs: modifiedMs ?? null });
  if (!report.merged.includes(into.file)) report.merged.push(into.file);
  outcome.written.push({ source: candidate.label, file: into.file });
}

/** A candidate written as a new memory, under the file {@link fileFor} picks. */
async function carryOutImport(batch: Batch, candidate: ImportCandidate, how: ImportWrite): Promise<void> {
  const { save, known, files, outcome } = batch;
  const input = {
    type: candidate.type,
    description: candidate.description,
    body: candidate.body,
    ...(candidate.title ? { title: candidate.title } : {}),
    file: await fileFor(batch.memoryDir, candidate, files),
    replace: false,
    extra: { ...candidate.extra, imported_from: candidate.key },
  };
  const { file } = await save(input, {
    origin: how.origin,
    now: how.now,
    modifiedAt: candidate.modifiedMs ?? undefined,
  });
  files.add(file.toLowerCase());
  known.add({
    file,
    type: candidate.type,
    description: candidate.description,
    body: candidate.body,
    data: input.extra,
    modifiedMs: candidate.modifiedMs ?? null,
    importedFrom: [candidate.key],
  });
  outcome.report.imported.push(file);
  outcome.written.push({ source: candidate.label, file });
}

/**
 * The file a new memory gets (docs/design.md#import-and-export): the source's own name (a note's,
 * an export's `file`, sub-folders included) when the writer takes it for a new memory (inside the
 * memory dir, not the index, not hidden, a name the common file systems hold) and no file has it
 * yet, so `[[links]]` to it still resolve and an export comes back as the same files; else the
 * name the writer derives from the type and description, numbered past the names taken. A dry
 * run and a real one both ask this, so both name the same file.
 */
async function fileFor(memoryDir: string, candidate: ImportCandidate, taken: Set<string>): Promise<string> {
  if (candidate.fileName) {
    const own = await checkedTarget(memoryDir, candidate.fileName.normalize("NFC"), { newName: true }).catch(
      refusedName,
    );
    if (own && !taken.has(own.file.toLowerCase()) && !(await exists(own.path))) return own.file;
  }
  return (await freeTarget(memoryDir, slugFor(candidate.type, candidate.description), taken)).file;
}

/** Null for a name the writer refuses (it falls back to a derived one); anything else is thrown. */
function refusedName(error: unknown): null {
  if (error instanceof MemdirError && (error.code === "invalid-input" || error.code === "path-outside"))
    return null;
  throw error;
}

/** `file` as the report names it: plain for the memory dir asked for, else its full path. */
export function reportedPath(memoryDir: string, file: string, primary: boolean): string {
  return primary ? file : path.join(memoryDir, file);
}
