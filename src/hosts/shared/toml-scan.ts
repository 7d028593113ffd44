// A TOML scanner that finds where each statement of a file is, without building a document:
// `memdir setup codex` edits one table of the user's config.toml and must leave every other byte
// as it was (docs/design.md#agent-setup). It knows strings (basic, literal, multi-line `"""` and
// `'''`), comments, arrays and inline tables spanning lines, and table headers, so a line that
// only looks like a header (inside a multi-line string) is never taken for one.

/** A table header (`[a.b]`) or array-of-tables header (`[[a.b]]`). */
export interface TomlHeader {
  kind: "table" | "array-table";
  /** The header's key, unquoted: `[mcp_servers."memdir"]` → `["mcp_servers", "memdir"]`. */
  keys: string[];
  /** Offset of the first byte of the line. */
  start: number;
  /** Offset just past the header line's newline (or the end of the text). */
  end: number;
}

/** One `key = value` statement. */
export interface TomlKeyValue {
  kind: "key-value";
  /** The (dotted) key, unquoted. */
  keys: string[];
  start: number;
  /** The value's text: `text.slice(valueStart, valueEnd)`, a trailing comment excluded. */
  valueStart: number;
  valueEnd: number;
  /** Offset just past the statement's last newline (or the end of the text). */
  end: number;
}

export type TomlStatement = TomlHeader | TomlKeyValue;

/** The file is not TOML this scanner can read; `line` is 1-based. */
export class TomlScanError extends Error {
  constructor(
    readonly line: number,
    reason: string,
  ) {
    super(`line ${line}: ${reason}`);
  }
}

const BARE_KEY = /[A-Za-z0-9_-]/;
const ESCAPES: Record<string, string> = { b: "\b", t: "\t", n: "\n", f: "\f", r: "\r", '"': '"', "\\": "\\" };

/** The 1-based line of `offset` in `text`. */
export function lineOf(text: string, offset: number): number {
  let count = 1;
  for (let index = 0; index < offset && index < text.length; index++) if (text[index] === "\n") count++;
  return count;
}

class Scanner {
  at = 0;
  constructor(readonly text: string) {}

  fail(reason: string, offset = this.at): never {
    throw new TomlScanError(lineOf(this.text, offset), reason);
  }

  peek(ahead = 0): string {
    return this.text[this.at + ahead] ?? "";
  }

  startsWith(word: string): boolean {
    return this.text.startsWith(word, this.at);
  }

  /** Spaces and tabs. */
  skipBlanks(): void {
    while (this.peek() === " " || this.peek() === "\t") this.at++;
  }

  /** A comment up to (not including) the newline. */
  skipComment(): void {
    if (this.peek() !== "#") return;
    while (this.at < this.text.length && this.peek() !== "\n") this.at++;
  }

  /** Blanks, an optional comment, then a newline or the end; `what` names the statement for errors. */
  endOfLine(what: string): void {
    this.skipBlanks();
    this.skipComment();
    if (this.startsWith("\r\n")) this.at += 2;
    else if (this.peek() === "\n") this.at++;
    else if (this.at < this.text.length) this.fail(`unexpected "${this.peek()}" after ${what}`);
  }

  /** Blanks, comments and newlines (inside arrays). */
  skipBlanksCommentsNewlines(): void {
    for (;;) {
      this.skipBlanks();
      if (this.peek() === "#") this.skipComment();
      else if (this.peek() === "\n") this.at++;
      else if (this.startsWith("\r\n")) this.at += 2;
      else return;
    }
  }

  /** A dotted key: bare, "basic" or 'literal' parts, with blanks around the dots. */
  key(): string[] {
    const keys: string[] = [];
    for (;;) {
      this.skipBlanks();
      const quote = this.peek();
      if (quote === '"' || quote === "'") {
        if (this.startsWith(quote.repeat(3))) this.fail("a multi-line string cannot be a key");
        keys.push(this.singleLineString(quote));
      } else {
        const from = this.at;
        while (BARE_KEY.test(this.peek())) this.at++;
        if (this.at === from) this.fail("a key is missing");
        keys.push(this.text.slice(from, this.at));
      }
      this.skipBlanks();
      if (this.peek() !== ".") return keys;
      this.at++;
    }
  }

  /** A `"basic"` (escapes decoded) or `'literal'` string on one line; returns its value. */
  singleLineString(quote: string): string {
    const from = this.at;
    this.at++;
    let value = "";
    for (;;) {
      const char = this.peek();
      if (char === "" || char === "\n") this.fail("a string is not closed on its line", from);
      this.at++;
      if (char === quote) return value;
      if (quote === '"' && char === "\\") {
        const escaped = this.peek();
        const digits = escaped === "u" ? 4 : escaped === "U" ? 8 : 0;
        if (digits > 0) {
          const hex = this.text.slice(this.at + 1, this.at + 1 + digits);
          if (!/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== digits) this.fail("a bad \\u escape");
          value += String.fromCodePoint(Number.parseInt(hex, 16));
          this.at += 1 + digits;
          continue;
        }
        if (ESCAPES[escaped] === undefined) this.fail(`an unknown escape "\\${escaped}"`);
        value += ESCAPES[escaped];
        this.at++;
        continue;
      }
      value += char;
    }
  }

