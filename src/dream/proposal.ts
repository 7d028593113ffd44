import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { MemdirError } from "../errors.ts";
import { readRegularText } from "../memdir/regular-file.ts";
import { removeMemoryIfPresent, writeFileAtomic, writeMemoryText } from "../memdir/write.ts";
import type { Clock } from "../types.ts";
import { type HistoryEntry, recordChange } from "./history.ts";
import { listTrackedFiles } from "./history-journal.ts";

/**
 * Propose mode (`--propose`, setting `autoDream.mode: "propose"`): a consolidation runs against a
 * scratch copy of the memory dir, and the difference is stored as `.proposals/<id>/proposal.json`.
 * Nothing in the memory dir changes until `memdir dream --apply <id>`.
 */
export const PROPOSALS_DIR = ".proposals";

/** One file a proposal changes; `before` is checked again when applying. */
export interface ProposedChange {
  file: string;
  action: "add" | "modify" | "delete";
  /** The text when the proposal was made (null: the file did not exist). */
  before: string | null;
  /** The proposed text (null: delete). */
  after: string | null;
}

export interface Proposal {
  id: string;
  createdAt: string;
  source: "dream" | "dedupe";
  summary: string;
  changes: ProposedChange[];
  appliedAt?: string;
  /** The history entry the apply recorded. */
  historyId?: string | null;
}

/** Copies the memory files and the index into a fresh scratch dir (removed by `dispose`). */
export async function createScratchCopy(
  memoryDir: string,
): Promise<{ dir: string; dispose(): Promise<void> }> {
  const parent = await fs.mkdtemp(path.join(os.tmpdir(), "memdir-proposal-"));
  const dir = path.join(parent, "memory");
  await fs.mkdir(dir);
  for (const file of await listTrackedFiles(memoryDir)) {
    const target = path.join(dir, file);
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.copyFile(path.join(memoryDir, file), target);
  }
  return { dir, dispose: () => fs.rm(parent, { recursive: true, force: true }) };
}

async function readOrNull(file: string): Promise<string | null> {
  // Never blocks on a FIFO or device in a memory's place (docs/design.md#reading-files).
  return readRegularText(file).catch(() => null);
}

/** The changes that turn `memoryDir` into `changedDir` (memory files and the index only). */
export async function diffMemoryDirs(memoryDir: string, changedDir: string): Promise<ProposedChange[]> {
  const files = [
    ...new Set([...(await listTrackedFiles(memoryDir)), ...(await listTrackedFiles(changedDir))]),
  ].sort();
  const changes: ProposedChange[] = [];
  for (const file of files) {
    const before = await readOrNull(path.join(memoryDir, file));
    const after = await readOrNull(path.join(changedDir, file));
    if (before === after) continue;
    changes.push({
      file,
      action: before === null ? "add" : after === null ? "delete" : "modify",
      before,
      after,
    });
  }
  return changes;
}

function proposalId(nowMs: number): string {
  const stamp = new Date(nowMs)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
  return `${stamp}-${randomBytes(3).toString("hex")}`;
}

function proposalFile(memoryDir: string, id: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(id))
    throw new MemdirError("invalid-input", `proposal: invalid id ${JSON.stringify(id)}`);
  return path.join(memoryDir, PROPOSALS_DIR, id, "proposal.json");
}

/**
 * Runs `run` on a scratch copy of the memory dir and stores what it changed as a proposal.
 * Returns null when the run changed nothing. `run` returns a one-line summary.
 *
 * @example
 * const proposal = await proposeChanges(memoryDir, { source: "dedupe", run: async (dir) => describeGroups((await dedupeMemories(dir)).groups) });
 */
export async function proposeChanges(
  memoryDir: string,
  options: { source: Proposal["source"]; run: (scratchDir: string) => Promise<string>; now?: Clock },
): Promise<Proposal | null> {
  const now = options.now ?? Date.now;
  const scratch = await createScratchCopy(memoryDir);
  try {
    const summary = await options.run(scratch.dir);
    const changes = await diffMemoryDirs(memoryDir, scratch.dir);
    if (changes.length === 0) return null;
    const proposal: Proposal = {
      id: proposalId(now()),
      createdAt: new Date(now()).toISOString(),
      source: options.source,
      summary,
      changes,
    };
    await saveProposal(memoryDir, proposal);
    return proposal;
  } finally {
    await scratch.dispose();
  }
}

