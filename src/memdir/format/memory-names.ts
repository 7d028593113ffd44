import { createHash } from "node:crypto";
import path from "node:path";
import { MEMORY_TYPES, type MemoryType } from "../../types.ts";

// Names and one-line texts a memory gets from its description: the file name a save derives,
// the index title, and the cleaning of index text.

// Words that carry no meaning in a file name: articles, pronouns, prepositions, forms of "be",
// "have" and "do", modal verbs. Negations are not here and stay ("dont", "never", "no", "not",
// "cannot", "without"): "don't mock the database" must not become "mock-database"; numbers stay too.
const STOP_WORDS = new Set(
  (
    "a an the of to and or in on at by for from with as is are be been was were it its this that these those " +
    "must should shall will would can could may might do does did has have had use uses using when whenever " +
    "there their they them we our us you your i me my"
  ).split(" "),
);
/** Enough words for a negation, its verb and object and a qualifier, within a readable name. */
const MAX_SLUG_WORDS = 8;
const MAX_SLUG_CHARS = 60;

/** Longest hook kept in an index line: entries must stay "one short line each" (docs/design.md#the-index). */
export const MAX_HOOK_CHARS = 150;

/**
 * A readable file name from a type and a description (pure): its meaningful words, at most
 * {@link MAX_SLUG_WORDS} and 60 characters, `feedback-login-tests-real-database.md`;
 * "don't remember the password" → `project-dont-remember-password.md`. Non-ASCII text cannot be
 * spelled in ASCII, so a description with non-ASCII letters or digits gets a short hash of itself
 * appended (`feedback-3a9c1f0e.md` when it has no ASCII words at all); punctuation (an em dash, a
 * curly apostrophe) does not.
 */
export function slugFor(type: MemoryType, description: string): string {
  // An apostrophe joins its word ("don't" → "dont", "team's" → "teams") instead of splitting off
  // a one-letter fragment ("don", "t").
  const joined = description.toLowerCase().replace(/([a-z0-9])['\u2019]([a-z])/g, "$1$2");
  const words = joined.match(/[a-z0-9]+/g) ?? [];
  const meaningful = words.filter((word) => !STOP_WORDS.has(word));
  const chosen = (meaningful.length > 0 ? meaningful : words).filter(
    (word, i) => !(i === 0 && word === type),
  );
  let slug = "";
  for (const word of chosen.slice(0, MAX_SLUG_WORDS)) {
    if (slug.length + word.length + 1 > MAX_SLUG_CHARS) break;
    slug = slug ? `${slug}-${word}` : word;
  }
  const hash = createHash("sha256").update(description).digest("hex");
  if (slug === "") return `${type}-${hash.slice(0, 8)}.md`;
  // Only letters and digits the name cannot spell make it ambiguous: a dash or a curly quote does not.
  if (/(?![\x00-\x7F])[\p{L}\p{N}]/u.test(description)) return `${type}-${slug}-${hash.slice(0, 6)}.md`;
  return `${type}-${slug}.md`;
}

/** A short title for the index (pure): from the file name when it has words, else the description. */
export function defaultTitle(file: string, description: string): string {
  const base = path.posix.basename(file).replace(/\.md$/i, "");
  const withoutType = base.replace(new RegExp(`^(${MEMORY_TYPES.join("|")})[-_]`), "");
  const words = withoutType
    .replace(/(^|-)[0-9a-f]{6,8}$/, "") // the hash of a derived non-ASCII name says nothing
    .split(/[-_\s]+/)
    .filter(Boolean);
  if (words.some((word) => /\p{L}/u.test(word)) && !/[^\x00-\x7F]/.test(description)) {
    const text = words.join(" ");
    return text.charAt(0).toUpperCase() + text.slice(1);
  }
  return shorten(description, 60);
}

/**
 * `text` on one line: every run of white space (newlines included) becomes one space.
 * \s covers U+2028/U+2029 but not NEL (U+0085): all three end a line for some readers.
 */
export function oneLine(text: string): string {
  return text.replace(/[\s\u0085]+/g, " ").trim();
}

/** `text` cut to at most `max` characters (code points), with `…` when cut. */
export function shorten(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max
    ? text
    : `${chars
        .slice(0, max - 1)
        .join("")
        .trimEnd()}…`;
}
