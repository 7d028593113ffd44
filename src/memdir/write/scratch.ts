import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Clock } from "../../types.ts";
import { readRegularText } from "../fs/regular-file.ts";
import { scanHeaders } from "../scan/scan.ts";
import { describeFindings } from "../trust/quarantine.ts";
import { newInstructions } from "../trust/quarantine-diff.ts";
import { type Proposal, type ProposedChange, proposalId, saveProposal } from "./proposal-store.ts";

/**
 * Scratch runs (docs/design.md#the-inbox): a writer works on a copy of the memory dir, and the
 * difference becomes a proposal. `dream --propose` and every automatic writer under
 * `memoryMode: review` run this way; nothing in the memory dir changes until the proposal is applied.
 */

/** Memory files and the index, relative to the memory dir (dot-folders skipped, as the scan does). */
export async function listTrackedFiles(memoryDir: string): Promise<string[]> {
  const headers = await scanHeaders(memoryDir, { cache: null });
  const files = headers.map((h) => h.file);
  if (
    await fs
      .stat(path.join(memoryDir, "MEMORY.md"))
      .then((s) => s.isFile())
      .catch(() => false)
  )
    files.push("MEMORY.md");
  return files.sort();
}

/** Copies the memory files and the index into a fresh scratch dir (removed by `dispose`). */
export async function createScratchCopy(
  memoryDir: string,
): Promise<{ dir: string; dispose(): Promise<void> }> {
  const parent = await fs.mkdtemp(path.join(os.tmpdir(), "memdir-proposal-"));
  const dir = path.join(parent, "memory");
  await fs.mkdir(dir);
  for (const file of await listTrackedFiles(memoryDir)) {
    // Read as the diff reads it (regular files only, never through a symlink to outside), not
    // with copyFile, which follows links: the copy must hold what the memory dir holds.
    const text = await readOrNull(path.join(memoryDir, file));
    if (text === null) continue;
    const target = path.join(dir, file);
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.writeFile(target, text);
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
 * What the quarantine finds in a set of changes that their old texts did not have (text already
 * there was checked when it was written; `newInstructions`), as one reason line, or undefined.
 */
export function quarantineReason(changes: readonly ProposedChange[]): string | undefined {
  const found: string[] = [];
  for (const change of changes) {
    if (change.after === null) continue;
    const { findings } = newInstructions(change.before, change.after);
    if (findings.length > 0) found.push(describeFindings(findings, change.file));
  }
  return found.length > 0 ? found.join("; ") : undefined;
}
