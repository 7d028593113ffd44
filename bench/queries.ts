/**
 * Realistic, deterministic queries for a directory made by gen-scale: each one paraphrases the
 * description of a memory spread evenly through the manifest, the way a user would ask about a
 * rule or a deadline they half remember ("remind me what we decided about the login flow …").
 */
import fs from "node:fs";

const TEMPLATES = [
  (words: string) => `remind me what we decided about ${words}`,
  (words: string) => `how should I handle ${words}?`,
  (words: string) => `fix the tests for ${words}`,
  (words: string) => `what do we know about ${words}`,
];
const CJK_TEMPLATES = [
  (text: string) => `关于${text}有什么要注意的？`,
  (text: string) => `${text} 这个怎么处理`,
];

/** One line of `<dir>.manifest.jsonl` (what gen-scale wrote). */
interface ManifestEntry {
  path: string;
  description: string | null;
}

/**
 * `count` queries drawn from the descriptions in gen-scale's manifest (same dir, same queries).
 *
 * @example
 * const queries = queriesFromManifest("/tmp/x/mem-2000.manifest.jsonl", 40);
 */
export function queriesFromManifest(manifestPath: string, count: number): string[] {
  const entries = fs
    .readFileSync(manifestPath, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as ManifestEntry)
    .filter((entry) => entry.description !== null && entry.description.trim() !== "");
  const stride = Math.max(1, Math.floor(entries.length / count));
  const queries: string[] = [];
  for (let i = 0; i < entries.length && queries.length < count; i += stride) {
    queries.push(paraphrase(entries[i].description as string, queries.length));
  }
  return queries;
}

/** A question built from some words of a description (its first 4–7 words, URLs dropped). */
export function paraphrase(description: string, position: number): string {
  if (!/\s/.test(description.trim()) || /[\u3040-\u9fff]/.test(description)) {
    const text = description
      .replace(/[：:，。]/g, " ")
      .trim()
      .slice(0, 12);
    return CJK_TEMPLATES[position % CJK_TEMPLATES.length](text);
  }
  const words = description
    .replace(/https?:\/\/\S+/g, " ")
    .replace(/[;:,."]/g, " ")
    .split(/\s+/)
    .filter((word) => word !== "");
  // The topic comes first in gen-scale's descriptions ("auth module must hit a real database…").
  const chosen = words.slice(0, 4 + (position % 4)).join(" ");
  return TEMPLATES[position % TEMPLATES.length](chosen);
}
