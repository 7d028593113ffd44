import { MemdirError } from "../../errors.ts";
import type { FrontmatterPath } from "../format/frontmatter.ts";
import { MEMORY_FILE_MAX_BYTES } from "../fs/read.ts";
import { assertNoSecrets } from "../trust/secrets.ts";

// What the single writer refuses in the text it is handed, whoever hands it (docs/design.md#the-single-writer):
// a credential anywhere it writes, a control character a terminal would act on, a file too large
// to be a note.

/**
 * Every text a frontmatter map writes: each key name and each value, nested ones included, with
 * where it is (`tags[1]`, `metadata.owner`; `path` the same as keys and indexes) and the
 * `key: value` line a value becomes.
 */
function* frontmatterTexts(
  value: unknown,
  path: FrontmatterPath,
  key: string,
): Generator<{ where: string; path: FrontmatterPath; name?: string; line?: string; value?: string }> {
  const where = placeOf(path);
  if (value === null || value === undefined || value instanceof Date) return;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) yield* frontmatterTexts(item, [...path, i], key);
  } else if (typeof value === "object") {
    for (const [name, inner] of Object.entries(value as Record<string, unknown>)) {
      // A key name is checked before the path that holds it is ever named in a message.
      yield { where, path, name };
      yield* frontmatterTexts(inner, [...path, name], name);
    }
  } else yield { where, path, line: `${key}: ${String(value)}`, value: String(value) };
}

/** `path` as a message names it: `metadata.owner`, `tags[1]`. */
function placeOf(path: FrontmatterPath): string {
  return path
    .map((part, i) => (typeof part === "number" ? `[${part}]` : i === 0 ? part : `.${part}`))
    .join("");
}

/** Where a value is, by the key that holds it: `frontmatter key "metadata.owner"`. */
function valueWhere(where: string): string {
  return `frontmatter key ${JSON.stringify(where)}`;
}

/** Where a key name is, without the name itself: `frontmatter key`, `frontmatter key in metadata`. */
function keyWhere(parent: string): string {
  return parent === "" ? "frontmatter key" : `frontmatter key in ${parent}`;
}

/**
 * The file a save writes, for messages that point into it: its name (or `the memory file` before
 * it has one) and the line each frontmatter entry gets there (`frontmatterLineOf`).
 */
export interface FileLayout {
  file: string;
  lineOf: (path: FrontmatterPath, part: "key" | "value", valueLine?: number) => number | null;
}

/** A finding's line as the file has it: `line 5 of notes.md` (the line scanned when the file cannot say). */
export function fileLineAt(layout: FileLayout, path: FrontmatterPath, part: "key" | "value") {
  return (line: number): string => {
    const fileLine = layout.lineOf(path, part, line);
    return fileLine === null ? `line ${line}` : `line ${fileLine} of ${layout.file}`;
  };
}

/**
 * Refuses a credential in the frontmatter keys a caller hands the writer besides description and
 * title (`extra`: an import's other keys, the memory tool's frontmatter): every key name and every
 * value, nested ones included, is scanned as the `key: value` line it becomes, so a
 * `password:`-style key gives its value the same context it has in a body. The message names the
 * key (`frontmatter key "api_token"`; a key name that is itself the credential by its parent only)
 * and the line it has in the file as written (`layout`).
 *
 * @throws MemdirError("secret") naming the key and its line, never the value.
 */
export function assertNoSecretsInFrontmatter(extra: Record<string, unknown>, layout: FileLayout): void {
  for (const text of frontmatterTexts(extra, [], ""))
    if (text.name !== undefined)
      assertNoSecrets(
        text.name,
        text.where === ""
          ? "a frontmatter key name"
          : `a frontmatter key name in ${JSON.stringify(text.where)}`,
        fileLineAt(layout, [...text.path, text.name], "key"),
      );
    else if (text.line !== undefined)
      assertNoSecrets(text.line, valueWhere(text.where), fileLineAt(layout, text.path, "value"));
}

/**
 * C0 controls other than tab, line feed and carriage return, DEL and the C1 controls but U+0085
 * (NEL, a line break the writer folds like one): a terminal
 * acts on them (ESC starts the sequences that set its title, clear the screen, recolour text), and
 * `MEMORY.md`, `memdir list` and recall print memory text as it is.
 */
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u0084\u0086-\u009F]/;

/** `char` as `U+001B (ESC)`. */
function codePoint(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
  const name = CONTROL_NAMES.get(code);
  return name ? `${hex} (${name})` : hex;
}

const CONTROL_NAMES = new Map([
  [0x00, "NUL"],
  [0x07, "BEL"],
  [0x08, "backspace"],
  [0x0b, "vertical tab"],
  [0x0c, "form feed"],
  [0x1b, "ESC"],
  [0x7f, "DEL"],
  [0x9b, "CSI"],
]);

/**
 * The lines of `after` that `before` does not have, the rest blanked (line numbers kept): what a
 * write adds, so an old control character a memory already holds never blocks an unrelated edit.
 */
export function addedLines(before: string | null, after: string): string {
  const known = new Set((before ?? "").split("\n"));
  return after
    .split("\n")
    .map((line) => (known.has(line) ? "" : line))
    .join("\n");
}

