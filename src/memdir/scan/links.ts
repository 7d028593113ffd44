import fs from "node:fs/promises";
import path from "node:path";
import type { MemoryHeader } from "../../types.ts";
import { parseFrontmatter } from "../format/frontmatter.ts";
import { scanHeaders } from "./scan.ts";

// Links between memories (docs/design.md#links): Claude Code tells its model to link related
// memories with `[[name]]` in their bodies, `name` being the other memory's `name:` slug, and
// says a link to a memory not written yet is fine ("it marks something worth writing later").

/** One `[[name]]` link of a memory and the memory it points at (`null` when there is none). */
export interface MemoryLink {
  /** The name inside the brackets (an `|alias` or `#section` part left out). */
  name: string;
  /** The linked memory, relative to the memory dir, or null when no memory has that name. */
  file: string | null;
  path: string | null;
}

/** A link to nothing, as `memdir doctor` reports it: information, never an error. */
export interface LinkNote {
  code: "unresolved-link";
  file: string;
  message: string;
}

const LINK = /\[\[([^[\]\n]{1,200})\]\]/g;
const FENCE = /^\s{0,3}(```|~~~)/;

/**
 * The names a memory body links to with `[[name]]`, each once, in order. `[[name|shown text]]`
 * and `[[name#section]]` link to `name`; links inside code (fenced blocks, `inline` spans) are
 * text, not links.
 *
 * @example
 * linkNames("See [[user-role]] and [[testing|how we test]].") // ["user-role", "testing"]
 */
export function linkNames(body: string): string[] {
  if (!body.includes("[[")) return [];
  const names: string[] = [];
  const seen = new Set<string>();
  let inFence = false;
  for (const line of body.split("\n")) {
    if (FENCE.test(line)) {
      inFence = !inFence;
      continue;
    }
    if (inFence || !line.includes("[[")) continue;
    const text = line.replace(/`[^`]*`/g, "");
    for (const match of text.matchAll(LINK)) {
      const name = match[1].split("|")[0].split("#")[0].trim();
      if (name === "" || seen.has(name)) continue;
      seen.add(name);
      names.push(name);
    }
  }
  return names;
}

/**
 * A resolver of link names over `headers`: a name is a memory's `name:`, else its file stem
 * (`user_role` for `team/user_role.md`; the relative path without `.md` works too). An exact
 * match wins over one that differs only in case; among equals the first header (the newest, in
 * scan order) wins. The lookup tables are built on the first call.
 *
 * @example
 * const resolve = linkResolver(await scanHeaders(dir));
 * resolve("user-role")?.file // "user_role.md"
 */
export function linkResolver(headers: readonly MemoryHeader[]): (name: string) => MemoryHeader | null {
  let tables: { exact: Map<string, MemoryHeader>; folded: Map<string, MemoryHeader> } | null = null;
  const build = () => {
    const exact = new Map<string, MemoryHeader>();
    const folded = new Map<string, MemoryHeader>();
    const add = (key: string, header: MemoryHeader) => {
      if (!exact.has(key)) exact.set(key, header);
      const lower = key.toLowerCase();
      if (!folded.has(lower)) folded.set(lower, header);
    };
    // Names first: a name that equals another memory's stem points at the named memory.
    for (const header of headers) if (header.name) add(header.name, header);
    for (const header of headers) {
      const withoutExtension = header.file.replace(/\.md$/i, "");
      add(path.posix.basename(withoutExtension), header);
      if (withoutExtension.includes("/")) add(withoutExtension, header);
    }
    return { exact, folded };
  };
  return (name) => {
    tables ??= build();
    const key = name.replace(/\.md$/i, "");
    return tables.exact.get(key) ?? tables.folded.get(key.toLowerCase()) ?? null;
  };
}

/** The links of `body`, each resolved with `resolve` (see {@link linkResolver}). */
export function resolveLinks(body: string, resolve: (name: string) => MemoryHeader | null): MemoryLink[] {
  return linkNames(body).map((name) => {
    const target = resolve(name);
    return { name, file: target?.file ?? null, path: target?.path ?? null };
  });
}

/**
 * Every link in the memory dir that points at no memory, one note each (`memdir doctor`). Claude
 * Code calls such a link fine, so these are information for the user, not problems.
 *
 * @example
 * for (const note of await unresolvedLinks(memoryDir)) console.log(note.message);
 */
export async function unresolvedLinks(memoryDir: string): Promise<LinkNote[]> {
  const headers = await scanHeaders(memoryDir, { cache: null });
  const resolve = linkResolver(headers);
  const notes: LinkNote[] = [];
  for (const header of [...headers].sort((a, b) => a.file.localeCompare(b.file))) {
    const text = await fs.readFile(header.path, "utf8").catch(() => null);
    if (text === null || !text.includes("[[")) continue;
    for (const link of resolveLinks(parseFrontmatter(text).body, resolve)) {
      if (link.file !== null) continue;
      notes.push({
        code: "unresolved-link",
        file: header.file,
        message: `${header.file} links to [[${link.name}]], which is no memory yet (no memory has that name or file name)`,
      });
    }
  }
  return notes;
}
