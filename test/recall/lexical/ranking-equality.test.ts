import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HeaderCache } from "../../../src/memdir/scan/header-cache.ts";
import { scanHeaders } from "../../../src/memdir/scan/scan.ts";
import { LexicalIndexCache } from "../../../src/recall/lexical/index/lexical-index.ts";
import { FIELD_NAMES, type FieldName } from "../../../src/recall/lexical/index/memory-record.ts";
import { saveOrder } from "../../../src/recall/lexical/index/times.ts";
import type { LexicalTuning, StageScores } from "../../../src/recall/lexical/index/types.ts";
import { queryTerms, queryTokens } from "../../../src/recall/lexical/query.ts";
import type { RankContext } from "../../../src/recall/lexical/stages/stage.ts";
import {
  addExpansionScores,
  bestMatches,
  scoreWholeFiles,
} from "../../../src/recall/lexical/stages/stage-bm25f.ts";
import { feedbackApplies, feedbackTerms } from "../../../src/recall/lexical/stages/stage-feedback.ts";
import { passageStage } from "../../../src/recall/lexical/stages/stage-passage.ts";
import { relatedWordsStage } from "../../../src/recall/lexical/stages/stage-related.ts";
import { bundledWordVectors } from "../../../src/recall/lexical/text/word-vectors.ts";
import { DEFAULT_LEXICAL_TUNING } from "../../../src/recall/lexical/tuning.ts";
import { memory, writeMemory } from "../../helpers/memory.ts";
import { seededRandom, testSeed } from "../../helpers/random.ts";
import { makeTempDir } from "../../helpers/temp.ts";
import {
  referenceBest,
  referencePassageStage,
  referenceRelatedStage,
  referenceWholeFiles,
} from "./reference-stages.ts";

// The ranking's hot stages skip work per query (tokens with no countable related match, passages
// without one, fields without the term, matches that cannot make the best few): this checks
// that what they return is exactly what the straightforward implementations in
// reference-stages.ts return — every match, score (to the last bit), `--explain` note and order.

const TOPICS = [
  "dog dogs puppy cat cats kitten pet pets beagle walks leash vet",
  "karate judo martial arts boxing training belt dojo fight",
  "liberal conservative political politics vote election party leaning",
  "coffee tea milk sugar breakfast oat cup drinks",
  "database tests login mock server deploy api bug integration schema",
  "guitar piano violin concert song music band plays",
  "camping hiking tent mountain lake trail outdoors fishing",
  "painting art paint canvas museum gallery artist drawing",
  "release checklist deadline sprint board ticket review merge",
];
const FILLER =
  "the user said that we should always never today really because also then when with about".split(" ");
const NAMES = ["Melanie", "Caroline", "Biscuit", "Xqzzt", "Jon"];
const CJK = ["用户喜欢喝咖啡", "部署流水线时间", "登录模块测试", "我们决定"];

/** A memory directory of `count` notes drawn from a few topics, short and long, some in Chinese. */
function generate(seed: number, count: number): string {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)];
  const words = (topic: string[], n: number) =>
    Array.from({ length: n }, () =>
      random() < 0.45 ? pick(topic) : random() < 0.9 ? pick(FILLER) : pick(NAMES),
    ).join(" ");
  const dir = makeTempDir("memdir-ranking-");
  let text = "";
  for (let i = 0; i < count; i++) {
    const file = `note-${String(i).padStart(3, "0")}.md`;
    const time = new Date(1.7e12 + i * 97_000);
    // Every seventh note repeats the one before: equal scores, whose order is the posting order.
    if (i % 7 === 6) {
      writeMemory(dir, file, text, time);
      continue;
    }
    const topic = pick(TOPICS).split(" ");
    const lines = random() < 0.3 ? Math.floor(random() * 4) : Math.floor(random() * 60);
    const body = Array.from({ length: lines }, () =>
      random() < 0.08
        ? pick(CJK)
        : random() < 0.05
          ? ""
          : words(random() < 0.2 ? pick(TOPICS).split(" ") : topic, 2 + Math.floor(random() * 14)),
    ).join("\n");
    text = memory(words(topic, 3 + Math.floor(random() * 6)), body);
    writeMemory(dir, file, text, time);
  }
  return dir;
}

