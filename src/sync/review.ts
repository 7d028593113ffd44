import {
  isPending,
  listProposals,
  type ProposedChange,
  proposalId,
  saveProposal,
} from "../memdir/write/proposal-store.ts";
import type { Clock, MemoryMode } from "../types.ts";

// Sync-in under `memoryMode: review` (and `manual`): what the remote changed is not written here
// but waits in the inbox as one proposal per sync (docs/design.md#sync, docs/design.md#memory-modes).

export const WAITS_FOR_REVIEW = "waits for review: memdir inbox";
export const REJECTED_IN_REVIEW = "rejected in review";

/**
 * True when a sync holds the remote's changes for review instead of writing them. `manual` holds
 * them too: a teammate's memory is not an explicit save of this user's, and a proposal (unlike a
 * silent hold) still lets the user take it with one explicit `memdir inbox accept`.
 */
export function reviewsIncoming(mode: MemoryMode | undefined): boolean {
  return mode === "review" || mode === "manual";
}

const sameText = (a: ProposedChange, b: ProposedChange) => a.file === b.file && a.after === b.after;

/**
 * Sorts the held changes against the inbox and stores the new ones as ONE proposal (source
 * `sync`, its summary naming the remote). A change a pending proposal already holds (same file,
 * same text before and after) is not proposed twice; one a rejected proposal held (same file,
 * same incoming text) is not proposed again. `beforeSave` runs with the new proposal's id before
 * it is stored (the sync keeps it: accepting the proposal is its pull, src/sync/undone-pulls.ts).
 * Returns the `skipped` lines of the sync report.
 */
export async function proposeIncoming(
  where: { memoryDir: string; folder: string },
  remote: string,
  changes: readonly ProposedChange[],
  now: Clock,
  beforeSave: (id: string) => Promise<void> = async () => {},
): Promise<{ file: string; reason: string }[]> {
  if (changes.length === 0) return [];
  // The inbox is the memory dir's: a team folder's files are named `team/…` there.
  const { memoryDir, folder } = where;
  const incoming = changes.map((change) => ({ ...change, file: folder + change.file }));
  const sync = (await listProposals(memoryDir)).filter((p) => p.source === "sync");
  const pending = sync.filter(isPending).flatMap((p) => p.changes);
  const rejected = sync.filter((p) => p.rejectedAt).flatMap((p) => p.changes);
  const skipped: { file: string; reason: string }[] = [];
  const fresh: ProposedChange[] = [];
  for (const [i, change] of incoming.entries()) {
    const file = changes[i].file;
    if (pending.some((p) => sameText(p, change) && p.before === change.before))
      skipped.push({ file, reason: WAITS_FOR_REVIEW });
    else if (rejected.some((p) => sameText(p, change))) skipped.push({ file, reason: REJECTED_IN_REVIEW });
    else {
      fresh.push(change);
      skipped.push({ file, reason: WAITS_FOR_REVIEW });
    }
  }
  if (fresh.length > 0) {
    const at = now();
    const id = proposalId(at);
    await beforeSave(id);
    await saveProposal(memoryDir, {
      id,
      createdAt: new Date(at).toISOString(),
      source: "sync",
      summary: `${fresh.length} change(s) from the sync remote ${remote}`,
      changes: fresh,
    });
  }
  return skipped;
}