/**
 * Refuses a control character in `text` (a field of a memory, or a memory's whole text): `where`
 * names it (`description`, `body`, `frontmatter tags`). Tabs and line breaks pass.
 *
 * @throws MemdirError("invalid-input"): `write: body: holds the control character U+001B (ESC)
 *   on line 3; …`.
 */
export function assertNoControlCharacters(text: string, where: string): void {
  const found = CONTROL.exec(text);
  if (!found) return;
  const line = text.includes("\n") ? ` on line ${text.slice(0, found.index).split("\n").length}` : "";
  const ansi = found[0] === "\u001b" ? " (terminal colour codes are ESC [ … m sequences: strip them)" : "";
  throw new MemdirError(
    "invalid-input",
    `write: ${where}: holds the control character ${codePoint(found[0])}${line}; ` +
      `memories are plain text, which terminals print as it is: remove it${ansi} and save again`,
  );
}

/** {@link assertNoControlCharacters} over every key name and value of `extra`, nested ones included. */
export function assertNoControlCharactersInFrontmatter(extra: Record<string, unknown>): void {
  for (const text of frontmatterTexts(extra, [], ""))
    if (text.name !== undefined) assertNoControlCharacters(text.name, keyWhere(text.where));
    else if (text.value !== undefined) assertNoControlCharacters(text.value, valueWhere(text.where));
}

const CONTROL_ALL = new RegExp(CONTROL.source, "g");

/**
 * {@link assertNoControlCharacters} for a field a save may carry over from the memory it replaces
 * (`before`; undefined: the field is new): only a control character `before` does not hold is
 * refused, so an old one (pulled verbatim by sync) never blocks an unrelated edit
 * (docs/design.md#the-single-writer). The old ones are blanked, so a refusal names the new one.
 */
export function assertNoNewControlCharacters(text: string, before: string | undefined, where: string): void {
  if (text === before) return;
  const known = new Set(before?.match(CONTROL_ALL) ?? []);
  assertNoControlCharacters(
    known.size === 0 ? text : text.replace(CONTROL_ALL, (c) => (known.has(c) ? " " : c)),
    where,
  );
}

/**
 * {@link assertNoControlCharactersInFrontmatter} for the frontmatter a save writes over `before`
 * (the replaced memory's): a key name `before` has at the same place, and a value's control
 * characters `before` holds at the same place, pass.
 */
export function assertNoNewControlCharactersInFrontmatter(
  extra: Record<string, unknown>,
  before: Record<string, unknown>,
): void {
  const names = new Set<string>();
  const values = new Map<string, string>();
  for (const text of frontmatterTexts(before, [], ""))
    if (text.name !== undefined) names.add(JSON.stringify([text.where, text.name]));
    else if (text.value !== undefined) values.set(text.where, text.value);
  for (const text of frontmatterTexts(extra, [], ""))
    if (text.name !== undefined) {
      if (!names.has(JSON.stringify([text.where, text.name])))
        assertNoControlCharacters(text.name, keyWhere(text.where));
    } else if (text.value !== undefined)
      assertNoNewControlCharacters(text.value, values.get(text.where), valueWhere(text.where));
}

/** The fields of a save the control-character check reads. */
export interface SavedFields {
  description: string;
  body: string;
  title?: string;
  hook?: string;
  extra?: Record<string, unknown>;
}

/**
 * Refuses a control character a save adds (docs/design.md#the-single-writer): over a new memory
 * (`before` null) every field is checked whole; over an existing one, only what the save adds to
 * it: a description, title or hook with a control character the old one lacks, the body lines the
 * old body does not have ({@link addedLines}), frontmatter as
 * {@link assertNoNewControlCharactersInFrontmatter} reads it.
 */
export function assertSaveAddsNoControlCharacters(
  fields: SavedFields,
  before: {
    description?: string;
    body: string;
    title?: string;
    hook?: string;
    frontmatter: Record<string, unknown>;
  } | null,
): void {
  assertNoNewControlCharacters(fields.description, before?.description, "description");
  if (fields.title) assertNoNewControlCharacters(fields.title, before?.title, "title");
  if (fields.hook) assertNoNewControlCharacters(fields.hook, before?.hook, "hook");
  assertNoControlCharacters(before === null ? fields.body : addedLines(before.body, fields.body), "body");
  if (fields.extra)
    if (before === null) assertNoControlCharactersInFrontmatter(fields.extra);
    else assertNoNewControlCharactersInFrontmatter(fields.extra, before.frontmatter);
}

/**
 * Refuses a memory file's text over {@link MEMORY_FILE_MAX_BYTES}: no note is that large, recall
 * surfaces only a memory's first 4 KB, and `memdir doctor` reports such a file.
 *
 * @throws MemdirError("invalid-input") naming the file and both sizes.
 */
export function assertMemorySize(text: string, file: string): void {
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes <= MEMORY_FILE_MAX_BYTES) return;
  throw new MemdirError(
    "invalid-input",
    `write: ${file} would be ${(bytes / 1024 / 1024).toFixed(1)} MB, over the ${MEMORY_FILE_MAX_BYTES / 1024 / 1024} MB ` +
      "a memory file may hold (recall surfaces only its first 4 KB): keep only what is worth remembering, or split it",
  );
}
