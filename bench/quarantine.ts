/**
 * The quarantine's precision and recall (docs/benchmarks.md#quarantine): every text of the tuning
 * half (`bench/quarantine/tune.jsonl`) and the held-out half (`held-out.jsonl`, written before the
 * rules and never tuned on) goes through the single writer as a memory body, once as background
 * extraction writes it (`writeMemoryText` with origin `extraction`) and once as sync in `auto`
 * mode writes a pulled file (`verbatim`, origin `sync`); the same for `fresh.jsonl`, a third set
 * written after the rules, and for the blind pair (`blind-tune.jsonl`, `blind-held-out.jsonl`).
 * Held = the writer refused with
 * `quarantined`. A few seconds; run alone with `node --import tsx bench/quarantine.ts [--json]`,
 * and as one part of `npm run bench`.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { isMemdirError } from "../src/errors.ts";
import type { MemorySource } from "../src/memdir/trust/provenance.ts";
import { findInstructions } from "../src/memdir/trust/quarantine.ts";
import { writeMemoryText } from "../src/memdir/write/write.ts";

interface Sample {
  id: string;
  label: "hostile" | "benign";
  lang: string;
  intent: string;
  obfuscation: string;
  text: string;
}

/** One half on one path: the confusion counts, the two figures, and what went wrong where. */
export interface QuarantinePathFigures {
  hostile: number;
  benign: number;
  held: { hostile: number; benign: number };
  /** Refused for another reason (a secret): neither held nor written. */
  refused: number;
  precision: number;
  recall: number;
  /** Ids of hostile texts written and of benign texts held. */
  missed: string[];
  falseAlarms: string[];
}

export type QuarantineFigures = Record<
  "tune" | "heldOut" | "fresh" | "blindTune" | "blindHeldOut" | "indirectionTune" | "indirectionHeldOut",
  Record<"extraction" | "sync", QuarantinePathFigures>
>;

// fresh.jsonl was written after the rules were frozen, to check the held-out figure: the held-out
// half was written before the rules, but by their author (docs/benchmarks.md#quarantine).
// blind-tune.jsonl and blind-held-out.jsonl: a second pair, written together on 2026-12-07 without
// the rules' code open and each run once against the rules as they were; later changes were tuned
// on blind-tune alone (docs/benchmarks.md#quarantine).
const HALVES = {
  tune: "tune.jsonl",
  heldOut: "held-out.jsonl",
  fresh: "fresh.jsonl",
  blindTune: "blind-tune.jsonl",
  blindHeldOut: "blind-held-out.jsonl",
  indirectionTune: "indirection-tune.jsonl",
  indirectionHeldOut: "indirection-held-out.jsonl",
} as const;
const PATHS: Record<"extraction" | "sync", { source: MemorySource; verbatim: boolean }> = {
  extraction: { source: "extraction", verbatim: false },
  sync: { source: "sync", verbatim: true },
};

function readSamples(file: string): Sample[] {
  const text = fs.readFileSync(fileURLToPath(new URL(`./quarantine/${file}`, import.meta.url)), "utf8");
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Sample);
}

async function measurePath(
  samples: readonly Sample[],
  memoryDir: string,
  how: { source: MemorySource; verbatim: boolean },
): Promise<QuarantinePathFigures> {
  const figures: QuarantinePathFigures = {
    hostile: 0,
    benign: 0,
    held: { hostile: 0, benign: 0 },
    refused: 0,
    precision: 0,
    recall: 0,
    missed: [],
    falseAlarms: [],
  };
  for (const sample of samples) {
    figures[sample.label]++;
    const file = `project-${sample.id}.md`;
    const text = `---\ndescription: ${sample.id}\ntype: project\n---\n${sample.text}\n`;
    let held = false;
    try {
      await writeMemoryText(memoryDir, file, text, {
        verbatim: how.verbatim,
        origin: { source: how.source },
      });
    } catch (error) {
      if (isMemdirError(error, "quarantined")) held = true;
      else {
        figures.refused++;
        continue;
      }
    }
    if (held) figures.held[sample.label]++;
    if (sample.label === "hostile" && !held) figures.missed.push(sample.id);
    if (sample.label === "benign" && held) figures.falseAlarms.push(sample.id);
  }
  const heldTotal = figures.held.hostile + figures.held.benign;
  figures.precision = heldTotal === 0 ? 0 : figures.held.hostile / heldTotal;
  figures.recall = figures.hostile === 0 ? 0 : figures.held.hostile / figures.hostile;
  return figures;
}

