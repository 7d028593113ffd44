import fs from "node:fs/promises";
import path from "node:path";
import { MemdirError } from "../../errors.ts";
import { parseFrontmatter } from "../../memdir/format/frontmatter.ts";
import { isMemoryFileName } from "../../memdir/scan/scan-list.ts";
import { isMemoryType, type MemoryType } from "../../types.ts";
import { descriptionFrom, timeFrom } from "./text.ts";
import type { ImportCandidate, SkippedSource, SourceRead } from "./types.ts";

/**
 * A folder of markdown notes with frontmatter (docs/import.md#markdown): another memdir or Claude
 * Code memory dir, Qwen Code's managed memory, an Obsidian vault or a basic-memory folder. Every
 * `.md` file below it is one memory, except `MEMORY.md` (an index, rebuilt by the writer) and
 * hidden folders (`.obsidian`, `.git`, memdir's `.history`). A topic file named after a type
 * (`feedback.md`) with no frontmatter, holding bullets, is the older one-file-per-type layout:
 * one memory per bullet.
 */
export async function readMarkdownFolder(kind: string, from: string): Promise<SourceRead> {
  const stat = await fs.stat(from).catch((error: NodeJS.ErrnoException) => {
    throw new MemdirError(
      error.code === "ENOENT" ? "not-found" : "io",
      `import: ${kind}: cannot read ${from}: ${error.code ?? error.message}`,
      { cause: error },
    );
  });
  if (!stat.isDirectory())
    throw new MemdirError("invalid-input", `import: ${kind}: ${from} is not a folder of markdown notes`);
  const read: SourceRead = { candidates: [], skipped: [] };
  for (const file of await markdownFiles(from)) {
    const full = path.join(from, file);
    const text = await fs.readFile(full, "utf8").catch(() => null);
    const fileStat = await fs.stat(full).catch(() => null);
    if (text === null || fileStat === null) {
      read.skipped.push({ source: full, reason: "could not be read" });
      continue;
    }
    const result = noteCandidates(kind, full, file, text, fileStat.mtimeMs);
    read.candidates.push(...result.candidates);
    read.skipped.push(...result.skipped);
  }
  return read;
}

/** Relative paths (`/`-separated) of the notes below `root`, sorted; links are not followed. */
async function markdownFiles(root: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (relative: string): Promise<void> => {
    const entries = await fs.readdir(path.join(root, relative), { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (entry.name.startsWith(".")) continue;
      const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules") await walk(child);
      } else if (entry.isFile() && isMemoryFileName(entry.name)) found.push(child);
    }
  };
  await walk("");
  return found.sort();
}

// Keys the writer sets itself: the description, type and date come in as fields, the provenance
// is stamped anew (the import is now who wrote it), anchors are found again in this project.
const WRITER_KEYS = new Set([
  "description",
  "type",
  "modified",
  "source",
  "session",
  "anchors",
  "imported_from",
]);

/** One note (or a topic file's bullets) as memories (pure). `file` is relative to the folder. */
export function noteCandidates(
  kind: string,
  fullPath: string,
  file: string,
  text: string,
  mtimeMs: number,
): SourceRead {
  const parsed = parseFrontmatter(text);
  const stem = path.posix.basename(file).replace(/\.md$/i, "");
  const key = `${kind}:${fullPath}`;
  const hasFrontmatter = !parsed.issues.some((i) => i.code === "no-frontmatter");
  if (!hasFrontmatter && isMemoryType(stem)) {
    const bullets = topicBullets(parsed.body);
    if (bullets.length > 0)
      return {
        candidates: bullets.map((bullet, index) => ({
          key: `${key}#${index + 1}`,
          label: `${fullPath} entry ${index + 1}`,
          type: stem,
          description: descriptionFrom(bullet.split("\n")[0]),
          body: bullet,
          modifiedMs: mtimeMs,
        })),
        skipped: [],
      };
  }
  const data = parsed.data;
  const body = parsed.body.trim();
  const heading = /^#\s+(.+)$/m.exec(body)?.[1];
  const titled = typeof data.title === "string" ? data.title : undefined;
  const description =
    parsed.description ?? titled ?? heading ?? (body === "" ? "" : stem.replace(/[-_]+/g, " "));
  if (body === "" && (parsed.description ?? "") === "") {
    const skipped: SkippedSource = { source: fullPath, reason: "empty note" };
    return { candidates: [], skipped: [skipped] };
  }
  const extra: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(data)) if (!WRITER_KEYS.has(name)) extra[name] = value;
  const candidate: ImportCandidate = {
    key,
    label: fullPath,
    type: parsed.type ?? noteType(data.type),
    description: descriptionFrom(description),
    body: parsed.body.replace(/^\n+/, ""),
    ...(titled ? { title: titled } : {}),
    modifiedMs: parsed.modifiedMs ?? timeFrom(data.updated ?? data.date ?? data.created) ?? mtimeMs,
    extra,
    fileName: `${stem}.md`,
  };
  return { candidates: [candidate], skipped: [] };
}

/**
 * A note without one of memdir's types: an Obsidian or basic-memory note (`type: note`) is
 * something to look up when it matters, so `reference`.
 */
function noteType(value: unknown): MemoryType {
  return isMemoryType(value) ? value : "reference";
}

/** The bullets of a one-file-per-type topic file, each with its indented lines (`  - Why: …`). */
function topicBullets(body: string): string[] {
  const bullets: string[] = [];
  for (const line of body.split(/\r?\n/)) {
    const item = /^[-*]\s+(.*)$/.exec(line);
    if (item) bullets.push(item[1].trim());
    else if (bullets.length > 0 && /^\s+\S/.test(line)) bullets[bullets.length - 1] += `\n${line.trim()}`;
  }
  return bullets.filter(Boolean);
}
