import { createHash } from "node:crypto";

/**
 * The version of a memory file's text: its SHA-256, hex. An editor sends back the version it
 * loaded, and the single writer refuses the save (`conflict`) when the file on disk is no longer
 * that text (docs/design.md#local-web-view). A hash of the text rather than mtime and size: an
 * edit within the same second to the same length is still a change.
 *
 * @example
 * const version = memoryVersion(fs.readFileSync(file, "utf8"));
 */
export function memoryVersion(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}
