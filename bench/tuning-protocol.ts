/**
 * The tuning protocol (docs/benchmarks.md#tuning-protocol): the LoCoMo development split
 * in two halves by conversation, recall@5 of the lexical selector with each ranking stage off and
 * on, on both halves and per category, plus plain whole-file BM25 as a reference. Knobs may be
 * tuned on the tuning half only; the validation half says whether a change generalizes.
 *
 *   node --import tsx bench/tuning-protocol.ts            # prints the tables
 *   node --import tsx bench/tuning-protocol.ts --write    # and writes them into docs/benchmarks.md
 *   node --import tsx bench/tuning-protocol.ts --defaults-only   # the "all stages" row alone
 *   node --import tsx bench/tuning-protocol.ts --experiment '{"dateWeight":0.5}'
 *       # an experiment: those knobs against the defaults, on the tuning half only
 *
 * The split: the conversations sorted by name, the 1st, 3rd, 5th … tune, the 2nd, 4th … validate.
 * The data is read from ../shared/bench (never copied into the repository); without it the
 * script says so and exits 0.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { scanHeaders } from "../src/memdir/scan/scan.ts";
import { type EvalQuery, readEvalQueries } from "../src/recall/eval.ts";
import { LexicalIndexCache } from "../src/recall/lexical/index/lexical-index.ts";
import type { LexicalTuning } from "../src/recall/lexical/index/types.ts";
import { tokenize } from "../src/recall/lexical/text/tokenize.ts";
import { selectMemories } from "../src/recall/recall.ts";
import { createLexicalSelector } from "../src/recall/select-lexical.ts";
import { REPO_ROOT, runCommand } from "./stats.ts";

/** Each stage turned off, by its knobs (the rows of the table). */
const STAGES_OFF: readonly [string, Partial<LexicalTuning>][] = [
  ["passages", { passageWeight: 0 }],
  ["related words", { relatedWeight: 0, relatedPassageWeight: 0 }],
  ["feedback words", { feedbackWeight: 0 }],
  ["typos", { typoWeight: 0 }],
  ["term bridges", { bridgeWeight: 0 }],
  ["dates", { dateWeight: 0 }],
  ["answer after the question", { answerWeight: 0 }],
  ["saved together", { neighborWeight: 0 }],
  ["recency", { recencyWeight: 0 }],
  ["relative floor", { relativeFloor: 0 }],
];
const EVERY_STAGE_OFF: Partial<LexicalTuning> = Object.assign({}, ...STAGES_OFF.map(([, off]) => off));

const K = 5;
const VARIANTS = ["sessions", "observations"] as const;
type Half = "tuning" | "validation";

/** Tuning half: the conversations at even positions of the sorted list. */
export function halfOf(conv: string, convs: readonly string[]): Half {
  return [...convs].sort().indexOf(conv) % 2 === 0 ? "tuning" : "validation";
}

/** recall@5 sums per half and category. */
class Scores {
  #sums = new Map<string, { recall: number; count: number }>();
  add(key: string, recall: number): void {
    const sum = this.#sums.get(key) ?? { recall: 0, count: 0 };
    sum.recall += recall;
    sum.count++;
    this.#sums.set(key, sum);
  }
  get(key: string): string {
    const sum = this.#sums.get(key);
    return sum ? (sum.recall / sum.count).toFixed(3) : "–";
  }
  count(key: string): number {
    return this.#sums.get(key)?.count ?? 0;
  }
}

const recallOf = (picked: readonly string[], gold: readonly string[]) =>
  gold.filter((file) => picked.includes(file)).length / gold.length;

function record(scores: Scores, half: Half, query: EvalQuery, recall: number): void {
  scores.add(half, recall);
  scores.add(`${half}/${query.category_name ?? "other"}`, recall);
}

async function lexicalScores(
  dataDir: string,
  queries: readonly EvalQuery[],
  halves: Map<string, Half>,
  cache: LexicalIndexCache,
  tuning: Partial<LexicalTuning>,
  onlyHalf?: Half,
): Promise<Scores> {
  const selector = createLexicalSelector({ cache, tuning });
  const scores = new Scores();
  for (const query of queries) {
    const conv = query.conv ?? "";
    if (onlyHalf !== undefined && halves.get(conv) !== onlyHalf) continue;
    const selection = await selectMemories({
      memoryDir: path.join(dataDir, conv),
      query: query.question,
      selector,
      k: K,
    });
    const recall = recallOf(
      selection.picks.map((pick) => pick.file),
      query.gold,
    );
    record(scores, halves.get(conv) ?? "tuning", query, recall);
  }
  return scores;
}

