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
import {
  type DoctorIssue,
  diagnoseMemoryDir,
  REPAIRABLE_CODES,
  repairMemoryDir,
} from "../memdir/health/doctor.ts";
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

/** One line of {@link streamHealth}: the index first, then each check as it finishes, then `done`. */
export type HealthLine =
  | { index: Awaited<ReturnType<typeof healthOf>>["index"] }
  | { progress: { step: string; done: number; total: number } }
  | { check: string; issues: (DoctorIssue & { fixable: boolean })[]; done: number; total: number }
  | { notes: Awaited<ReturnType<typeof unresolvedLinks>> }
  | { done: true };

/**
 * What {@link healthOf} answers, told as it is found (docs/ui.md#pages): `MEMORY.md`'s size
 * first, then each group of doctor's checks as it finishes with the issues it found, the
 * per-file checks' progress, the unresolved links, and `{done: true}`. At 20,000 memories doctor
 * reads every file for most of a minute; the page shows the first findings at once.
 */
export async function streamHealth(
  memoryDir: string,
  write: (line: HealthLine) => void,
  signal?: AbortSignal,
): Promise<void> {
  const exists = await fs.stat(memoryDir).then(
    (stat) => stat.isDirectory(),
    () => false,
  );
  const index = await readIndex(memoryDir);
  write({
    index: {
      lines: index.lines,
      bytes: index.bytes,
      maxLines: INDEX_MAX_LINES,
      maxBytes: INDEX_MAX_BYTES,
      limitsExceeded: index.limitsExceeded,
    },
  });
  if (exists) {
    await diagnoseMemoryDir(memoryDir, {
      signal,
      progress: (step, done, total) => write({ progress: { step, done, total } }),
      onCheck: ({ check, issues, done, total }) =>
        write({
          check,
          issues: issues.map((issue) => ({ ...issue, fixable: REPAIRABLE_CODES.has(issue.code) })),
          done,
          total,
        }),
    });
    write({ notes: await unresolvedLinks(memoryDir) });
  }
  write({ done: true });
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
