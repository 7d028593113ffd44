import { MemdirError } from "../../errors.ts";
import { parseFrontmatter, setFrontmatterKeys } from "../format/frontmatter.ts";
import { type Anchor, anchorRoot, findAnchors } from "../trust/anchors.ts";
import { isAutomaticSource, type WriteOrigin } from "../trust/provenance.ts";
import { describeFindings, isDoubtful } from "../trust/quarantine.ts";
import { newInstructions } from "../trust/quarantine-diff.ts";
import { listProposals, proposalId, saveProposal } from "./proposal-store.ts";

/** The frontmatter keys the writer stamps for `origin`: `source`, `session`, `anchors` (docs/design.md#provenance). */
export async function stampsFor(
  memoryDir: string,
  origin: WriteOrigin | undefined,
  text: { description: string; body: string },
): Promise<Record<string, unknown>> {
  if (!origin) return {};
  const projectRoot = await anchorRoot(memoryDir, origin.projectRoot);
  const anchors: Anchor[] =
    projectRoot === null ? [] : await findAnchors(`${text.description}\n${text.body}`, projectRoot);
  return {
    source: origin.source,
    session: origin.session || undefined,
    anchors: anchors.length > 0 ? anchors : undefined,
  };
}

/** `text` (a whole memory file) with the stamps for `origin`; unchanged without an origin or a frontmatter. */
export async function stampText(
  memoryDir: string,
  origin: WriteOrigin | undefined,
  text: string,
): Promise<string> {
  if (!origin) return text;
  const parsed = parseFrontmatter(text);
  if (parsed.issues.some((issue) => issue.code === "no-frontmatter" || issue.code === "unclosed"))
    return text;
  const stamps = await stampsFor(memoryDir, origin, {
    description: parsed.description ?? "",
    body: parsed.body,
  });
  return setFrontmatterKeys(text, stamps);
}

/**
 * The quarantine step of the single writer (docs/design.md#quarantine), run under the writer lock
 * once the final text is known: instruction-like text the new text has and the old one had not
 * (`newInstructions`: compared by what was found, not by line, so old lines put together into a
 * new sentence are read) is held in the inbox, not written, when an automatic writer wrote it
 * (`MemdirError("quarantined")` naming the proposal); an explicit save is written and gets the
 * warning back.
 */
export async function quarantineCheck(
  memoryDir: string,
  write: { file: string; before: string | null; after: string; origin?: WriteOrigin; now: number },
): Promise<{ warning?: string }> {
  const { findings, text: added } = newInstructions(write.before, write.after);
  if (findings.length === 0) return {};
  const reason = describeFindings(findings);
  const origin = write.origin;
  if (origin && isAutomaticSource(origin.source) && !origin.proposing) {
    // A doubtful case may be cleared by the model memdir is configured for (docs/design.md#quarantine).
    const opinion =
      origin.secondOpinion && isDoubtful(findings) ? await origin.secondOpinion(added, reason) : null;
    if (opinion && !opinion.hostile)
      return {
        warning: `${write.file}: the rules found ${reason}; saved because a model's second opinion cleared it (${opinion.reason})`,
      };
    // The same text held before (a sync pulls it again each time) is held once: the waiting
    // proposal is named again, and one the user rejected is not proposed again.
    const earlier = (await listProposals(memoryDir)).find(
      (proposal) =>
        !proposal.appliedAt &&
        !proposal.expiredAt &&
        proposal.changes.length === 1 &&
        proposal.changes[0].file === write.file &&
        proposal.changes[0].after === write.after,
    );
    if (earlier?.rejectedAt)
      throw new MemdirError(
        "quarantined",
        `write: ${write.file}: not written: it holds ${reason}, and the user rejected it in review (${earlier.id})`,
      );
    if (earlier)
      throw new MemdirError(
        "quarantined",
        `write: ${write.file}: not written: it holds ${reason}, which a memory must not tell a future session; ` +
          `it waits for the user's review in the inbox as ${earlier.id}`,
      );
    const id = proposalId(write.now);
    await saveProposal(memoryDir, {
      id,
      createdAt: new Date(write.now).toISOString(),
      source: origin.source,
      summary: `held for review: ${write.file}`,
      reason,
      ...(origin.session ? { session: origin.session } : {}),
      changes: [
        {
          file: write.file,
          action: write.before === null ? "add" : "modify",
          before: write.before,
          after: write.after,
        },
      ],
    });
    throw new MemdirError(
      "quarantined",
      `write: ${write.file}: not written: it holds ${reason}, which a memory must not tell a future session; ` +
        `it waits for the user's review in the inbox as ${id}`,
    );
  }
  return {
    warning: `${write.file} holds ${reason}; saved because this save was explicit: check that it is meant`,
  };
}
