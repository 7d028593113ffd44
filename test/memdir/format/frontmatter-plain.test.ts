import assert from "node:assert/strict";
import { describe, it } from "node:test";
import YAML from "yaml";
import {
  parseFrontmatter,
  serializeMemory,
  setFrontmatterKeys,
} from "../../../src/memdir/format/frontmatter.ts";
import { parsePlainFrontmatter } from "../../../src/memdir/format/frontmatter-plain.ts";
import { seededRandom, testSeed } from "../../helpers/random.ts";

const YAML_ERROR = Symbol("yaml error");

/** What the YAML parser makes of a frontmatter text (the reference), or YAML_ERROR. */
function yamlOf(text: string): unknown {
  try {
    return YAML.parse(text, { prettyErrors: false });
  } catch {
    return YAML_ERROR;
  }
}

/** The plain reader agrees with yaml wherever it answers; returns whether it answered. */
function assertAgrees(text: string, seed?: number): boolean {
  const plain = parsePlainFrontmatter(text);
  if (plain === undefined) return false;
  const reference = yamlOf(text);
  const replay = seed === undefined ? "" : ` (MEMDIR_TEST_SEED=${seed})`;
  assert.notEqual(
    reference,
    YAML_ERROR,
    `yaml refuses what the plain reader read: ${JSON.stringify(text)}${replay}`,
  );
  assert.deepStrictEqual(plain, reference, `differs from yaml on ${JSON.stringify(text)}${replay}`);
  return true;
}

const KEYS = [
  "description",
  "type",
  "name",
  "source",
  "session",
  "modified",
  "metadata",
  "tags",
  "x-y",
  "_k",
  "Key9",
  "True",
  "null",
  "NULL",
  "__proto__",
  "constructor",
  "a b",
  '"q"',
  "'q'",
  "?",
  "1",
  "<<",
];
const PLAIN_VALUES = [
  "use pnpm, not npm",
  "数据库迁移不得 mock 数据库",
  "feedback",
  "user",
  "2026-07-30T07:40:18.191Z",
  "8f2c4a1e-1b2c-4d5e-8f90-123456789abc",
  "extraction",
  '"quoted: yes"',
  "'it''s'",
  "ok.",
  "a-b_c",
];
const VALUES = [
  "",
  "use pnpm, not npm",
  "数据库迁移不得 mock 数据库",
  "emoji 🦀 ok",
  "a  b",
  "trailing   ",
  "x:y",
  "x: y",
  "a #b",
  "a#b",
  "#c",
  "ends:",
  '"quoted: yes"',
  '"with \\" escape"',
  '"a\\nb"',
  "'it''s'",
  "'bad ' quote'",
  "'single'",
  '"unterminated',
  "'unterminated",
  '"a" tail',
  "1",
  "-1",
  "+1",
  "1.5",
  ".5",
  "1e5",
  "0x1f",
  "0o7",
  "1_000",
  "12:30",
  ".inf",
  "-.Inf",
  ".nan",
  "NaN",
  "true",
  "True",
  "TRUE",
  "tRuE",
  "yes",
  "no",
  "on",
  "~",
  "null",
  "Null",
  "nULL",
  "2026-01-01",
  "2026-07-30T07:40:18.191Z",
  "- item",
  "-x",
  "?x",
  ":x",
  "[a, b]",
  "{a: 1}",
  "&anchor value",
  "*alias",
  "!tag x",
  "!!str 1",
  "|",
  ">-",
  "%x",
  "@x",
  "`x`",
  "a, b",
  "a]b",
  "tab\there",
  "nul\u0000",
  "bell\u0007",
  "nel\u0085x",
  "ls\u2028x",
  "bom\ufeffx",
  "lone\ud800",
  "=",
  "<<",
  "back\\slash",
  "percent%",
  "C:\\path",
  "http://example.com/a?b=c#d",
  "a:\tb",
];
const OTHER_LINES = [
  "",
  "   ",
  "# a comment",
  "  # indented comment",
  "  - item",
  "- item",
  "  more words",
  "    deeper: x",
  "  nested: value",
  "  nested: value",
  '  other: "quoted"',
  "  empty:",
  "...",
  "--- x",
  "%YAML 1.1",
  "key:value",
  "key :value",
  "\tkey: tab",
  "  - path: src/a.ts\n    hash: abc",
  "anchors:\n  - path: a.ts",
  "metadata:\n  type: user\n  modified: 2026-01-01T00:00:00Z",
  "metadata:\n  type: user\n   odd: indent",
  "a: &x 1\nb: *x",
  "k: |\n  block\n  text",
  "k: >\n  folded",
  "list:\n- a\n- b",
  "k: [1,\n  2]",
];

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)];
}

/**
 * A key and a list of maps under it, as memdir writes `anchors:` (`  - path: …` then `    hash: …`),
 * mostly well formed, sometimes with the indents, dashes or values a hand edit might leave.
 */
function randomListBlock(random: () => number): string {
  const lines = [`${pick(random, ["anchors", "tags", "metadata", "description"])}:`];
  const dashIndent = pick(random, [2, 2, 2, 4, 1, 0]);
  const items = 1 + Math.floor(random() * 3);
  for (let i = 0; i < items; i++) {
    const entries = 1 + Math.floor(random() * 3);
    for (let j = 0; j < entries; j++) {
      const key = pick(random, ["path", "hash", "symbol", "dir", "path", "true", "a b"]);
      const value =
        random() < 0.6
          ? pick(random, [...PLAIN_VALUES, "true", "false", "True", "src/auth/login.ts", '"123456789012"'])
          : pick(random, VALUES);
      const entry = random() < 0.1 ? key : `${key}:${value === "" ? "" : " "}${value}`;
      const itemIndent = dashIndent + pick(random, [2, 2, 2, 2, 3, 1]);
      const dash = pick(random, ["- ", "- ", "- ", "-  ", "-", "-\t"]);
      lines.push(j === 0 ? `${" ".repeat(dashIndent)}${dash}${entry}` : `${" ".repeat(itemIndent)}${entry}`);
    }
  }
  return lines.join("\n");
}

