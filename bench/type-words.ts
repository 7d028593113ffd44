/**
 * App words that are also memory types (docs/benchmarks.md#type-words): prompts that say
 * "user", "users", "feedback", "project" or "reference" about the app, over a web project's
 * memory dir with derived `<type>-<slug>.md` names (`test/fixtures/recall-type-words`, README
 * there). Per half: the picks outside each prompt's gold (false picks), the picks whose only
 * evidence is a type word, and gold recall@5; the "about the user" prompts are the ones a type
 * word was thought to serve. Cheap (24 prompts over 31 memories):
 *
 *   node --import tsx bench/type-words.ts [--verbose]
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { HeaderCache } from "../src/memdir/scan/header-cache.ts";
import { scanHeaders } from "../src/memdir/scan/scan.ts";
import { LexicalIndexCache } from "../src/recall/lexical/index/lexical-index.ts";
import { createLexicalSelector } from "../src/recall/select-lexical.ts";
import { MEMORY_TYPES } from "../src/types.ts";
import { REPO_ROOT } from "./stats.ts";

const FIXTURE = path.join(REPO_ROOT, "test", "fixtures", "recall-type-words");

interface TypeWordQuery {
  half: string;
  question: string;
  gold: string[];
}

export interface TypeWordScores {
  prompts: number;
  falsePicks: number;
  typeOnlyPicks: number;
  goldRecallAt5: number;
}

/**
 * True when every word `--explain` says matched exactly is a memory type (`matched name: user;
 * type: user; related: update≈date`): related words, typos (`preferences~`) and the
 * saved-together and date notes are left out, they only come on top of a match.
 */
export function typeWordOnly(reason: string): boolean {
  const matched = /^matched (.*?)(?:; (?:related|saved together|answer after|date):|$)/.exec(reason)?.[1];
  if (matched === undefined) return false;
  const words = matched
    .split("; ")
    .flatMap((part) => part.replace(/^[a-z]+: /, "").split(", "))
    .map((word) => word.trim().replace(/~$/, ""));
  const types = MEMORY_TYPES.flatMap((type) => [type, `${type}s`]);
  return words.length > 0 && words.every((word) => types.includes(word));
}

export async function measureTypeWords(verbose = false): Promise<Record<string, TypeWordScores>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "memdir-type-words-"));
  try {
    const memoryDir = path.join(dir, "web");
    fs.cpSync(path.join(FIXTURE, "web"), memoryDir, { recursive: true });
    const queries = fs
      .readFileSync(path.join(FIXTURE, "queries.jsonl"), "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as TypeWordQuery);
    const headers = await scanHeaders(memoryDir, { cache: new HeaderCache() });
    const selector = createLexicalSelector({ cache: new LexicalIndexCache() });
    const result: Record<string, TypeWordScores & { goldSum: number }> = {};
    for (const query of queries) {
      const { picks } = await selector.select({ query: query.question, headers, k: 5, memoryDir });
      const scores = result[query.half] ?? {
        prompts: 0,
        falsePicks: 0,
        typeOnlyPicks: 0,
        goldRecallAt5: 0,
        goldSum: 0,
      };
      result[query.half] = scores;
      scores.prompts++;
      const wrong = picks.filter((pick) => !query.gold.includes(pick.file));
      scores.falsePicks += wrong.length;
      scores.typeOnlyPicks += picks.filter((pick) => typeWordOnly(pick.reason)).length;
      if (query.gold.length > 0)
        scores.goldSum +=
          query.gold.filter((file) => picks.some((pick) => pick.file === file)).length / query.gold.length;
      else scores.goldSum += 1;
      if (verbose) {
        console.log(`[${query.half}] ${query.question}`);
        for (const pick of picks)
          console.log(`  ${query.gold.includes(pick.file) ? "gold " : "FALSE"} ${pick.file}  ${pick.reason}`);
      }
    }
    return Object.fromEntries(
      Object.entries(result).map(([half, { goldSum, ...scores }]) => [
        half,
        { ...scores, goldRecallAt5: goldSum / scores.prompts },
      ]),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const scores = await measureTypeWords(process.argv.includes("--verbose"));
  console.log("| half | prompts | false picks | type-word-only picks | gold recall@5 |");
  console.log("|---|---|---|---|---|");
  for (const [half, s] of Object.entries(scores))
    console.log(
      `| ${half} | ${s.prompts} | ${s.falsePicks} | ${s.typeOnlyPicks} | ${s.goldRecallAt5.toFixed(2)} |`,
    );
}
