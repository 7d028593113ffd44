/**
 * What the quarantine reads (docs/design.md#quarantine): a memory's text as a future session's
 * model would understand it, not as its bytes spell it. Zero-width characters, full-width or
 * Cyrillic look-alike letters, HTML entities and comments, percent-escapes, base64 and a line
 * break in the middle of a phrase all leave the words a model reads intact while breaking a
 * pattern over the raw text; each is undone here before any rule runs.
 */

/** One text the rules read, with its lines kept (`lines`) and with soft line breaks joined (`joined`). */
export interface QuarantineView {
  /** The normalized text, one line per line of the input (so an index maps to the input's line). */
  lines: string;
  /** `lines` with each soft line break (inside a sentence) turned into a space: same length. */
  joined: string;
  /** For a view decoded from part of the text: the 1-based input line it came from. */
  fromLine?: number;
  /** Per line of `lines` (0-based), what normalization had to undo there, e.g. `zero-width characters removed`. */
  revealed: Map<number, string[]>;
}

// Format characters (zero-width space and joiners, word joiner, soft hyphen, bidi controls, BOM)
// and the few fillers that render as nothing without being format characters.
const INVISIBLE = /[\p{Cf}\u115F\u1160\u3164\uFFA0]|\u034F|[\u180B-\u180D]/gu;

// Letters of other scripts that look like Latin ones (Unicode's confusables for the letters an
// English instruction is spelled with); folded only after NFKC, which already maps full-width
// and mathematical letters.
const LOOK_ALIKES: Record<string, string> = {
  а: "a",
  в: "b",
  е: "e",
  к: "k",
  м: "m",
  н: "h",
  о: "o",
  р: "p",
  с: "c",
  т: "t",
  у: "y",
  х: "x",
  ѕ: "s",
  і: "i",
  ї: "i",
  ј: "j",
  ԁ: "d",
  һ: "h",
  ӏ: "l",
  ԛ: "q",
  ԝ: "w",
  ь: "b",
  ѵ: "v",
  А: "A",
  В: "B",
  Е: "E",
  К: "K",
  М: "M",
  Н: "H",
  О: "O",
  Р: "P",
  С: "C",
  Т: "T",
  У: "Y",
  Х: "X",
  Ѕ: "S",
  І: "I",
  Ј: "J",
  Ԁ: "D",
  Һ: "H",
  Ӏ: "I",
  α: "a",
  β: "b",
  ε: "e",
  ι: "i",
  κ: "k",
  ν: "v",
  ο: "o",
  ρ: "p",
  τ: "t",
  υ: "u",
  χ: "x",
  γ: "y",
  Α: "A",
  Β: "B",
  Ε: "E",
  Ζ: "Z",
  Η: "H",
  Ι: "I",
  Κ: "K",
  Μ: "M",
  Ν: "N",
  Ο: "O",
  Ρ: "P",
  Τ: "T",
  Υ: "Y",
  Χ: "X",
  ı: "i",
  ɑ: "a",
  ɡ: "g",
  ɩ: "i",
  ʏ: "y",
};
const LOOK_ALIKE_LETTERS = Object.keys(LOOK_ALIKES).join("");
const LOOK_ALIKE_CLASS = new RegExp(`[${LOOK_ALIKE_LETTERS}]`, "gu");
/**
 * A Cyrillic or Greek letter with no Latin look-alike (и, л, д, ж, λ, π …): the text is written in
 * that script, not disguised. Folding reads "не говори пользователю" as "he говори пользоватeлю",
 * so such a text is also read unfolded, for the rules in its own language.
 */
const NATIVE_SCRIPT = new RegExp(`(?![${LOOK_ALIKE_LETTERS}])[\\u0370-\\u03ff\\u0400-\\u04ff]`, "u");