/** A frontmatter text of 1–8 lines drawn from the pools above. */
function randomFrontmatter(random: () => number): string {
  const lines: string[] = [];
  const count = 1 + Math.floor(random() * 8);
  for (let i = 0; i < count; i++) {
    const roll = random();
    if (roll < 0.5) lines.push(`${pick(random, KEYS.slice(0, 8))}: ${pick(random, PLAIN_VALUES)}`);
    else if (roll < 0.65) lines.push(`${pick(random, KEYS.slice(0, 8))}: ${pick(random, VALUES)}`);
    else if (roll < 0.7)
      lines.push(`${pick(random, KEYS)}:${pick(random, ["", " ", "  "])}${pick(random, VALUES)}`);
    else if (roll < 0.8) lines.push(`${pick(random, KEYS.slice(0, 8))}:`);
    else if (roll < 0.88) lines.push(randomListBlock(random));
    else lines.push(pick(random, OTHER_LINES));
  }
  return lines.join("\n");
}

describe("parsePlainFrontmatter", () => {
  it("reads the frontmatter memdir writes without the YAML parser, as yaml reads it", () => {
    const descriptions = [
      "tests hit a real database",
      "use pnpm: the lockfile is pnpm's",
      "a #hash in the middle",
      'say "hi" to the reviewer',
      "it's the team's rule",
      "登录模块每个用户可见的改动都要写变更记录",
      "- starts like a list",
      "ends with a colon:",
    ];
    for (const description of descriptions) {
      const written = serializeMemory({
        description,
        type: "feedback",
        name: "feedback-x",
        modified: "2026-07-30T07:40:18.191Z",
        body: "body",
      });
      const stamped = setFrontmatterKeys(written, {
        source: "extraction",
        session: "8f2c-4a1e",
        anchors: [
          { path: "src/auth/login.ts", hash: "0a1b2c3d4e5f" },
          { path: "src/auth/session.ts", symbol: "refreshToken", hash: "123456789012" },
          { path: "docs", dir: true },
          { path: description.slice(0, 20), hash: "1e5000000000" },
        ],
      });
      const claudeShape = serializeMemory({
        description,
        type: "user",
        previous: { name: "x", metadata: { type: "user", modified: "2026-01-01T00:00:00Z" } },
        modified: "2026-07-30T07:40:18.191Z",
        body: "",
      });
      for (const text of [written, stamped, claudeShape]) {
        const frontmatter = text.split("\n---\n")[0].slice("---\n".length);
        assert.ok(assertAgrees(frontmatter), `left to yaml: ${JSON.stringify(frontmatter)}`);
      }
    }
  });

  it("answers exactly as yaml does, or leaves the text to yaml, on generated and hostile frontmatter", (t) => {
    const seed = testSeed();
    t.diagnostic(`MEMDIR_TEST_SEED=${seed}`);
    const random = seededRandom(seed);
    let answered = 0;
    const runs = 20_000;
    for (let i = 0; i < runs; i++) if (assertAgrees(randomFrontmatter(random), seed)) answered++;
    // Both branches are exercised: the plain reader is not a reader that always declines.
    assert.ok(answered > runs / 10 && answered < runs, `answered ${answered} of ${runs}`);
  });

  it("leaves to yaml what it does not fully understand", () => {
    for (const text of [
      "description: a\ndescription: b", // duplicate key: yaml refuses it
      "description: x # comment",
      "tags: [a, b]",
      "tags:\n  - a\n  - b", // a list of strings
      "anchors:\n- path: src/a.ts", // the dash at the key's indent
      "anchors:\n  - path: src/a.ts\n      hash: abc", // deeper than the item's keys
      "anchors:\n  - path: src/a.ts\n    hash: abc\n    hash: def", // a duplicate key in an item
      "metadata:\n  type: user\n  - path: a", // a map, then a list
      "description: |\n  multi\n  line",
      "description: first\n  continued",
      "count: 3",
      "description: &a x\nname: *a",
      "# only a comment",
    ])
      assert.equal(parsePlainFrontmatter(text), undefined, JSON.stringify(text));
  });

  it("gives parseFrontmatter the same result on either path, issues included", () => {
    const texts = [
      "---\ndescription: plain\ntype: user\n---\nbody",
      "---\ndescription: 42\ntype: user\n---\n",
      "---\ndescription: [a\ntype: user\n---\n",
      "---\nmetadata:\n  type: project\n  modified: 2026-02-03T04:05:06Z\ndescription: nested\n---\n",
      "---\r\ndescription: crlf\r\ntype: feedback\r\n---\r\nbody",
    ];
    for (const text of texts) {
      const parsed = parseFrontmatter(text);
      const yamlText = text
        .split(/\r?\n---\r?\n/)[0]
        .replace(/^---\r?\n/, "")
        .replace(/\r/g, "");
      const reference = yamlOf(yamlText);
      if (reference === YAML_ERROR) assert.equal(parsed.issues[0]?.code, "yaml");
      else assert.deepStrictEqual(parsed.data, reference);
    }
  });
});
