import { MemdirError } from "../../../errors.ts";
import { parseFrontmatter } from "../../../memdir/format/frontmatter.ts";
import { readRegularFile } from "../../../memdir/fs/regular-file.ts";
import { assertInsideMemoryDir } from "../../../memdir/fs/safe-path.ts";
import { memoryAnchorChanges } from "../../../memdir/health/stale.ts";
import { linkResolver, type MemoryLink, resolveLinks } from "../../../memdir/scan/links.ts";
import { isoTime } from "../../../memdir/scan/scan.ts";
import { anchorRoot } from "../../../memdir/trust/anchors.ts";
import { provenanceOf } from "../../../memdir/trust/provenance.ts";
import { type CommonOptions, type RegisterCommand, withCommonOptions } from "../../support/common.ts";
import { locationFromOptions, memdirForCommand } from "../../support/location.ts";
import { printable, printJson } from "../../support/output.ts";

/**
 * `memdir show <file>`: one memory, whole, as on disk, then (when its body has `[[name]]` links)
 * a `links:` list with the file each resolves to or "no such memory". `--json`:
 * `{file, path, mtime, modified, name, type, description, body, links, issues, source, session,
 * anchors}` (issues: frontmatter problems, as text; links: `[{name, file, path}]`, `file`/`path`
 * null for a link to nothing; source/session: the provenance, docs/design.md#provenance, null when
 * not recorded; anchors: what changed of the project files it names). The text output (whose frontmatter shows
 * `source:`) ends with a `note:` line for each anchor that vanished or changed.
 */
/** The frontmatter issues that leave a memory's fields unread (a missing field is `doctor`'s to list). */
const UNREADABLE_FRONTMATTER = new Set(["yaml", "unclosed", "no-frontmatter", "not-a-map"]);

export const registerShowCommand: RegisterCommand = (program, context) => {
  withCommonOptions(
    program
      .command("show")
      .description("print one memory file")
      .argument("<file>", "memory file, relative to the memory directory"),
  ).action(async (file: string, options: CommonOptions) => {
    const location = await locationFromOptions(options, context);
    let target = await assertInsideMemoryDir(location.memoryDir, file);
    let text: string;
    let mtimeMs: number;
    try {
      ({ text, mtimeMs } = await readMemoryText(target.path));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw readFailure(error, target.path);
      try {
        // `memdir show user-prefers-pnpm`: the name without `.md`, as users type it.
        if (file.endsWith(".md")) throw error;
        target = await assertInsideMemoryDir(location.memoryDir, `${file}.md`);
        ({ text, mtimeMs } = await readMemoryText(target.path));
      } catch (retry) {
        if ((retry as NodeJS.ErrnoException).code !== "ENOENT") throw readFailure(retry, target.path);
        const near = await nearNames(memdirForCommand(location, context, options), file);
        throw new MemdirError(
          "not-found",
          `show: no memory ${file} in ${location.memoryDir}${near.length > 0 ? ` (did you mean ${near.join(", ")}?)` : ""}`,
        );
      }
    }
    const parsed = parseFrontmatter(text);
    // A memory whose frontmatter cannot be read is shown as it is, but not as if it were fine:
    // its type and description are lost to every index and recall (doctor says the same).
    for (const issue of parsed.issues)
      if (UNREADABLE_FRONTMATTER.has(issue.code))
        context.io.stderr(`memdir: show: ${target.file}: ${issue.message}\n`);
    let links: MemoryLink[] = [];
    if (parsed.body.includes("[[")) {
      const headers = await memdirForCommand(location, context, options).scan();
      links = resolveLinks(parsed.body, linkResolver(headers));
    }
    const { source, session } = provenanceOf(parsed.data);
    const projectRoot = await anchorRoot(location.memoryDir, location.projectRoot);
    const anchorChanges = projectRoot === null ? [] : await memoryAnchorChanges(text, projectRoot);
    if (!options.json) {
      // As on disk, but a control character (an ESC sequence written by hand) is shown escaped.
      context.io.stdout(printable(text.endsWith("\n") ? text : `${text}\n`));
      if (links.length > 0) context.io.stdout(`\nlinks:\n${links.map(linkLine).join("\n")}\n`);
      for (const change of anchorChanges) context.io.stdout(`note: ${change.message}\n`);
      return;
    }
    printJson(context.io, {
      file: target.file,
      path: target.path,
      mtime: isoTime(mtimeMs),
      modified: parsed.modifiedMs === null ? null : isoTime(parsed.modifiedMs),
      name: parsed.name,
      type: parsed.type,
      description: parsed.description,
      body: parsed.body,
      links,
      issues: parsed.issues.map((issue) => issue.message),
      source,
      session,
      anchors: anchorChanges.map(({ anchor, change, message }) => ({ ...anchor, change, message })),
    });
  });
};

async function readMemoryText(file: string): Promise<{ text: string; mtimeMs: number }> {
  const { bytes, stat } = await readRegularFile(file);
  return { text: bytes.toString("utf8"), mtimeMs: stat.mtimeMs };
}

function readFailure(error: unknown, file: string): MemdirError {
  if (error instanceof MemdirError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  return new MemdirError("io", `show: cannot read ${file}: ${code ?? String(error)}`, { cause: error });
}

/** Up to three memory files whose name holds what was asked for (`pnpm` → `user-prefers-pnpm.md`). */
async function nearNames(
  memdir: { scan(): Promise<readonly { file: string }[]> },
  asked: string,
): Promise<string[]> {
  const wanted = asked.replace(/\.md$/, "").toLowerCase();
  if (wanted === "") return [];
  const headers = await memdir.scan().catch(() => []);
  return headers
    .map((header) => header.file)
    .filter((name) => name.toLowerCase().includes(wanted))
    .slice(0, 3);
}

function linkLine(link: MemoryLink): string {
  return `  [[${link.name}]] -> ${link.file ?? "no such memory"}`;
}
