/**
 * Writes `data/word-vectors.terms`, the search term of each row of `data/word-vectors.bin` as
 * memdir's tokenizer makes it and a hash table from term to row (src/recall/lexical/text/word-terms.ts),
 * so a process that reads the vectors neither stems every word nor builds a map of them first
 * (docs/design.md#the-prompt-hook-process: that was most of what a prompt hook spent on the vectors). Run it after
 * changing the tokenizer or the vectors (scripts/build-word-vectors.ts runs it):
 *
 *   node --import tsx scripts/build-word-terms.ts
 *
 * A table that no longer fits (other words, other tokenizer code) is ignored at run time, and
 * test/recall/lexical/related-words.test.ts fails until it is rebuilt.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { encodeTermTable } from "../src/recall/lexical/text/word-terms.ts";
import { readWordVectors, termTableFileOf } from "../src/recall/lexical/text/word-vectors.ts";

const file = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "data", "word-vectors.bin");
const vectors = readWordVectors(file);
const words = Array.from({ length: vectors.rowCount }, (_, row) => vectors.word(row));
const target = termTableFileOf(file);
fs.writeFileSync(target, encodeTermTable(words));
console.log(`${target}: terms of ${words.length} rows, ${fs.statSync(target).size} bytes`);