/** 31 prompts as bench/queries.ts makes them, and hostile ones. */
function prompts(seed: number): string[] {
  const random = seededRandom(seed + 1);
  const templates = [
    (w: string) => `remind me what we decided about ${w}`,
    (w: string) => `how should I handle ${w}?`,
    (w: string) => `fix the tests for ${w}`,
    (w: string) => `what do we know about ${w}`,
  ];
  const list: string[] = [];
  for (let i = 0; i < 31; i++) {
    const topic = TOPICS[i % TOPICS.length].split(" ");
    const chosen = Array.from({ length: 2 + (i % 4) }, () => topic[Math.floor(random() * topic.length)]);
    list.push(templates[i % templates.length](chosen.join(" ")));
  }
  list.push(
    "",
    "the of and",
    "pets",
    "art painting paint",
    "what is Melanie's political leaning?",
    "does Caroline do martial arts like karate",
    "fesetival databse integrashun",
    "关于登录模块测试有什么要注意的？",
    "Xqzzt Biscuit",
    "dog ".repeat(50),
    // A pasted page: more words than the related stage takes.
    TOPICS.join(" "),
    "🙂 1234 ###",
  );
  return list;
}

function equalScores(actual: StageScores | null, expected: StageScores | null, what: string): void {
  assert.equal(actual === null, expected === null, `${what}: applies`);
  if (actual === null || expected === null) return;
  assert.deepEqual(Array.from(actual.scores), Array.from(expected.scores), `${what}: scores`);
  assert.deepEqual(actual.notes ?? null, expected.notes ?? null, `${what}: notes`);
}

async function compare(dir: string, queries: readonly string[], tuning: LexicalTuning): Promise<number> {
  const headers = await scanHeaders(dir, { cache: new HeaderCache() });
  const index = new LexicalIndexCache().forDirectory(dir);
  await index.sync(headers);
  const vectors = bundledWordVectors();
  assert.ok(vectors, "the bundled word vectors are needed to compare the related-word stage");
  const corpus = index.corpus;
  const headerByFile = index.syncedHeaderByFile();
  const averages = Object.fromEntries(FIELD_NAMES.map((f) => [f, corpus.averageLength(f)])) as Record<
    FieldName,
    number
  >;
  const order = saveOrder(headers);
  const changed = Object.entries(tuning).filter(
    ([key, value]) => DEFAULT_LEXICAL_TUNING[key as keyof LexicalTuning] !== value,
  );
  let compared = 0;
  for (const query of queries) {
    const what = `${JSON.stringify(query.slice(0, 60))} (tuning ${JSON.stringify(Object.fromEntries(changed))})`;
    const tokens = queryTokens(query);
    const terms = queryTerms(corpus, tokens, tuning.typoWeight);
    const files = (list: readonly { file: string }[]) => list.map((m) => m.file);
    // A caller that passes only some of the files (a filtered list): only those are matched.
    const some = new Map([...headerByFile].filter((_, i) => i % 3 !== 0));
    const fewer = scoreWholeFiles(corpus, index.scratch, some, terms, tuning, averages);
    assert.deepEqual(
      files(fewer.memories),
      files(referenceWholeFiles(corpus, some, terms, tuning, averages).memories),
      `${what}: matches among some files`,
    );
    // The scores live in the index's scratch until the next query: this one's, after the above.
    const matches = scoreWholeFiles(corpus, index.scratch, headerByFile, terms, tuning, averages);
    const expected = referenceWholeFiles(corpus, headerByFile, terms, tuning, averages);
    assert.deepEqual(files(matches.memories), files(expected.memories), `${what}: matches`);
    assert.deepEqual(
      Array.from(matches.scores.subarray(0, matches.memories.length)),
      expected.scores,
      `${what}: BM25F`,
    );
    for (const depth of [1, 2, 3, 4, 5, 6, 8, 11, 17, 40, 200]) {
      const best = bestMatches(matches, depth).map((c) => `${c.memory.file} ${c.base}`);
      const reference = referenceBest(expected.scores, depth).map(
        (p) => `${expected.memories[p].file} ${expected.scores[p]}`,
      );
      assert.deepEqual(best, reference, `${what}: best ${depth}`);
    }
    let candidates = bestMatches(matches, tuning.rerankDepth);
    if (feedbackApplies(corpus, tuning, candidates)) {
      const expansion = feedbackTerms(corpus, candidates, terms, tuning);
      addExpansionScores(matches, expansion, tuning, averages);
      const fresh = referenceWholeFiles(corpus, headerByFile, [...terms, ...expansion], tuning, averages);
      assert.deepEqual(
        Array.from(matches.scores.subarray(0, matches.memories.length)),
        fresh.scores,
        `${what}: feedback`,
      );
      candidates = bestMatches(matches, tuning.rerankDepth);
    }
    const context: RankContext = {
      corpus,
      scratch: index.scratch,
      tuning,
      terms,
      tokens,
      pathTerms: new Set(),
      bridges: [],
      headerByFile,
      vectors,
      times: order.times,
      saveOrder: order,
      dates: [],
    };
    const current = new Float64Array(candidates.length);
    equalScores(
      passageStage.score(context, candidates, current),
      referencePassageStage(context, candidates),
      `${what}: passage`,
    );
    equalScores(
      relatedWordsStage.score(context, candidates, current),
      referenceRelatedStage(context, candidates),
      `${what}: related`,
    );
    if (candidates.length > 0) compared++;
  }
  return compared;
}

