import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HeaderCache } from "../../../../src/memdir/scan/header-cache.ts";
import { scanHeaders } from "../../../../src/memdir/scan/scan.ts";
import { LexicalIndexCache } from "../../../../src/recall/lexical/index/lexical-index.ts";
import type { LexicalPick } from "../../../../src/recall/lexical/index/types.ts";
import { compileBridges } from "../../../../src/recall/lexical/stages/term-bridges.ts";
import { withoutJoinedParts } from "../../../../src/recall/lexical/text/phrasal-verbs.ts";
import { wordSegmenter } from "../../../../src/recall/lexical/text/segment.ts";
import { TERM_BRIDGES } from "../../../../src/recall/lexical/text/term-bridges-table.ts";
import { BIGRAM_MARK, CJK_CHAR, tokenizeDetailed } from "../../../../src/recall/lexical/text/tokenize.ts";
import { createLexicalSelector } from "../../../../src/recall/select-lexical.ts";
import { memory, writeMemory } from "../../../helpers/memory.ts";
import { makeTempDir, writeTree } from "../../../helpers/temp.ts";

async function select(memoryDir: string, query: string, tuning = {}, k = 5): Promise<LexicalPick[]> {
  const headers = await scanHeaders(memoryDir, { cache: new HeaderCache() });
  const selector = createLexicalSelector({ cache: new LexicalIndexCache(), tuning });
  return (await selector.select({ query, headers, k, memoryDir })).picks as LexicalPick[];
}

/** A small project's memories, English and Chinese, none sharing a word with the prompts below. */
function project(): string {
  const dir = makeTempDir();
  writeTree(dir, {
    "pnpm.md": memory("Use pnpm, never npm", "npm writes a lock file CI rejects.", "feedback"),
    "timeout.md": memory("下游接口默认 3 秒超时", "银行通道例外，15 秒。", "project"),
    "release.md": memory("Releases ship on Tuesdays", "Nothing goes out on Fridays.", "project"),
    "doppler.md": memory("Secrets are kept in Doppler", "Per environment: dev, staging, prod.", "reference"),
    "style.md": memory("Prefer named exports", "Biome enforces noDefaultExport.", "feedback"),
    "user.md": memory("Backend engineer, new to React", "Explain the frontend in backend terms.", "user"),
    "oncall.md": memory("值班手册在 docs/oncall.md", "先看报警，再看队列积压。", "reference"),
  });
  return dir;
}

describe("term bridges: the words developers use for one thing", () => {
  const dir = project();

  for (const [direction, query, file, note] of [
    ["en→zh", "what is the request timeout", "timeout.md", "related: timeout≈超时"],
    ["zh→en", "怎么安装依赖", "pnpm.md", "related: 安装≈npm"],
    ["ja→en", "デプロイはいつできますか", "release.md", "related: デプロイ≈release"],
    ["en→en", "rotate the credentials", "doppler.md", "related: credentials≈secret"],
  ] as const) {
    it(`${direction}: "${query}" finds ${file}, and --explain names the pair`, async () => {
      const picks = await select(dir, query);
      assert.equal(picks[0]?.file, file, JSON.stringify(picks));
      assert.ok(picks[0].reason.includes(note), picks[0].reason);
    });
  }

  it("finds nothing through the table when the bridge is switched off (the prompts share no word)", async () => {
    for (const query of ["怎么安装依赖", "デプロイはいつできますか", "rotate the credentials"])
      assert.deepEqual(await select(dir, query, { bridgeWeight: 0 }), [], query);
  });

  it("leaves memories that say no term of the concept alone", async () => {
    const picks = await select(dir, "怎么安装依赖");
    assert.deepEqual(
      picks.map((pick) => pick.file),
      ["pnpm.md"],
    );
  });

  it("ranks a memory that says the prompt's own word above one that says another word for it", async () => {
    const both = makeTempDir();
    writeTree(both, {
      "a-yarn.md": memory("Yarn workspaces hold the apps", "One yarn.lock at the root.", "project"),
      "b-install.md": memory("Install with the frozen lockfile", "CI runs it that way.", "feedback"),
    });
    const picks = await select(both, "how do I install");
    assert.deepEqual(
      picks.map((pick) => pick.file),
      ["b-install.md", "a-yarn.md"],
    );
  });
});

/**
 * A web project's memories saved a day apart (so no two count as saved together), one of each
 * concept below; the prompts share no word with the memory they should find.
 */
function webProject(): string {
  const dir = makeTempDir();
  const memories: [file: string, description: string, body: string, type?: string][] = [
    [
      "timestamps-utc.md",
      "All timestamps are stored in UTC; convert only at the edge",
      "The UI formats them in the viewer's zone.",
    ],
    ["weekly-report.md", "The weekly report is a PDF mailed on Mondays", "Built by reports/weekly.ts."],
    [
      "purge-cron.md",
      "Stale sessions are purged by cron",
      "A crontab entry runs purge-sessions.ts at 03:00.",
    ],
    ["monorepo.md", "The repository is a pnpm monorepo", "apps/web and apps/admin share packages/ui."],
    ["orders-api.md", "The orders API pages with a cursor", "Clients pass the last id they saw."],
    [
      "tests-real-db.md",
      "Integration tests hit a real Postgres",
      "A mocked test once hid a failed migration.",
      "feedback",
    ],
  ];
  for (const [n, [file, description, body, type = "project"]] of memories.entries())
    writeMemory(dir, file, memory(description, body, type), new Date(Date.UTC(2026, 2, n + 1, 9)));
  return dir;
}