const NAMED_ENTITIES: Record<string, string> = {
  lt: "<",
  gt: ">",
  amp: "&",
  quot: '"',
  apos: "'",
  nbsp: " ",
  sol: "/",
  colon: ":",
  lpar: "(",
  rpar: ")",
  lsqb: "[",
  rsqb: "]",
  verbar: "|",
  vert: "|",
  bsol: "\\",
  excl: "!",
  num: "#",
};
const ENTITY = /&(?:#(\d{1,7})|#x([0-9a-f]{1,6})|([a-z]{2,8}));?/gi;

function decodeEntities(line: string): string {
  return line.replace(ENTITY, (whole, decimal?: string, hex?: string, name?: string) => {
    if (name) return NAMED_ENTITIES[name.toLowerCase()] ?? whole;
    const code = decimal ? Number(decimal) : Number.parseInt(hex ?? "", 16);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

// Percent-escapes, as in a markdown link target `(https://x/?q=ignore%20previous%20instructions)`.
function decodePercent(line: string): string {
  return line.replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

// Printable ASCII and tabs; of those, `&` (an entity), `%` (an escape) and `<!--`/`-->` are
// the only ones normalization changes.
const PLAIN_ASCII = /^[\x20-\x7e\t]*$/;
const PLAIN_BUT_DECODED = /[&%]|<!--|-->/;

/** One line as a model reads it, and the names of what had to be undone to get there. */
function normalizeLine(raw: string, fold = true): { text: string; revealed: string[] } {
  // Printable ASCII with nothing to decode or unwrap reads as it is spelled: every step below
  // leaves it unchanged (most lines of a memory, nearly every line of a large index).
  if (PLAIN_ASCII.test(raw) && !PLAIN_BUT_DECODED.test(raw)) return { text: raw, revealed: [] };
  const revealed: string[] = [];
  let text = raw;
  const visible = text.replace(INVISIBLE, "");
  if (visible !== text) revealed.push("zero-width characters removed");
  text = visible.normalize("NFKC");
  if (text !== visible.normalize("NFC")) revealed.push("full-width or styled letters folded");
  const folded = fold ? text.replace(LOOK_ALIKE_CLASS, (letter) => LOOK_ALIKES[letter] ?? letter) : text;
  // A look-alike counts only inside a word that also has Latin letters: plain Russian or Greek
  // text is folded too (harmless), but is not reported as hidden.
  if (folded !== text && /[a-z][^\s]*[\u0370-\u04ff]|[\u0370-\u04ff][^\s]*[a-z]/i.test(text))
    revealed.push("look-alike letters folded");
  text = folded;
  const decoded = decodePercent(decodeEntities(text));
  if (decoded !== text) revealed.push("HTML entities or escapes decoded");
  // Whatever an entity decoded to stays on this line: a `&#10;` must not shift the lines after it.
  text = decoded.replace(/[\r\n\u2028\u2029]/g, " ");
  // Comment markers become spaces, so the words inside are read like any others.
  const uncommented = text.replace(/<!--|-->/g, "    ");
  if (uncommented !== text) revealed.push("inside an HTML comment");
  return { text: uncommented, revealed };
}

// A line break is soft (the sentence goes on) unless the line ends a sentence or the next one
// starts a list item, a heading, a quote, a table row or a fence.
const SENTENCE_END = /[.!?。！？;；:：]\s*$/;
const BLOCK_START = /^\s*(?:[-*+>#|]|\d+[.)]\s|```|$)/;

/**
 * Whether the break between two normalized lines is soft: the sentence of `line` goes on into
 * `next`. A hard break ends every sentence, so no finding spans one (docs/design.md#quarantine).
 */
export function isSoftBreak(line: string, next: string): boolean {
  return line.trim() !== "" && !SENTENCE_END.test(line) && !BLOCK_START.test(next);
}

/** Each line of `text` as the rules read it (the lines of the main view, before any join). */
export function normalizedLines(text: string): string[] {
  return text.split("\n").map((raw) => normalizeLine(raw).text);
}

function joinSoftBreaks(lines: string[]): string {
  let joined = "";
  for (let i = 0; i < lines.length; i++) {
    joined += lines[i];
    if (i === lines.length - 1) break;
    joined += isSoftBreak(lines[i], lines[i + 1]) ? " " : "\n";
  }
  return joined;
}

function viewOf(text: string, fromLine?: number, fold = true): QuarantineView {
  const revealed = new Map<number, string[]>();
  const lines = text.split("\n").map((raw, index) => {
    const line = normalizeLine(raw, fold);
    if (line.revealed.length > 0) revealed.set(index, line.revealed);
    return line.text;
  });
  return { lines: lines.join("\n"), joined: joinSoftBreaks(lines), fromLine, revealed };
}

// A base64 run long enough to hold a sentence; standard and URL-safe alphabets.
const BASE64_RUN = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{24,}={0,2}(?![A-Za-z0-9+/_=-])/g;

/** The text a base64 run decodes to, when it is text a model would read (mostly printable, with spaces). */
export function decodeBase64Text(run: string): string | null {
  if (!/[A-Z]/.test(run) || !/[a-z]/.test(run)) return null; // a hex digest, a word, a path
  const bytes = Buffer.from(run.replace(/-/g, "+").replace(/_/g, "/"), "base64");
  const text = bytes.toString("utf8");
  if (text.includes("\uFFFD")) return null;
  const printable = text.replace(/[\p{C}]/gu, "").length;
  if (text.length < 12 || printable / text.length < 0.95 || !/[\s\u3000-\u9fff]/u.test(text)) return null;
  return text;
}

/**
 * The views of `text` the quarantine rules read: the text itself normalized, the same without the
 * look-alikes folded when it is written in Cyrillic or Greek, and each base64 run in it that
 * decodes to readable text (normalized the same way).
 */
export function quarantineViews(text: string): QuarantineView[] {
  const main = viewOf(text);
  const views = [main];
  if (NATIVE_SCRIPT.test(text)) views.push(viewOf(text, undefined, false));
  const rawLines = text.split("\n");
  rawLines.forEach((raw, index) => {
    for (const run of raw.match(BASE64_RUN) ?? []) {
      const decoded = decodeBase64Text(run);
      if (decoded === null) continue;
      const view = viewOf(decoded.replace(/\r?\n/g, " "), index + 1);
      view.revealed.set(0, [...(view.revealed.get(0) ?? []), "decoded from base64"]);
      views.push(view);
    }
  });
  return views;
}