/** Both halves through both paths, each in its own temp memory dir (removed at the end). */
export async function measureQuarantine(): Promise<QuarantineFigures> {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), "memdir-bench-quarantine-"));
  try {
    const figures = {} as QuarantineFigures;
    for (const [half, file] of Object.entries(HALVES) as [keyof typeof HALVES, string][]) {
      const samples = readSamples(file);
      figures[half] = {} as QuarantineFigures["tune"];
      for (const [name, how] of Object.entries(PATHS) as [keyof typeof PATHS, (typeof PATHS)["sync"]][]) {
        const memoryDir = path.join(workDir, `${half}-${name}`);
        fs.mkdirSync(memoryDir);
        figures[half][name] = await measurePath(samples, memoryDir, how);
      }
    }
    return figures;
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

/** What the surfacing check finds in memories nobody wrote to look hostile: false alarms. */
export interface BenignCorpusFigures {
  files: number;
  /** Files with a finding, relative to the corpus's folder (each would be named, not shown, at recall). */
  flagged: string[];
}

/**
 * The surfacing check (`findInstructions`, what src/memdir/trust/withhold.ts runs on every
 * recalled memory) over memory folders written for other purposes: the repository's coding-agent
 * recall set, and, when `../shared` is there, the LoCoMo conversations in both variants and a
 * `gen-scale.mjs` directory. None was read while the rules were written, so every finding is a
 * false alarm a user would meet as a withheld memory (docs/benchmarks.md#quarantine).
 */
export async function measureBenignCorpora(
  sharedDir: string | null,
  generate: ((dir: string) => Promise<void>) | null,
): Promise<Record<string, BenignCorpusFigures>> {
  const corpora: Record<string, string> = {
    "coding-agent recall set": fileURLToPath(new URL("./coding-recall", import.meta.url)),
  };
  const locomo = sharedDir === null ? null : path.join(sharedDir, "bench", "locomo");
  if (locomo !== null && fs.existsSync(locomo)) {
    corpora["LoCoMo sessions"] = path.join(locomo, "sessions");
    corpora["LoCoMo observations"] = path.join(locomo, "observations");
  }
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), "memdir-bench-benign-"));
  try {
    if (generate !== null) {
      const generated = path.join(workDir, "gen-scale");
      await generate(generated);
      corpora["gen-scale, 2,000 memories"] = generated;
    }
    const figures: Record<string, BenignCorpusFigures> = {};
    for (const [name, root] of Object.entries(corpora)) {
      const corpus: BenignCorpusFigures = { files: 0, flagged: [] };
      for (const file of memoryFiles(root)) {
        corpus.files++;
        if (findInstructions(fs.readFileSync(file, "utf8")).length > 0)
          corpus.flagged.push(path.relative(root, file));
      }
      figures[name] = corpus;
    }
    return figures;
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

/** The memory files under `root` (`*.md` but the index), sorted. */
function memoryFiles(root: string): string[] {
  return fs
    .readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".md") && entry.name !== "MEMORY.md")
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}

/** One line per benign corpus: files read, false alarms, and which. */
export function formatBenignCorpora(figures: Record<string, BenignCorpusFigures>): string[] {
  const lines = ["quarantine false alarms on memories written for other purposes (the surfacing check)"];
  for (const [name, f] of Object.entries(figures)) {
    const which = f.flagged.length > 0 ? `: ${f.flagged.slice(0, 5).join(" ")}` : "";
    lines.push(`  ${name.padEnd(28)} ${f.flagged.length} of ${f.files} files flagged${which}`);
  }
  return lines;
}

/** The table lines: half, path, held of hostile, held of benign, precision, recall. */
export function formatQuarantine(figures: QuarantineFigures): string[] {
  const lines = [
    "quarantine (held by the writer; tune = tuning half, held-out = never tuned on, fresh = written after the rules; blind-tune / blind-held-out = a second pair, the rules widened on blind-tune alone)",
  ];
  for (const [half, label] of [
    ["tune", "tune"],
    ["heldOut", "held-out"],
    ["fresh", "fresh"],
    ["blindTune", "blind-tune"],
    ["blindHeldOut", "blind-held-out"],
    ["indirectionTune", "indirection-tune"],
    ["indirectionHeldOut", "indirection-held-out"],
  ] as const) {
    for (const name of ["extraction", "sync"] as const) {
      const f = figures[half][name];
      const refused = f.refused > 0 ? `, ${f.refused} refused as secrets` : "";
      lines.push(
        `  ${label.padEnd(14)} ${name.padEnd(10)} hostile ${f.held.hostile}/${f.hostile}, benign ${f.held.benign}/${f.benign}` +
          ` — precision ${f.precision.toFixed(3)}, recall ${f.recall.toFixed(3)}${refused}` +
          (f.missed.length > 0 ? `; missed ${f.missed.join(" ")}` : "") +
          (f.falseAlarms.length > 0 ? `; false alarms ${f.falseAlarms.join(" ")}` : ""),
      );
    }
  }
  return lines;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const figures = await measureQuarantine();
  const sharedDir = fileURLToPath(new URL("../../shared", import.meta.url));
  const genScale = path.join(sharedDir, "bench", "gen-scale.mjs");
  const benign = await measureBenignCorpora(
    fs.existsSync(sharedDir) ? sharedDir : null,
    fs.existsSync(genScale)
      ? async (dir) => {
          execFileSync(process.execPath, [genScale, "--n", "2000", "--out", dir], { stdio: "ignore" });
        }
      : null,
  );
  if (process.argv.includes("--json")) process.stdout.write(`${JSON.stringify({ ...figures, benign })}\n`);
  else
    process.stdout.write(
      `${[...formatQuarantine(figures), "", ...formatBenignCorpora(benign)].join("\n")}\n`,
    );
}
