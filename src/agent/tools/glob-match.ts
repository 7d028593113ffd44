/**
 * A small glob matcher (Node 20 has no `fs.glob`): `**` spans folders, `*` and `?` stay inside
 * one path segment, `{a,b}` alternates, `[abc]` is a character class. Paths use `/`.
 */
export function globToRegExp(pattern: string): RegExp {
  let source = "";
  let index = 0;
  let braceDepth = 0;
  while (index < pattern.length) {
    const char = pattern[index];
    if (char === "*") {
      if (pattern[index + 1] === "*") {
        const atSegmentStart = index === 0 || pattern[index - 1] === "/";
        const followedBySlash = pattern[index + 2] === "/";
        if (atSegmentStart && followedBySlash) {
          // `**/` matches zero or more whole folders.
          source += "(?:[^/]*/)*";
          index += 3;
          continue;
        }
        source += ".*";
        index += 2;
        continue;
      }
      source += "[^/]*";
    } else if (char === "?") {
      source += "[^/]";
    } else if (char === "[") {
      const close = pattern.indexOf("]", index + 1);
      if (close === -1) {
        source += "\\[";
      } else {
        let body = pattern.slice(index + 1, close);
        if (body.startsWith("!")) body = `^${body.slice(1)}`;
        source += `[${body.replace(/\\/g, "\\\\")}]`;
        index = close;
      }
    } else if (char === "{") {
      braceDepth += 1;
      source += "(?:";
    } else if (char === "}" && braceDepth > 0) {
      braceDepth -= 1;
      source += ")";
    } else if (char === "," && braceDepth > 0) {
      source += "|";
    } else {
      source += char.replace(/[.+^${}()|\\]/g, "\\$&");
    }
    index += 1;
  }
  return new RegExp(`^${source}$`, process.platform === "win32" ? "i" : "");
}

/**
 * Tests `relativePath` (with `/` separators) against `pattern`. A pattern without `/` also
 * matches a file's base name at any depth when `matchBase` is set (how `rg --glob` filters).
 */
export function matchesGlob(
  relativePath: string,
  pattern: string,
  options: { matchBase?: boolean } = {},
): boolean {
  const regexp = globToRegExp(pattern);
  if (regexp.test(relativePath)) return true;
  if (options.matchBase && !pattern.includes("/")) {
    const base = relativePath.slice(relativePath.lastIndexOf("/") + 1);
    return regexp.test(base);
  }
  return false;
}
