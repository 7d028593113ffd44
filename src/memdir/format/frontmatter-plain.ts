/**
 * The frontmatter memdir itself writes, read without the YAML parser (docs/design.md#plain-frontmatter):
 * top-level `key: value` lines with plain, single-quoted or double-quoted (no escapes) one-line
 * string values or `true`/`false`, `key:` with no value (null), and one level of `key:` followed
 * by indented `key: value` lines (Claude Code's `metadata:` map) or by a list of such maps, each
 * item `- key: value` with its other keys two columns further in (memdir's own `anchors:`).
 * Anything else — numbers, other lists, deeper nesting, block scalars, YAML anchors and aliases,
 * tags, comments, flow collections, multi-line values, tabs, control characters, duplicate keys —
 * is left to the yaml package, so a file parses to exactly
 * what `yaml.parse` gives (test/memdir/frontmatter-plain.test.ts compares the two on generated and
 * hostile frontmatter). Loading and running yaml cost `memdir list` and a hook that parses a
 * changed file ~20 ms plus ~0.1 ms a file (docs/design.md#the-prompt-hook-process).
 */

/**
 * The data of frontmatter `text` (the lines between the `---` markers, without `\r`), or
 * `undefined` when the text is anything this reader does not fully understand.
 *
 * @example
 * parsePlainFrontmatter("description: use pnpm\ntype: feedback") // { description: "use pnpm", type: "feedback" }
 * parsePlainFrontmatter("tags: [a, b]") // undefined: ask the YAML parser
 */
export function parsePlainFrontmatter(text: string): Record<string, unknown> | undefined {
  if (UNUSUAL_CHARACTER.test(text) || LONE_SURROGATE.test(text)) return undefined;
  const data: Record<string, unknown> = {};
  // The last top-level key without a value: indented lines below it make it a map or a list of maps.
  let openKey: string | null = null;
  // The map indented lines add to (the open key's, or the list's last item), and its keys' indent.
  let nested: Record<string, unknown> | null = null;
  let nestedIndent = 0;
  // The open key's list of maps, and the indent of its `- `.
  let items: Record<string, unknown>[] | null = null;
  let itemsIndent = 0;
  let keys = 0;
  for (const line of text.split("\n")) {
    if (BLANK_LINE.test(line)) continue;
    const indent = line.length - line.trimStart().length;
    if (indent > 0) {
      if (openKey === null) return undefined;
      const rest = line.slice(indent);
      if (rest.startsWith("- ")) {
        if (items === null) {
          if (nested !== null) return undefined; // a map already
          items = [];
          itemsIndent = indent;
          data[openKey] = items;
        } else if (indent !== itemsIndent) return undefined;
        nested = {};
        nestedIndent = indent + 2;
        items.push(nested);
        if (!addEntry(nested, rest.slice(2))) return undefined;
        continue;
      }
      if (nested !== null && indent !== nestedIndent) return undefined;
      if (nested === null) {
        nested = {};
        nestedIndent = indent;
        data[openKey] = nested;
      }
      if (!addEntry(nested, rest)) return undefined;
      continue;
    }
    openKey = null;
    nested = null;
    items = null;
    const key = addEntry(data, line);
    if (key === undefined) return undefined;
    if (data[key] === null) openKey = key;
    keys++;
  }
  return keys > 0 ? data : undefined;
}

/** Adds the `key: value` of `line` to `map`; returns the key, or undefined when not understood. */
function addEntry(map: Record<string, unknown>, line: string): string | undefined {
  const match = ENTRY.exec(line);
  if (match === null) return undefined;
  const key = match[1];
  if (key.length > MAX_KEY_LENGTH || RESERVED_KEY.test(key) || Object.hasOwn(map, key)) return undefined;
  const value = scalarOf(match[2] ?? "");
  if (value === undefined) return undefined;
  map[key] = value;
  return key;
}

/** The value of a one-line scalar (`null` for nothing), or undefined when not a plain string or boolean. */
function scalarOf(raw: string): string | boolean | null | undefined {
  const value = raw.trimEnd();
  if (value === "") return null;
  if (TRUE.test(value)) return true;
  if (FALSE.test(value)) return false;
  const first = value[0];
  if (first === '"') {
    const inner = value.slice(1, -1);
    return value.length >= 2 && value.endsWith('"') && !/["\\]/.test(inner) ? inner : undefined;
  }
  if (first === "'") {
    const inner = value.slice(1, -1);
    return value.length >= 2 && value.endsWith("'") && SINGLE_QUOTED.test(inner)
      ? inner.replaceAll("''", "'")
      : undefined;
  }
  if (INDICATOR.test(first) || value.includes(": ") || value.includes(" #") || value.endsWith(":"))
    return undefined;
  if (CORE_NON_STRING.test(value) || NUMBER_LIKE.test(value)) return undefined;
  return value;
}

/**
 * What this reader's result depends on, for the cache fingerprints: its functions' source texts
 * and patterns.
 */
export function plainFrontmatterCode(): unknown[] {
  return [
    parsePlainFrontmatter,
    addEntry,
    scalarOf,
    MAX_KEY_LENGTH,
    ...[
      UNUSUAL_CHARACTER,
      LONE_SURROGATE,
      BLANK_LINE,
      ENTRY,
      RESERVED_KEY,
      SINGLE_QUOTED,
      INDICATOR,
      CORE_NON_STRING,
      NUMBER_LIKE,
      TRUE,
      FALSE,
    ].map(String),
  ];
}

// Tabs (YAML forbids them as indentation), control characters, YAML's other line breaks, a BOM
// or non-character inside the text: the YAML parser decides.
const UNUSUAL_CHARACTER = /[\t\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const BLANK_LINE = /^ *$/;
// `key:` then nothing or at least one space and the value. Keys are simple words.
const ENTRY = /^([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*))?$/;
const MAX_KEY_LENGTH = 128;
// Keys YAML would resolve to a boolean or null, and the one an object cannot simply hold.
const RESERVED_KEY = /^(?:true|false|null|__proto__)$/i;
const SINGLE_QUOTED = /^(?:[^']|'')*$/;
// A plain scalar cannot start with an indicator: `- ? : , [ ] { } # & * ! | > ' " % @` and backtick.
const INDICATOR = /[-?:,[\]{}#&*!|>'"%@`]/;
// What YAML 1.2's core schema (yaml's default) resolves to something other than a string.
const CORE_NON_STRING =
  /^(?:~|[Nn]ull|NULL|[Tt]rue|TRUE|[Ff]alse|FALSE|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
// YAML 1.2's core schema's booleans (`dir: true` in an anchor); `yes`, `on` and the like are strings there.
const TRUE = /^(?:true|True|TRUE)$/;
const FALSE = /^(?:false|False|FALSE)$/;
// A wider net around decimal numbers, should a yaml version resolve more of them (`1_000`, a
// date); ISO times, with their `T` and `:`, and session ids with letters stay strings here.
const NUMBER_LIKE = /^[-+.]?[0-9][0-9._eE+-]*$/;