  /** A `"""` or `'''` string; up to two more quotes may end it (`""""` ends with one quote inside). */
  multiLineString(quote: string): void {
    const from = this.at;
    const fence = quote.repeat(3);
    this.at += 3;
    for (;;) {
      if (this.at >= this.text.length) this.fail(`a ${fence} string is never closed`, from);
      if (quote === '"' && this.peek() === "\\") {
        this.at += 2;
        continue;
      }
      if (this.startsWith(fence)) {
        this.at += 3;
        // `"""a""""` is `a"`: a closing fence may be preceded by one or two quotes of the text.
        let extra = 0;
        while (this.peek() === quote && extra < 2) {
          this.at++;
          extra++;
        }
        return;
      }
      this.at++;
    }
  }

  /** Any value: strings, arrays, inline tables (both may span lines), or a scalar up to the line's end. */
  value(): void {
    const char = this.peek();
    if (char === '"' || char === "'") {
      if (this.startsWith(char.repeat(3))) this.multiLineString(char);
      else this.singleLineString(char);
      return;
    }
    if (char === "[") {
      this.at++;
      for (;;) {
        this.skipBlanksCommentsNewlines();
        if (this.peek() === "]") {
          this.at++;
          return;
        }
        if (this.at >= this.text.length) this.fail("an array is never closed");
        this.value();
        this.skipBlanksCommentsNewlines();
        if (this.peek() === ",") this.at++;
        else if (this.peek() !== "]") this.fail(`unexpected "${this.peek()}" in an array`);
      }
    }
    if (char === "{") {
      this.at++;
      for (;;) {
        // Newlines and comments are allowed here by TOML 1.1; reading them costs nothing.
        this.skipBlanksCommentsNewlines();
        if (this.peek() === "}") {
          this.at++;
          return;
        }
        if (this.at >= this.text.length) this.fail("an inline table is never closed");
        this.key();
        if (this.peek() !== "=") this.fail('"=" is missing after a key in an inline table');
        this.at++;
        this.skipBlanks();
        this.value();
        this.skipBlanksCommentsNewlines();
        if (this.peek() === ",") this.at++;
        else if (this.peek() !== "}") this.fail(`unexpected "${this.peek()}" in an inline table`);
      }
    }
    // Numbers, booleans, dates and times: no quotes, brackets or comments can occur in them.
    const from = this.at;
    while (this.at < this.text.length && !/[,\]}#\n\r]/.test(this.peek())) this.at++;
    while (this.at > from && /[ \t]/.test(this.text[this.at - 1])) this.at--;
    if (this.at === from) this.fail("a value is missing");
  }
}

/**
 * Every header and key/value statement of `text`, in order, with their offsets (comments and
 * blank lines are what lies between them).
 *
 * @throws TomlScanError when the text is not TOML it can read (an unclosed string or array, a
 *   line that is neither a header, a key/value pair, a comment nor blank).
 * @example scanToml('a = 1\n[t]\nb = """\n[x]\n"""\n').map((s) => s.keys) // [["a"], ["t"], ["b"]]
 */
export function scanToml(text: string): TomlStatement[] {
  const scanner = new Scanner(text);
  const statements: TomlStatement[] = [];
  while (scanner.at < text.length) {
    scanner.skipBlanksCommentsNewlines();
    if (scanner.at >= text.length) break;
    const start = text.lastIndexOf("\n", scanner.at - 1) + 1;
    if (scanner.peek() === "[") {
      const kind = scanner.peek(1) === "[" ? "array-table" : "table";
      scanner.at += kind === "table" ? 1 : 2;
      const keys = scanner.key();
      const close = kind === "table" ? "]" : "]]";
      if (!scanner.startsWith(close)) scanner.fail(`"${close}" is missing after a table header`);
      scanner.at += close.length;
      scanner.endOfLine("a table header");
      statements.push({ kind, keys, start, end: scanner.at });
      continue;
    }
    const keys = scanner.key();
    if (scanner.peek() !== "=") scanner.fail('"=" is missing after a key');
    scanner.at++;
    scanner.skipBlanks();
    const valueStart = scanner.at;
    scanner.value();
    const valueEnd = scanner.at;
    scanner.endOfLine("a value");
    statements.push({ kind: "key-value", keys, start, valueStart, valueEnd, end: scanner.at });
  }
  return statements;
}

/**
 * The value of a one-line string or an array of them (`"memdir"`, `['mcp']`), or undefined for
 * anything else: enough to tell whether memdir's own keys already hold what it would write.
 */
export function simpleTomlValue(valueText: string): string | string[] | undefined {
  try {
    const scanner = new Scanner(valueText);
    const readString = (): string | undefined => {
      const quote = scanner.peek();
      if ((quote !== '"' && quote !== "'") || scanner.startsWith(quote.repeat(3))) return undefined;
      return scanner.singleLineString(quote);
    };
    if (scanner.peek() !== "[") {
      const value = readString();
      return scanner.at === valueText.length ? value : undefined;
    }
    scanner.at++;
    const items: string[] = [];
    for (;;) {
      scanner.skipBlanksCommentsNewlines();
      if (scanner.peek() === "]") {
        scanner.at++;
        return scanner.at === valueText.length ? items : undefined;
      }
      const item = readString();
      if (item === undefined) return undefined;
      items.push(item);
      scanner.skipBlanksCommentsNewlines();
      if (scanner.peek() === ",") scanner.at++;
      else if (scanner.peek() !== "]") return undefined;
    }
  } catch {
    return undefined;
  }
}