describe("term bridges: time zones, scheduled jobs and repositories (docs/design.md#term-bridges)", () => {
  const dir = webProject();
  const files = async (query: string, tuning = {}) =>
    (await select(dir, query, tuning)).map((pick) => pick.file);

  for (const [query, file, note] of [
    ["why does the report show the wrong local time?", "timestamps-utc.md", "related: local time≈utc"],
    ["which timezone do we save dates in", "timestamps-utc.md", "related: timezone≈utc"],
    ["时区怎么处理", "timestamps-utc.md", "related: 时区≈utc"],
    ["タイムゾーンの扱いは？", "timestamps-utc.md", "related: タイムゾーン≈utc"],
    ["which scheduled tasks do we have", "purge-cron.md", "related: scheduled task≈cron"],
    ["how is the repo laid out", "monorepo.md", "related: repo≈"],
  ] as const) {
    it(`"${query}" finds ${file} through the table, and --explain names the pair`, async () => {
      const picks = await select(dir, query);
      const pick = picks.find((candidate) => candidate.file === file);
      assert.ok(pick, JSON.stringify(picks));
      assert.ok(pick.reason.includes(note), pick.reason);
      assert.ok(!(await files(query, { bridgeWeight: 0 })).includes(file), "found without the table");
    });
  }

  it("does not pick the UTC memory for a prompt that says time or local in another sense", async () => {
    for (const query of [
      "the integration tests take a long time",
      "run the app on a local port",
      "paginate the orders API with limit and offset",
      "email the weekly report on time",
    ])
      assert.ok(!(await files(query)).includes("timestamps-utc.md"), query);
  });

  it("does not pick the cron memory for a task or a schedule said alone", async () => {
    for (const query of ["what is my next task", "move the release to next week's schedule"])
      assert.ok(!(await files(query)).includes("purge-cron.md"), query);
  });
});

describe("the term-bridge table", () => {
  const { groups } = compileBridges(TERM_BRIDGES);

  it("is a few hundred terms in concepts of two or more, each concept named once", () => {
    const concepts = groups.map((group) => group.concept);
    assert.equal(new Set(concepts).size, concepts.length, "a concept named twice");
    assert.ok(groups.length >= 40 && groups.length <= 300, `${groups.length} concepts`);
    for (const group of groups) assert.ok(group.entries.length >= 2, group.concept);
  });

  it("has no term that would match too much: no single letter, no single Han character", () => {
    for (const group of groups)
      for (const entry of group.entries) {
        assert.ok([...entry.text].length >= 2, `${group.concept}: "${entry.text}"`);
        assert.ok(entry.terms.length > 0, `${group.concept}: "${entry.text}" has no search term`);
      }
  });

  it("writes each word once per concept (the stemmer meets its other forms)", () => {
    for (const group of groups) {
      const keys = group.entries.map((entry) => entry.terms.join(" "));
      assert.equal(new Set(keys).size, keys.length, `${group.concept}: ${keys.join(", ")}`);
    }
  });

  it("compiles without the word segmenter, to the pairs and words the index makes of each term", () => {
    // An English prompt that ranks compiles the table: a term sent to Intl.Segmenter cost that
    // prompt ICU's word-break data (~13 ms, docs/design.md#the-prompt-hook-process). Katakana
    // terms with the prolonged sound mark (リリース) were sent to it.
    const segment = wordSegmenter.segment;
    const segmented: string[] = [];
    wordSegmenter.segment = (text: string) => {
      segmented.push(text);
      return segment(text);
    };
    let compiled: ReturnType<typeof compileBridges>;
    try {
      compiled = compileBridges(TERM_BRIDGES);
    } finally {
      wordSegmenter.segment = segment;
    }
    assert.deepEqual(segmented, [], "terms the segmenter was asked for");
    // What a prompt asks for with the same text (tokenized, a phrasal verb as its joined word):
    // its character pairs and its words outside Chinese and Japanese.
    let katakana = 0;
    for (const group of compiled.groups)
      for (const entry of group.entries) {
        const terms = withoutJoinedParts(tokenizeDetailed(entry.text)).map((token) => token.term);
        const kept = terms.filter((term) => term.endsWith(BIGRAM_MARK) || !CJK_CHAR.test(term));
        assert.deepEqual(
          [...entry.terms].sort(),
          [...new Set(kept.length > 0 ? kept : terms)].sort(),
          `${group.concept}: "${entry.text}"`,
        );
        if (entry.text.includes("ー")) katakana++;
      }
    assert.ok(katakana >= 10, `the control: ${katakana} terms with ー`);
  });

  it("reads phrases as all of their words, and Chinese and Japanese terms as character pairs", () => {
    const { groups: parsed } = compileBridges("staging: staging, test environment, 测试环境, テスト環境");
    assert.deepEqual(
      parsed[0].entries.map((entry) => entry.terms.length),
      [1, 2, 3, 4],
    );
  });
});
