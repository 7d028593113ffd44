import path from "node:path";

/**
 * `child` as a path relative to `parent` when it lies inside it (lexically: resolve real paths
 * first where links matter), else null. A child named `..foo` is inside; only `..` itself or a
 * path starting with `../` leaves (the copies this replaced tested `startsWith("..")` and
 * refused `..foo`). With `orSame`, `parent` itself counts as inside and gives `""`.
 *
 * @example relativeInside("/m", "/m/..notes/a.md") // "..notes/a.md"
 */
export function relativeInside(
  parent: string,
  child: string,
  options: { orSame?: boolean } = {},
): string | null {
  const relative = path.relative(parent, child);
  if (relative === "") return options.orSame ? "" : null;
  if (relative === ".." || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) return null;
  return relative;
}

/** True when `child` lies inside `parent` (see {@link relativeInside}). */
export function isInside(parent: string, child: string, options: { orSame?: boolean } = {}): boolean {
  return relativeInside(parent, child, options) !== null;
}
