import path from "node:path";
import { MemdirError } from "../errors.ts";
import { parseFrontmatter } from "../memdir/format/frontmatter.ts";
import { INDEX_FILE, parseIndex, upsertIndexLine } from "../memdir/format/index-file.ts";
import { defaultTitle } from "../memdir/format/memory-names.ts";
import { readRegularText } from "../memdir/fs/regular-file.ts";
import {
  loadProposal,
  type Proposal,
  type ProposedChange,
  saveProposal,
} from "../memdir/write/proposal-store.ts";
import { removeMemoryIfPresent, updateIndex, writeMemoryText } from "../memdir/write/write.ts";
import type { Clock } from "../types.ts";
import { recordChange } from "./history.ts";
import type { HistoryEntry } from "./history-types.ts";

// Propose mode (`--propose`, setting `autoDream.mode: "propose"`, `memoryMode: review`): a writer
// runs against a scratch copy of the memory dir, and the difference is stored as
// `.proposals/<id>/proposal.json`. Nothing in the memory dir changes until it is applied.

async function readOrNull(file: string): Promise<string | null> {
  // Never blocks on a FIFO or device in a memory's place (docs/design.md#reading-files).
  return readRegularText(file).catch(() => null);
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
  const closed = proposal.rejectedAt
    ? `rejected at ${proposal.rejectedAt}`
    : proposal.expiredAt
      ? `expired at ${proposal.expiredAt}`
      : null;
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
      // The proposal's id marks its entry: a sync that proposed the remote's changes finds this
      // apply by it, and reads its undo as the remote's changes again (src/sync/undone-pulls.ts).
      mark: proposal.id,
      now,
      files: [...new Set([...changes.map((c) => c.file), INDEX_FILE])],
    },
    async () => {
      // Deletions first (they also drop index lines); the proposed index text, if any, is written last.
      const ordered = [...changes].sort((a, b) => rank(a) - rank(b));
      for (const change of ordered) {
        if (change.after === null) await removeMemoryIfPresent(memoryDir, change.file);
        // A sync proposal is the remote's text: kept byte for byte, so the next sync sees it equal.
        // An import's keeps the date its source recorded as `modified` (docs/import.md), unless
        // the user edited it while accepting.
        else
          await writeMemoryText(memoryDir, change.file, change.after, {
            verbatim:
              proposal.source === "sync" ||
              (proposal.source === "import" && !Object.hasOwn(options.edits ?? {}, change.file)),
          });
      }
      if (!changes.some((change) => change.file === INDEX_FILE)) await indexAddedMemories(memoryDir, changes);
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
      next = upsertIndexLine(next, {
        title: defaultTitle(change.file, description),
        file: change.file,
        hook: description,
      });
    }
    return next;
  });
}

function rank(change: ProposedChange): number {
  if (change.after === null) return 0;
  return path.posix.basename(change.file) === "MEMORY.md" ? 2 : 1;
}
