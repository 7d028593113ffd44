import path from "node:path";
import { fencedLines, maskCodeSpans } from "./markdown-code.ts";

/** How deep `@path` imports nest: a file may import a file that imports … five hops, no more (docs/design.md#instruction-files). */
export const MAX_IMPORT_DEPTH = 5;

// `@` at the start of a line or after whitespace, then a path; `\ ` keeps a space in the path.
// Requiring whitespace before `@` keeps e-mail addresses (`me@example.com`) out.
const IMPORT = /(?:^|\s)@((?:[^\s\\]|\\ )+)/g;

/**
 * The `@path` imports an instruction file asks for, in order of appearance (pure). Imports inside
 * fenced code blocks and inline code spans are examples, not requests, and are skipped. A
 * `#fragment` is dropped. Only path-like tokens count: `./x`, `../x`, `~/x`, `/x`, or a name
 * starting with a letter, digit, `.`, `_` or `-`.
 *
 * @example
 * findImports("See @docs/style.md and `@not/this.md`.") // ["docs/style.md"]
 */
export function findImports(text: string): string[] {
  const lines = text.split("\n");
  const fenced = fencedLines(lines);
  const found: string[] = [];
  for (let index = 0; index < lines.length; index++) {
    if (fenced[index]) continue;
    for (const match of maskCodeSpans(lines[index]).matchAll(IMPORT)) {
      const token = match[1].replace(/\\ /g, " ").replace(/#.*$/, "");
      if (isPathLike(token) && !found.includes(token)) found.push(token);
    }
  }
  return found;
}

function isPathLike(token: string): boolean {
  if (token === "" || token === "/" || token === "~") return false;
  if (token.startsWith("./") || token.startsWith("../") || token.startsWith("~/")) return true;
  if (token.startsWith("/")) return true;
  return /^[A-Za-z0-9._-]/.test(token);
}

/**
 * Absolute paths an import token may name, best first (pure): relative tokens resolve against
 * the importing file's folder, `~/` against `home`. Prose often ends a path with punctuation
 * (`see @docs/a.md.`), so a second candidate drops trailing `.,;:!?)]`.
 */
export function importCandidates(token: string, importingFile: string, home: string): string[] {
  const resolve = (value: string): string => {
    if (value.startsWith("~/")) return path.join(home, value.slice(2));
    return path.resolve(path.dirname(importingFile), value);
  };
  const candidates = [resolve(token)];
  const trimmed = token.replace(/[.,;:!?)\]]+$/, "");
  if (trimmed !== token && isPathLike(trimmed)) candidates.push(resolve(trimmed));
  return candidates;
}