/** Plain BM25 (k1 1.2, b 0.75) over each whole file, the same tokenizer, no stage, no floor. */
async function plainBm25Scores(
  dataDir: string,
  queries: readonly EvalQuery[],
  halves: Map<string, Half>,
): Promise<Scores> {
  const scores = new Scores();
  const indexes = new Map<string, { file: string; counts: Map<string, number>; length: number }[]>();
  for (const query of queries) {
    const conv = query.conv ?? "";
    let documents = indexes.get(conv);
    if (documents === undefined) {
      const headers = await scanHeaders(path.join(dataDir, conv), { limit: Number.POSITIVE_INFINITY });
      documents = headers.map((header) => {
        const counts = new Map<string, number>();
        const terms = tokenize(`${header.file} ${fs.readFileSync(header.path, "utf8")}`);
        for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
        return { file: header.file, counts, length: terms.length };
      });
      indexes.set(conv, documents);
    }
    const average = documents.reduce((sum, d) => sum + d.length, 0) / Math.max(1, documents.length);
    const ranked = documents
      .map((document) => {
        let score = 0;
        for (const term of new Set(tokenize(query.question))) {
          const frequency = document.counts.get(term) ?? 0;
          if (frequency === 0) continue;
          const containing = documents.filter((d) => d.counts.has(term)).length;
          const idf = Math.log(1 + (documents.length - containing + 0.5) / (containing + 0.5));
          score += (idf * frequency * 2.2) / (frequency + 1.2 * (0.25 + (0.75 * document.length) / average));
        }
        return { file: document.file, score };
      })
      .filter((entry) => entry.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, K);
    record(
      scores,
      halves.get(conv) ?? "tuning",
      query,
      recallOf(
        ranked.map((entry) => entry.file),
        query.gold,
      ),
    );
  }
  return scores;
}

async function main(): Promise<void> {
  const sharedBench = path.resolve(REPO_ROOT, "..", "shared", "bench");
  if (!fs.existsSync(path.join(sharedBench, "locomo"))) {
    console.log(`tuning protocol: ${sharedBench}/locomo not found; nothing measured.`);
    return;
  }
  const defaultsOnly = process.argv.includes("--defaults-only");
  const experimentAt = process.argv.indexOf("--experiment");
  const experiment =
    experimentAt >= 0 ? (JSON.parse(process.argv[experimentAt + 1] ?? "{}") as Partial<LexicalTuning>) : null;
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), "memdir-tuning-"));
  const sections: string[] = [];
  try {
    for (const variant of VARIANTS) {
      const dataDir = path.join(workDir, variant);
      await runCommand(process.execPath, [
        path.join(sharedBench, "materialize.mjs"),
        path.join(sharedBench, "locomo", variant),
        dataDir,
      ]);
      const queries = await readEvalQueries(dataDir);
      const convs = [...new Set(queries.map((query) => query.conv ?? ""))].sort();
      const halves = new Map(convs.map((conv) => [conv, halfOf(conv, convs)] as const));
      const categories = [...new Set(queries.map((query) => query.category_name ?? "other"))].sort();
      const cache = new LexicalIndexCache();
      // An experiment never looks at the validation half: that is what keeps it honest.
      const onlyHalf = experiment ? "tuning" : undefined;
      const rows: [string, Scores][] = [
        ["all stages", await lexicalScores(dataDir, queries, halves, cache, {}, onlyHalf)],
      ];
      if (experiment) {
        const scores = await lexicalScores(dataDir, queries, halves, cache, experiment, onlyHalf);
        rows.push([JSON.stringify(experiment), scores]);
      } else if (!defaultsOnly) {
        for (const [stage, off] of STAGES_OFF)
          rows.push([`${stage} off`, await lexicalScores(dataDir, queries, halves, cache, off)]);
        rows.push([
          "every stage off (BM25F)",
          await lexicalScores(dataDir, queries, halves, cache, EVERY_STAGE_OFF),
        ]);
        rows.push(["plain whole-file BM25", await plainBm25Scores(dataDir, queries, halves)]);
      }
      const first = rows[0][1];
      const heading = (half: Half) =>
        `${half} (${convs.filter((conv) => halves.get(conv) === half).join(", ")}; ${first.count(half)} q)`;
      const lines = [
        `**${variant}** — recall@5; tuning half: ${heading("tuning")}; validation half: ${heading("validation")}`,
        "",
        `| configuration | tuning | validation | ${categories.map((c) => `${c} T / V`).join(" | ")} |`,
        `|---|---|---|${categories.map(() => "---").join("|")}|`,
        ...rows.map(
          ([name, scores]) =>
            `| ${name} | ${scores.get("tuning")} | ${scores.get("validation")} | ${categories
              .map((c) => `${scores.get(`tuning/${c}`)} / ${scores.get(`validation/${c}`)}`)
              .join(" | ")} |`,
        ),
      ];
      sections.push(lines.join("\n"));
      console.log(`${lines.join("\n")}\n`);
    }
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
  if (process.argv.includes("--write")) writeIntoDocs(sections.join("\n\n"));
}

/** Replaces the text between the protocol's markers in docs/benchmarks.md. */
function writeIntoDocs(tables: string): void {
  const file = path.join(REPO_ROOT, "docs", "benchmarks.md");
  const text = fs.readFileSync(file, "utf8");
  const start = "<!-- tuning-protocol:start -->";
  const end = "<!-- tuning-protocol:end -->";
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`${file}: the ${start} … ${end} markers are missing`);
  fs.writeFileSync(file, `${text.slice(0, from + start.length)}\n${tables}\n${text.slice(to)}`);
  console.log(`wrote the tables into ${file}`);
}

await main();
