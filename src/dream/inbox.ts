import { MemdirError } from "../errors.ts";
import { parseFrontmatter } from "../memdir/format/frontmatter.ts";
import { INDEX_FILE } from "../memdir/format/index-file.ts";
import { lineDiff } from "../memdir/format/line-diff.ts";
import {
  isPending,
  listProposals,
  loadProposal,
  type Proposal,
  type ProposedChange,
  saveProposal,
} from "../memdir/write/proposal-store.ts";
import type { Clock } from "../types.ts";
import { recordEvent } from "./history.ts";
import type { HistoryEntry } from "./history-types.ts";
import { applyProposal } from "./proposal.ts";

/**
 * The inbox (docs/design.md#the-inbox): the proposals that wait for the user — consolidations in
 * propose mode, automatic writers' work under `memoryMode: review`, and text the quarantine held.
 * Accepting applies one through the single writer into the history (so `memdir undo` takes it
 * back); rejecting and expiring keep the proposal file, marked, and record the event in the history.
 */

/** How long a proposal waits before it expires, by default (setting `inboxExpiryDays`). */
export const INBOX_EXPIRY_DAYS = 30;
const DAY_MS = 86_400_000;

/** One change as the inbox lists it. */
export interface InboxChange {
  file: string;
  action: "add" | "update" | "delete";
  /** The memory's description (the proposed one; the current one for a delete), or what the file is. */
  description: string;
}

/** One pending proposal as `memdir inbox --json` prints it. */
export interface InboxItem {
  id: string;
  /** Who proposed it, as a memory source (`extraction`, `consolidation`, `sync`). */
  source: string;
  created: string;
  changes: InboxChange[];
  summary: string;
  /** What the quarantine found, when that is why it waits. */
  reason?: string;
}

function descriptionOf(change: ProposedChange): string {
  if (change.file === INDEX_FILE) return "the memory index";
  const text = change.after ?? change.before ?? "";
  return parseFrontmatter(text).description ?? change.file;
}

/** The inbox view of a proposal: the consolidations' own names become `consolidation`. */
export function inboxItem(proposal: Proposal): InboxItem {
  return {
    id: proposal.id,
    source: proposal.source === "dream" || proposal.source === "dedupe" ? "consolidation" : proposal.source,
    created: proposal.createdAt,
    changes: proposal.changes.map((change) => ({
      file: change.file,
      action: change.action === "modify" ? "update" : change.action,
      description: descriptionOf(change),
    })),
    summary: proposal.summary,
    ...(proposal.reason ? { reason: proposal.reason } : {}),
  };
}

/** Memory files (not the index) the pending proposals would change: the N of "N memories wait for review". */
export function waitingMemoryCount(proposals: readonly Proposal[]): number {
  return proposals
    .filter(isPending)
    .reduce((sum, p) => sum + p.changes.filter((c) => c.file !== INDEX_FILE).length, 0);
}

/**
 * Marks every pending proposal older than `expiryDays` as expired, each recorded in the history
 * (`expire` entries) so nothing leaves the inbox silently. Returns the expired ones.
 */
export async function expireProposals(
  memoryDir: string,
  options: { now?: Clock; expiryDays?: number } = {},
): Promise<Proposal[]> {
  return expireAmong(memoryDir, await listProposals(memoryDir), options);
}

/** {@link expireProposals} over proposals already listed. */
async function expireAmong(
  memoryDir: string,
  proposals: readonly Proposal[],
  options: { now?: Clock; expiryDays?: number },
): Promise<Proposal[]> {
  const now = (options.now ?? Date.now)();
  const days = options.expiryDays ?? INBOX_EXPIRY_DAYS;
  const expired: Proposal[] = [];
  for (const proposal of proposals) {
    if (!isPending(proposal) || now - Date.parse(proposal.createdAt) < days * DAY_MS) continue;
    const marked: Proposal = { ...proposal, expiredAt: new Date(now).toISOString() };
    await saveProposal(memoryDir, marked);
    await recordEvent(
      memoryDir,
      "expire",
      `proposal ${proposal.id} (${inboxItem(proposal).source}: ${proposal.summary}) expired unreviewed after ${days} days`,
      { now: options.now },
    );
    expired.push(marked);
  }
  return expired;
}

/**
 * The pending proposals, newest first, after expiring the old ones.
 *
 * @example
 * const waiting = await listInbox(memoryDir, { expiryDays: config.inboxExpiryDays });
 */
export async function listInbox(
  memoryDir: string,
  options: { now?: Clock; expiryDays?: number } = {},
): Promise<Proposal[]> {
  return inboxOf(memoryDir, await listProposals(memoryDir), options);
}

/**
 * {@link listInbox} over `proposals` as `listProposals` gave them (the proposals folder is read
 * once: session start lists it itself, to load this module only when something is pending).
 */
export async function inboxOf(
  memoryDir: string,
  proposals: readonly Proposal[],
  options: { now?: Clock; expiryDays?: number } = {},
): Promise<Proposal[]> {
  const expired = new Set((await expireAmong(memoryDir, proposals, options)).map((proposal) => proposal.id));
  return proposals.filter((proposal) => isPending(proposal) && !expired.has(proposal.id));
}

/**
 * Accepts a proposal: {@link applyProposal} (through the single writer, recorded as an `apply`
 * entry, refused when a file it changes changed since), with `edits` replacing proposed texts.
 */
export async function acceptProposal(
  memoryDir: string,
  id: string,
  options: { now?: Clock; edits?: Readonly<Record<string, string>> } = {},
): Promise<{ proposal: Proposal; entry: HistoryEntry | null }> {
  return applyProposal(memoryDir, id, options);
}

/** Rejects a pending proposal: nothing is written; the rejection is marked and recorded in the history. */
export async function rejectProposal(
  memoryDir: string,
  id: string,
  options: { now?: Clock } = {},
): Promise<Proposal> {
  const proposal = await loadProposal(memoryDir, id);
  if (!isPending(proposal)) {
    const state = proposal.appliedAt
      ? `accepted at ${proposal.appliedAt}`
      : proposal.rejectedAt
        ? `rejected at ${proposal.rejectedAt}`
        : `expired at ${proposal.expiredAt}`;
    throw new MemdirError("invalid-input", `inbox: ${id} was already ${state}`);
  }
  const now = (options.now ?? Date.now)();
  const rejected: Proposal = { ...proposal, rejectedAt: new Date(now).toISOString() };
  await saveProposal(memoryDir, rejected);
  await recordEvent(
    memoryDir,
    "reject",
    `proposal ${id} (${inboxItem(proposal).source}: ${proposal.summary}) rejected`,
    { now: options.now },
  );
  return rejected;
}

/**
 * A line diff of one change (`-` removed, `+` added, two lines of context around each run), for
 * `memdir inbox show`, over {@link lineDiff}.
 */
export function changeDiff(change: ProposedChange): string {
  const header = `--- ${change.before === null ? "/dev/null" : `a/${change.file}`}\n+++ ${change.after === null ? "/dev/null" : `b/${change.file}`}`;
  const ops = lineDiff(change.before, change.after);
  const keep = new Set<number>();
  ops.forEach((op, i) => {
    if (op.op === " ") return;
    for (let j = Math.max(0, i - 2); j <= Math.min(ops.length - 1, i + 2); j++) keep.add(j);
  });
  const lines: string[] = [];
  let last = -1;
  ops.forEach((op, i) => {
    if (!keep.has(i)) return;
    if (last !== -1 && i > last + 1) lines.push("…");
    lines.push(`${op.op}${op.text}`);
    last = i;
  });
  return `${header}\n${lines.join("\n")}`;
}
