import fs from "node:fs/promises";
import { historyBackend, listHistory, undoChange } from "../dream/history.ts";
import {
  acceptProposal as acceptInboxProposal,
  listInbox,
  rejectProposal as rejectInboxProposal,
} from "../dream/inbox.ts";
import { parseFrontmatter } from "../memdir/format/frontmatter.ts";
import { INDEX_MAX_BYTES, INDEX_MAX_LINES, readIndex } from "../memdir/format/index-file.ts";
import { lineDiff } from "../memdir/format/line-diff.ts";
import { diagnoseMemoryDir, REPAIRABLE_CODES, repairMemoryDir } from "../memdir/health/doctor.ts";
import type { Memdir } from "../memdir/instance.ts";
import { unresolvedLinks } from "../memdir/scan/links.ts";
import { explainRecall } from "../recall/explain.ts";
import { recall } from "../recall/recall.ts";
import type { Selector } from "../recall/selector.ts";
import { memorySource, proposalFlags } from "./flags.ts";

/**
 * The proposals waiting for review, newest first, with their flags. Those older than `expiryDays`
 * expire first, each recorded in the history, as `memdir inbox` does (docs/design.md#the-inbox):
 * the page used to list them as waiting for as long as no session start or `memdir inbox` ran.
 */
export async function pendingProposals(memoryDir: string, options: { expiryDays?: number } = {}) {
  const proposals = await listInbox(memoryDir, options);
  return proposals.map((proposal) => {
    const written = proposal.changes.map((change) =>
      change.after === null ? null : parseFrontmatter(change.after).data,
    );
    return {
      ...proposal,
      flags: proposalFlags(
        proposal as { reason?: unknown },
        written.filter((data) => data !== null),
      ),
      // Each change with its line diff and the provenance `source:` of the text it writes.
      changes: proposal.changes.map((change, index) => ({
        ...change,
        source: written[index] === null ? null : memorySource(written[index]),
        diff: lineDiff(change.before, change.after),
      })),
    };
  });
}

/**
 * Accepts a proposal as `memdir inbox accept` does (the single writer, an `apply` history entry,
 * refused when a file it changes changed since); with `edits` (file → text) the reviewer's text
 * replaces the proposed one. An edit holding a secret is refused by the writer, nothing written.
 */
export async function acceptProposal(memoryDir: string, id: string, edits: Record<string, string> = {}) {
  const { proposal, entry } = await acceptInboxProposal(memoryDir, id, { edits });
  return { id: proposal.id, historyId: entry?.id ?? null };
}

/** Rejects a proposal as `memdir inbox reject` does: nothing written, the rejection in the history. */
export async function rejectProposal(memoryDir: string, id: string): Promise<{ id: string }> {
  return { id: (await rejectInboxProposal(memoryDir, id)).id };
}

/** The history, newest first, with its backend. */
export async function historyOf(memoryDir: string) {
  return { backend: await historyBackend(memoryDir), entries: await listHistory(memoryDir) };
}

/** Undoes one history entry (as `memdir undo <id>`). */
export async function undoEntry(memoryDir: string, id: string) {
  return undoChange(memoryDir, id);
}

/** `memdir doctor`'s findings, which of them the safe repair fixes, and the index against its limits. */
export async function healthOf(memoryDir: string) {
  const exists = await fs.stat(memoryDir).then(
    (stat) => stat.isDirectory(),
    () => false,
  );
  const issues = exists ? await diagnoseMemoryDir(memoryDir) : [];
  const index = await readIndex(memoryDir);
  return {
    issues: issues.map((issue) => ({ ...issue, fixable: REPAIRABLE_CODES.has(issue.code) })),
    notes: exists ? await unresolvedLinks(memoryDir) : [],
    index: {
      lines: index.lines,
      bytes: index.bytes,
      maxLines: INDEX_MAX_LINES,
      maxBytes: INDEX_MAX_BYTES,
      limitsExceeded: index.limitsExceeded,
    },
  };
}

/** Runs the safe repairs of `memdir doctor --fix`; one line per repair. */
export async function fixHealth(memoryDir: string): Promise<{ fixed: string[] }> {
  return { fixed: await repairMemoryDir(memoryDir) };
}

/**
 * What `memdir recall --explain` says for `query`: the same recall (nothing read or surfaced
 * yet) and the same verdicts ({@link explainRecall}), and the hidden messages an agent gets.
 */
export async function explainQuery(memdir: Memdir, selector: Selector, query: string, k: number) {
  const result = await recall({ memoryDir: memdir.memoryDir, query, selector, k, explain: true, memdir });
  const descriptions = new Map(
    (await memdir.scan({ limit: Number.POSITIVE_INFINITY })).map((header) => [
      header.file,
      header.description,
    ]),
  );
  return {
    query: result.query,
    selector: result.selector,
    memoryDir: memdir.memoryDir,
    // Each with its description, so the page can title it as the memories page does.
    candidates: explainRecall(result).map((candidate) => ({
      ...candidate,
      description: descriptions.get(candidate.file) ?? null,
    })),
    selected: result.selected,
    messages: result.messages.map((message) => ({
      role: message.role,
      isMeta: true,
      content: message.content,
    })),
    ...(result.fallback !== undefined ? { fallback: result.fallback } : {}),
    ...(result.modelFailure !== undefined ? { modelFailure: result.modelFailure } : {}),
  };
}