describe("the fast ranking stages give exactly what the straightforward ones give", () => {
  // Made here, not in a test: a temp dir made in a test is removed when that test ends.
  const dir = generate(17, 150);
  const list = prompts(17);

  it("on a generated directory: the 31 bench-style prompts and hostile ones, default tuning", async () => {
    const compared = await compare(dir, list, DEFAULT_LEXICAL_TUNING);
    assert.ok(compared >= 35, `most prompts reach the stages (${compared})`);
  });

  it("on a directory of this run's seed", async (t) => {
    const seed = testSeed();
    t.diagnostic(`seed ${seed} (MEMDIR_TEST_SEED=${seed} replays it)`);
    const compared = await compare(generate(seed, 150), prompts(seed), DEFAULT_LEXICAL_TUNING);
    // Every one of the 31 topic prompts shares words with the generated notes, so each reaches the
    // stages whatever the seed: a run that compared fewer compared nothing worth the name.
    assert.ok(compared >= 31, `the topic prompts reach the stages (${compared}, seed ${seed})`);
  });

  it("with other thresholds and depths (a negative or zero threshold counts every similarity)", async () => {
    const tunings: Partial<LexicalTuning>[] = [
      { relatedThreshold: 0 },
      { relatedThreshold: -0.25 },
      { relatedThreshold: 0.7 },
      { relatedThreshold: 1 },
      { relatedDepth: 200, passageDepth: 200, passageMinLines: 1, rerankDepth: 60 },
      { relatedWeight: 0 },
      { relatedPassageWeight: 0, feedbackMaxAverageLength: 10_000 },
    ];
    for (const tuning of tunings) {
      const compared = await compare(dir, list, { ...DEFAULT_LEXICAL_TUNING, ...tuning });
      assert.ok(compared >= 35, `most prompts reach the stages (${compared})`);
    }
  });

  it("keeps its scratch clean between queries: the same query twice, after others, scores the same", async () => {
    const twice = [...list, ...list.slice().reverse()];
    const compared = await compare(dir, twice, DEFAULT_LEXICAL_TUNING);
    assert.ok(compared >= 70, `most prompts reach the stages (${compared})`);
  });
});
