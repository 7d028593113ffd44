import path from "node:path";
import { loadMemoryDocuments } from "../dream/dedupe.ts";
import { recordChange } from "../dream/history.ts";
import { MemdirError } from "../errors.ts";
import { parseFrontmatter } from "../memdir/format/frontmatter.ts";
import { slugFor } from "../memdir/format/memory-names.ts";
import { describeFindings, findInstructions } from "../memdir/trust/quarantine.ts";
import { findSecrets, secretKindPhrase } from "../memdir/trust/secrets.ts";
import {
  type SaveMemoryInput,
  type SaveMemoryResult,
  saveMemoriesTogether,
  type WriteOptions,
} from "../memdir/write/write.ts";
import type { Clock } from "../types.ts";
import { type Decision, importedFromOf, KnownMemories, type KnownMemory } from "./plan.ts";
import type { ImportCandidate, ImportReport } from "./sources/types.ts";

export interface ImportIntoOptions {
  /** Report what would happen; write nothing, record nothing. */
  dryRun?: boolean;
  /** The project anchors resolve against (the memory dir's project), null for none. */
  projectRoot: string | null;
  /** What the history entry says was imported (`claude-mem from ~/.claude-mem/claude-mem.db`). */
  what: string;
  now?: Clock;
  /** Called after each candidate, with how many are done of how many (a progress count). */
  onProgress?: (done: number, total: number) => void;
}

/**
 * Imports `candidates` into one memory dir (docs/design.md#import-and-export): each through the
 * single writer as an automatic writer (`source: import`: a secret is refused, instruction-like
 * text waits in the inbox), dated by its source, and the whole import recorded as ONE history
 * entry, so one `memdir undo` takes it back. A candidate the writer refuses is skipped and said;
 * the rest go on.
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
  // One read of the memory dir serves both the duplicate test and the names taken.
  const documents = await loadMemoryDocuments(memoryDir);
  const known = new KnownMemories(knownMemories(documents));
  const files = new Set(documents.map((doc) => doc.file.toLowerCase()));
  const report: ImportReport = { imported: [], merged: [], skipped: [] };
  const run = async (save: Save | null) => {
    for (const [index, candidate] of candidates.entries()) {
      const decision = known.decide(candidate);
      await carryOut(save, decision, known, files, report, options);
      options.onProgress?.(index + 1, candidates.length);
    }
    return report;
  };
  if (options.dryRun) return run(null);
  await recordChange(
    memoryDir,
    {
      kind: "import",
      command: "memdir import",
      now: options.now,
      message: (result) =>
        `import ${options.what}: ${result?.imported.length ?? 0} imported, ${result?.merged.length ?? 0} merged, ` +
        `${result?.skipped.length ?? 0} skipped`,
    },
    // One hold of the writer lock and one index write for the whole import.
    () => saveMemoriesTogether(memoryDir, run),
  );
  return report;
}

/** The batch writer's save (null in a dry run, which writes nothing). */
type Save = (input: SaveMemoryInput, options?: WriteOptions) => Promise<SaveMemoryResult>;

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
  save: Save | null,
  decision: Decision,
  known: KnownMemories,
  files: Set<string>,
  report: ImportReport,
  options: ImportIntoOptions,
): Promise<void> {
  const { candidate } = decision;
  if (decision.action === "skip") {
    report.skipped.push({ source: candidate.label, reason: decision.reason });
    return;
  }
  const origin = { source: "import" as const, projectRoot: options.projectRoot };
  if (options.dryRun) {
    const refusal = dryRunRefusal(candidate);
    if (refusal) {
      report.skipped.push({ source: candidate.label, reason: refusal });
      return;
    }
  }
  try {
    if (decision.action === "merge") {
      const { into } = decision;
      const importedFrom = [...into.importedFrom, candidate.key];
      const modifiedMs = Math.max(into.modifiedMs ?? 0, candidate.modifiedMs ?? 0) || undefined;
      if (save)
        await save(
          {
            file: into.file,
            replace: true,
            type: into.type,
            description: into.description,
            body: decision.body,
            extra: { ...into.data, imported_from: importedFrom },
          },
          { origin, now: options.now, modifiedAt: modifiedMs },
        );
      known.add({ ...into, body: decision.body, importedFrom, modifiedMs: modifiedMs ?? null });
      if (!report.merged.includes(into.file)) report.merged.push(into.file);
      return;
    }
    const wanted =
      candidate.fileName &&
      PLAIN_FILE_NAME.test(candidate.fileName) &&
      !files.has(candidate.fileName.toLowerCase())
        ? candidate.fileName
        : undefined;
    const input = {
      type: candidate.type,
      description: candidate.description,
      body: candidate.body,
      ...(candidate.title ? { title: candidate.title } : {}),
      ...(wanted ? { file: wanted, replace: false } : {}),
      extra: { ...candidate.extra, imported_from: candidate.key },
    };
    const file = save
      ? (
          await save(input, {
            origin,
            now: options.now,
            modifiedAt: candidate.modifiedMs ?? undefined,
          })
        ).file
      : (wanted ?? `${slugFor(candidate.type, candidate.description)}.md`);
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
    report.imported.push(file);
  } catch (error) {
    // Refused by the writer (a secret, held for review, a name it will not write): this one is
    // skipped and said, the import goes on. Anything else (a full disk) stops it: what was
    // written is in the history entry, and one undo takes it back.
    if (!(error instanceof MemdirError) || error.code === "io" || error.code === "lock-lost") throw error;
    report.skipped.push({ source: candidate.label, reason: error.message.replace(/^memdir: /, "") });
  }
}

// A source's own file name is kept only when it is a plain one: a note called `Deploy checklist.md`
// gets a name derived from its type and description, as any new memory does.
const PLAIN_FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*\.md$/;

/** What the writer would refuse, for a dry run that calls no writer. */
function dryRunRefusal(candidate: ImportCandidate): string | null {
  const text = `${candidate.description}\n${candidate.body}`;
  const secrets = findSecrets(text);
  if (secrets.length > 0) return `would be refused: it holds ${secretKindPhrase(secrets[0].kind)}`;
  const findings = findInstructions(text);
  if (findings.length > 0)
    return `would be held for review in the inbox: it holds ${describeFindings(findings)}`;
  return null;
}

/** `file` as the report names it: plain for the memory dir asked for, else its full path. */
export function reportedPath(memoryDir: string, file: string, primary: boolean): string {
  return primary ? file : path.join(memoryDir, file);
}
