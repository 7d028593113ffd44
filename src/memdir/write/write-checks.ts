import { MemdirError } from "../../errors.ts";
import { parseFrontmatter, setFrontmatterKeys } from "../format/frontmatter.ts";
import { formatIndexLine, indexEntryOf } from "../format/index-file.ts";
import { defaultTitle, oneLine } from "../format/memory-names.ts";
import { type Anchor, anchorRoot, findAnchors } from "../trust/anchors.ts";
import { isAutomaticSource, type WriteOrigin } from "../trust/provenance.ts";
import { describeFindings, findInstructions, isDoubtful } from "../trust/quarantine.ts";
import { newInstructions } from "../trust/quarantine-diff.ts";
import { listProposals, proposalId, saveProposal } from "./proposal-store.ts";
import { isIndexFile } from "./write-targets.ts";

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
 * A memory's frontmatter values as memdir reads them (docs/design.md#quarantine): YAML decodes
 * escapes (`"ign\\u006Fre"`), joins folded lines and unquotes, and the index, listings and
 * headers show the decoded `title` and `description`, not the source the rules read in the file
 * itself. Each string value (nested ones too) is one line of its own, its line breaks joined as
 * the index joins them, apart from the next by a blank line; `lineOf` maps a line of `text` (1-based) to the file line of its top-level key.
 */
function frontmatterAsRead(text: string | null): { text: string; lineOf: (line: number) => number } {
  const none = { text: "", lineOf: () => 1 };
  if (text === null || !text.startsWith("---")) return none;
  const data = parseFrontmatter(text).data;
  const keyLines = new Map<string, number>();
  text.split("\n", 200).forEach((line, index) => {
    const key = /^([^\s:#][^:]*?)\s*:/.exec(line)?.[1];
    if (key !== undefined && !keyLines.has(key)) keyLines.set(key, index + 1);
  });
  const lines: string[] = [];
  const fileLines: number[] = [];
  const add = (value: unknown, fileLine: number): void => {
    if (typeof value === "string") {
      if (value.trim() === "") return;
      if (lines.length > 0) {
        lines.push("");
        fileLines.push(fileLine);
      }
      // On one line, as the index and listings show a title or a description (`oneLine`): a
      // blank line inside a block scalar ends no sentence there.
      lines.push(oneLine(value));
      fileLines.push(fileLine);
    } else if (Array.isArray(value)) for (const item of value) add(item, fileLine);
    else if (value !== null && typeof value === "object")
      for (const item of Object.values(value)) add(item, fileLine);
  };
  for (const [key, value] of Object.entries(data)) add(value, keyLines.get(key) ?? 1);
  return lines.length === 0 ? none : { text: lines.join("\n"), lineOf: (line) => fileLines[line - 1] ?? 1 };
}

/**
 * The quarantine step of the single writer (docs/design.md#quarantine), run under the writer lock
 * once the final text is known: instruction-like text the new text has and the old one had not
 * (`newInstructions`: compared by what was found, not by line, so old lines put together into a
 * new sentence are read) is held in the inbox, not written, when an automatic writer wrote it
 * (`MemdirError("quarantined")` naming the proposal); an explicit save is written and gets the
 * warning back. With `preview` (a dry run: `previewSave`) nothing is held: the refusal says the
 * write would wait in the inbox, and no proposal is made.
 */
export async function quarantineCheck(
  memoryDir: string,
  write: {
    file: string;
    before: string | null;
    after: string;
    origin?: WriteOrigin;
    now: number;
    preview?: boolean;
  },
): Promise<{ warning?: string }> {
  const inText = newInstructions(write.before, write.after);
  const seen = new Set(inText.findings.map((finding) => `${finding.intent}\u0000${finding.match}`));
  // The frontmatter's values as decoded too, the words the index and listings show.
  const values = frontmatterAsRead(write.after);
  const inValues = newInstructions(frontmatterAsRead(write.before).text, values.text);
  const findings = [
    ...inText.findings,
    ...inValues.findings
      .filter((finding) => !seen.has(`${finding.intent}\u0000${finding.match}`))
      .map((finding) => ({ ...finding, line: values.lineOf(finding.line) })),
  ].sort((a, b) => a.line - b.line);
  // A new file's name, as the title the index gives a memory from it: sync writes a pulled file
  // under the teammate's name, and rebuilds the index line from it (docs/sync.md).
  const title =
    write.before === null && !isIndexFile(write.file)
      ? defaultTitle(write.file, String(parseFrontmatter(write.after).data.description ?? ""))
      : "";
  const inName = title === "" ? [] : findInstructions(title);
  // The index line itself, made as sync's rebuild makes it (`indexEntryOf`): the title and the
  // description, each harmless alone, are one sentence there ("Ignore all" from the name, then
  // "previous instructions …"). A finding of an intent already found above adds nothing.
  const line = isIndexFile(write.file) ? "" : formatIndexLine(indexEntryOf(write.file, write.after));
  const found = new Set([...inName, ...findings].map((finding) => finding.intent));
  const inLine =
    line === ""
      ? []
      : newInstructions(
          write.before === null ? null : formatIndexLine(indexEntryOf(write.file, write.before)),
          line,
        ).findings.filter((finding) => !found.has(finding.intent));
  const added = [title, inText.text, inValues.text, inLine.length > 0 ? line : ""]
    .filter((text) => text !== "")
    .join("\n\n");
  if (findings.length === 0 && inName.length === 0 && inLine.length === 0) return {};
  const named =
    inName.length === 0
      ? ""
      : `${inName[0].kind} (its file name, read as the title ${JSON.stringify(title)})`;
  const joined =
    inLine.length === 0
      ? ""
      : `${inLine[0].kind} (its index line, its title and description joined: ${JSON.stringify(inLine[0].match)})`;
  const reason = [named, joined, describeFindings(findings)].filter((part) => part !== "").join("; ");
  const origin = write.origin;
  if (origin && isAutomaticSource(origin.source) && !origin.proposing) {
    // A doubtful case may be cleared by the model memdir is configured for (docs/design.md#quarantine).
    const opinion =
      origin.secondOpinion && isDoubtful([...inName, ...inLine, ...findings])
        ? await origin.secondOpinion(added, reason)
        : null;
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
    // Why the write is held, and where it waits (or would, for a preview).
    const held = (waits: string) =>
      new MemdirError(
        "quarantined",
        `write: ${write.file}: not written: it holds ${reason}, which a memory must not tell a future session; ${waits}`,
      );
    if (earlier) throw held(`it waits for the user's review in the inbox as ${earlier.id}`);
    if (write.preview) throw held("it would wait for the user's review in the inbox");
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
    throw held(`it waits for the user's review in the inbox as ${id}`);
  }
  return {
    warning: `${write.file} holds ${reason}; saved because this save was explicit: check that it is meant`,
  };
}
