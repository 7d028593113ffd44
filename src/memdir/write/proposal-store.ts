import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { MemdirError } from "../../errors.ts";
import { writeFileAtomic } from "../fs/atomic.ts";
import { readRegularText } from "../fs/regular-file.ts";
import type { MemorySource } from "../trust/provenance.ts";

/**
 * Where proposals wait: `.proposals/<id>/proposal.json` in the memory dir. A proposal is a set of
 * file changes nothing has applied yet: a consolidation run in propose mode, an automatic writer's
 * work under `memoryMode: review`, or text the quarantine held (docs/design.md#the-inbox). The
 * store sits beside the writer so the writer itself can hold a quarantined write; applying one
 * (with its history entry) is `dream/proposal.ts`'s.
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

/** What made a proposal: the consolidations (`dream`, offline `dedupe`) or a memory source. */
export type ProposalSource = "dream" | "dedupe" | MemorySource;

export interface Proposal {
  id: string;
  createdAt: string;
  source: ProposalSource;
  summary: string;
  changes: ProposedChange[];
  appliedAt?: string;
  /** The history entry the apply recorded. */
  historyId?: string | null;
  /** Why the proposal waits rather than being written: what the quarantine found (docs/design.md#quarantine). */
  reason?: string;
  /** The session the proposing writer ran in, when known. */
  session?: string;
  /** Set by `memdir inbox reject`. */
  rejectedAt?: string;
  /** Set when the proposal outlived the inbox's expiry (recorded in the history too). */
  expiredAt?: string;
}

/** A new proposal id: the time, then random hex (`20260301T101500Z-a1b2c3`). */
export function proposalId(nowMs: number): string {
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

/** Stores (or replaces) one proposal, atomically. */
export async function saveProposal(memoryDir: string, proposal: Proposal): Promise<void> {
  const file = proposalFile(memoryDir, proposal.id);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await writeFileAtomic(file, `${JSON.stringify(proposal, null, 2)}\n`);
}

/** Reads one proposal; `MemdirError("not-found")` when there is none with that id. */
export async function loadProposal(memoryDir: string, id: string): Promise<Proposal> {
  // Never blocks on a FIFO or device in its place (docs/design.md#reading-files).
  const text = await readRegularText(proposalFile(memoryDir, id)).catch(() => null);
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

/** True while a proposal waits in the inbox: not applied, rejected or expired. */
export function isPending(proposal: Proposal): boolean {
  return !proposal.appliedAt && !proposal.rejectedAt && !proposal.expiredAt;
}
