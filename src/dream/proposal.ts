import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { MemdirError } from "../errors.ts";
import { readRegularText } from "../memdir/regular-file.ts";
import { parseFrontmatter } from "../memdir/frontmatter.ts";
import { INDEX_FILE, parseIndex, upsertIndexLine } from "../memdir/index-file.ts";
import { type Proposal, type ProposedChange, proposalId, saveProposal, loadProposal } from "../memdir/proposal-store.ts";
import { describeFindings, findInstructions } from "../memdir/quarantine.ts";
import { defaultTitle, removeMemoryIfPresent, updateIndex, writeMemoryText } from "../memdir/write.ts";
import type { Clock } from "../types.ts";
import { type HistoryEntry, recordChange } from "./history.ts";
import { listTrackedFiles } from "./history-journal.ts";

export {
  isPending,
  listProposals,
  loadProposal,
  PROPOSALS_DIR,
  type Proposal,
  type ProposalSource,
  type ProposedChange,
  saveProposal,
} from "../memdir/proposal-store.ts";

// Propose mode (`--propose`, setting `autoDream.mode: "propose"`, `memoryMode: review`): a writer
// runs against a scratch copy of the memory dir, and the difference is stored as
// `.proposals/<id>/proposal.json`. Nothing in the memory dir changes until it is applied.

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

/**
 * Runs `run` on a scratch copy of the memory dir and stores what it changed as a proposal.
 * Returns null when the run changed nothing. `run` returns a one-line summary. Instruction-like
 * text in the new lines is named in the proposal's `reason` (docs/design.md#quarantine).
 *
 * @example
 * const proposal = await proposeChanges(memoryDir, { source: "dedupe", run: async (dir) => describeGroups((await dedupeMemories(dir)).groups) });
 */
export async function proposeChanges(
  memoryDir: string,
  options: {
    source: Proposal["source"];
    run: (scratchDir: string) => Promise<string>;
    now?: Clock;
    session?: string;
  },
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
      ...(options.session ? { session: options.session } : {}),
    };
    const reason = quarantineReason(changes);
    if (reason) proposal.reason = reason;
    await saveProposal(memoryDir, proposal);
    return proposal;
  } finally {
    await scratch.dispose();
  }
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
 * What the quarantine finds in the lines a set of changes adds (lines already there were checked
 * when they were written), as one reason line, or undefined.
 */
export function quarantineReason(changes: readonly ProposedChange[]): string | undefined {
  const found: string[] = [];
  for (const change of changes) {
    if (change.after === null) continue;
    const known = new Set((change.before ?? "").split("\n"));
    const added = change.after
      .split("\n")
      .map((line) => (known.has(line) ? "" : line))
      .join("\n");
    const findings = findInstructions(added);
    if (findings.length > 0) found.push(describeFindings(findings, change.file));
  }
  return found.length > 0 ? found.join("; ") : undefined;
}

/**
 * Applies a stored proposal through the single writer, recorded in the history first (kind
 * `apply`), so it can be undone like a consolidation. Refused when a file it changes was edited
 * since the proposal was made (make a new proposal), or when it was applied, rejected or expired
 * already. `edits` replaces the proposed text of some files (`memdir inbox accept --edit`). A
 * memory it adds without an index line gets one, so nothing accepted is left out of `MEMORY.md`.
 */
export async function applyProposal(
  memoryDir: string,
  id: string,
  options: { now?: Clock; edits?: Readonly<Record<string, string>> } = {},
): Promise<{ proposal: Proposal; entry: HistoryEntry | null }> {
  const now = options.now ?? Date.now;
  const proposal = await loadProposal(memoryDir, id);
  if (proposal.appliedAt)
    throw new MemdirError("invalid-input", `proposal: ${id} was already applied at ${proposal.appliedAt}`);
  const closed = proposal.rejectedAt ? `rejected at ${proposal.rejectedAt}` : proposal.expiredAt ? `expired at ${proposal.expiredAt}` : null;
  if (closed) throw new MemdirError("invalid-input", `proposal: ${id} was ${closed}`);
  const stale = await changedSincePlanned(memoryDir, proposal.changes);
  if (stale.length > 0)
    throw new MemdirError(
      "invalid-input",
      `proposal: ${id} is out of date: ${stale.join(", ")} changed since it was made; ` +
        (proposal.source === "dream" || proposal.source === "dedupe"
          ? "run memdir dream --propose again"
          : `nothing was written (reject it with memdir inbox reject ${id})`),
    );
  const changes = proposal.changes.map((change) =>
    options.edits && change.after !== null && Object.hasOwn(options.edits, change.file)
      ? { ...change, after: options.edits[change.file] }
      : change,
  );
  const { entry } = await recordChange(
    memoryDir,
    {
      kind: "apply",
      message: `proposal ${id}: ${proposal.summary}`,
      now,
      files: [...new Set([...changes.map((c) => c.file), INDEX_FILE])],
    },
    async () => {
      // Deletions first (they also drop index lines); the proposed index text, if any, is written last.
      const ordered = [...changes].sort((a, b) => rank(a) - rank(b));
      for (const change of ordered) {
        if (change.after === null) await removeMemoryIfPresent(memoryDir, change.file);
        else await writeMemoryText(memoryDir, change.file, change.after);
      }
      if (!changes.some((change) => change.file === INDEX_FILE))
        await indexAddedMemories(memoryDir, changes);
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

/** Adds an index line for each memory `changes` adds that `MEMORY.md` does not point at yet. */
async function indexAddedMemories(memoryDir: string, changes: readonly ProposedChange[]): Promise<void> {
  const added = changes.filter((c) => c.action === "add" && c.after !== null && c.file !== INDEX_FILE);
  if (added.length === 0) return;
  await updateIndex(memoryDir, (text) => {
    let next = text;
    for (const change of added) {
      if (parseIndex(next).some((entry) => entry.file === change.file)) continue;
      const description = parseFrontmatter(change.after!).description ?? change.file;
      next = upsertIndexLine(next, { title: defaultTitle(change.file, description), file: change.file, hook: description });
    }
    return next;
  });
}

function rank(change: ProposedChange): number {
  if (change.after === null) return 0;
  return path.posix.basename(change.file) === "MEMORY.md" ? 2 : 1;
}