/** Stores `proposal` as `.proposals/<id>/proposal.json` (atomic; replaces an earlier version). */
export async function saveProposal(memoryDir: string, proposal: Proposal): Promise<void> {
  const file = proposalFile(memoryDir, proposal.id);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await writeFileAtomic(file, `${JSON.stringify(proposal, null, 2)}\n`);
}

/** Reads one proposal; `MemdirError("not-found")` when there is none with that id. */
export async function loadProposal(memoryDir: string, id: string): Promise<Proposal> {
  const text = await readOrNull(proposalFile(memoryDir, id));
  if (text === null) throw new MemdirError("not-found", `proposal: no proposal ${id} in ${memoryDir}`);
  return JSON.parse(text) as Proposal;
}

/** Every proposal, newest first (applied ones included, marked by `appliedAt`). */
export async function listProposals(memoryDir: string): Promise<Proposal[]> {
  const names = await fs.readdir(path.join(memoryDir, PROPOSALS_DIR)).catch(() => [] as string[]);
  const proposals: Proposal[] = [];
  for (const name of names) {
    try {
      proposals.push(await loadProposal(memoryDir, name));
    } catch {
      // a broken proposal is skipped
    }
  }
  return proposals.sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1));
}

/**
 * The files of a plan whose text is no longer what the plan was made from (`before`; null: the
 * file did not exist then). A plan is applied only to files unchanged since: `dream --apply`
 * refuses a proposal with any, the offline dream leaves each merge with any alone.
 *
 * @example
 * const changed = await changedSincePlanned(memoryDir, proposal.changes); // ["feedback-real-db.md"]
 */
export async function changedSincePlanned(
  memoryDir: string,
  planned: readonly { file: string; before: string | null }[],
): Promise<string[]> {
  const changed: string[] = [];
  for (const { file, before } of planned)
    if ((await readOrNull(path.join(memoryDir, file))) !== before) changed.push(file);
  return changed;
}

/**
 * Applies a stored proposal through the single writer, recorded in the history first (kind
 * `apply`), so it can be undone like a consolidation. Refused when a file it changes was edited
 * since the proposal was made (make a new proposal), or when it was applied already.
 */
export async function applyProposal(
  memoryDir: string,
  id: string,
  options: { now?: Clock } = {},
): Promise<{ proposal: Proposal; entry: HistoryEntry | null }> {
  const now = options.now ?? Date.now;
  const proposal = await loadProposal(memoryDir, id);
  if (proposal.appliedAt)
    throw new MemdirError("invalid-input", `proposal: ${id} was already applied at ${proposal.appliedAt}`);
  const stale = await changedSincePlanned(memoryDir, proposal.changes);
  if (stale.length > 0)
    throw new MemdirError(
      "invalid-input",
      `proposal: ${id} is out of date: ${stale.join(", ")} changed since it was made; run memdir dream --propose again`,
    );
  const { entry } = await recordChange(
    memoryDir,
    {
      kind: "apply",
      message: `proposal ${id}: ${proposal.summary}`,
      now,
      files: proposal.changes.map((c) => c.file),
    },
    async () => {
      // Deletions first (they also drop index lines); the proposed index text, if any, is written last.
      const ordered = [...proposal.changes].sort((a, b) => rank(a) - rank(b));
      for (const change of ordered) {
        if (change.after === null) await removeMemoryIfPresent(memoryDir, change.file);
        else await writeMemoryText(memoryDir, change.file, change.after);
      }
    },
  );
  const applied: Proposal = {
    ...proposal,
    appliedAt: new Date(now()).toISOString(),
    historyId: entry?.id ?? null,
  };
  await saveProposal(memoryDir, applied);
  return { proposal: applied, entry };
}

function rank(change: ProposedChange): number {
  if (change.after === null) return 0;
  return path.posix.basename(change.file) === "MEMORY.md" ? 2 : 1;
}
