import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";

const SRC = path.resolve(import.meta.dirname, "../src");

/**
 * The entry layer: the CLI, the subpath entries, the root and config.ts. It decides the process's
 * directory and environment and hands them down; everything below takes them as arguments, so the
 * memory helper can run many clients' requests in one process (docs/design.md#the-memory-helper).
 */
const ENTRY_LAYER = ["cli/", "entry/", "config.ts", "index.ts"];

/** Below the entry layer, the process's environment is read here only; each with its reason. */
const ENVIRONMENT_READS: Record<string, string> = {
  "memdir/location/git.ts":
    "git runs as a child of this process: it inherits the process's environment (PATH finds git, fetch and push use the user's HOME, SSH agent and credential helpers), read through config.ts's processEnv()",
};

/** Modules that may keep a mutable container at module level; each with its reason. */
const MODULE_STATE: Record<string, string> = {
  "process-memo.ts": "the process-wide memos, each a value the same for every caller (see its TSDoc)",
};

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith(".ts") ? [full] : [];
  });
}

/** The lines of `text` that are code, not comment (TSDoc and `//` lines are left out). */
function codeLines(text: string): { line: number; text: string }[] {
  return text
    .split("\n")
    .map((line, index) => ({ line: index + 1, text: line.replace(/\/\/.*$/, "") }))
    .filter(({ text: line }) => !/^\s*(\*|\/\*)/.test(line));
}

/** Every source file as `{relative, lines}`, `relative` to src/ with `/`. */
function sources(): { relative: string; lines: { line: number; text: string }[] }[] {
  return sourceFiles(SRC).map((file) => ({
    relative: path.relative(SRC, file).split(path.sep).join("/"),
    lines: codeLines(fs.readFileSync(file, "utf8")),
  }));
}

const inEntryLayer = (relative: string) => ENTRY_LAYER.some((entry) => relative.startsWith(entry));

/** A module-level `const NAME = new Map(…)` / `[…]` / `{…}`: a container that could hold state. */
const CONTAINER =
  /^(?:export )?const ([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*(?:new (?:Map|Set|WeakMap|WeakSet|Array)\b|\[|\{)/;

/** Whether `name` is changed in `lines`: a mutating method, an element or property assigned. */
function mutated(name: string, lines: readonly string[]): boolean {
  const method = "(?:set|add|delete|clear|push|pop|shift|unshift|splice|sort|reverse|fill|copyWithin)\\(";
  const assigned = "\\s*(?:[-+*/%|&^]|\\?\\?|\\|\\||&&)?=(?!=)";
  const change = new RegExp(
    `\\b${name}(?:\\.${method}|\\[[^\\]]*\\]${assigned}|\\.[A-Za-z_$][\\w$]*${assigned}|(?:\\.[A-Za-z_$][\\w$]*|\\[[^\\]]*\\])\\.${method})`,
  );
  return lines.some((line) => change.test(line));
}

describe("process-wide state", () => {
  it("is not kept in module-level variables outside the entry layer (a Memdir owns it)", () => {
    const offenders: string[] = [];
    for (const { relative, lines } of sources()) {
      if (inEntryLayer(relative)) continue;
      for (const { line, text } of lines)
        if (/^(export )?(let|var) /.test(text)) offenders.push(`src/${relative}:${line}: ${text.trim()}`);
    }
    assert.deepEqual(offenders, [], "keep per-directory state in a Memdir (src/memdir/instance.ts)");
  });

  it("is not kept in module-level containers changed after load, but in src/process-memo.ts", () => {
    const offenders: string[] = [];
    for (const { relative, lines } of sources()) {
      if (Object.hasOwn(MODULE_STATE, relative)) continue;
      const texts = lines.map(({ text }) => text);
      for (const [index, { line, text }] of lines.entries()) {
        const name = CONTAINER.exec(text)?.[1];
        if (name !== undefined && mutated(name, texts.slice(index + 1)))
          offenders.push(`src/${relative}:${line}: ${text.trim()}`);
      }
    }
    assert.deepEqual(
      offenders,
      [],
      "a per-directory cache belongs to a Memdir; a value the same for the whole process is a processMemo",
    );
  });

  it("detects the holders it forbids", () => {
    const cases: [string, boolean][] = [
      ["memo.value = 1;", true],
      ["memo.value ??= load();", true],
      ["memo[0] ??= load();", true],
      ["memo.set(key, value);", true],
      ["memo.inner.push(value);", true],
      ["if (memo.value === 1) return;", false],
      ["return memo.get(key);", false],
    ];
    for (const [line, expected] of cases) assert.equal(mutated("memo", [line]), expected, line);
    assert.equal(CONTAINER.exec("const memo: { value?: number } = {};")?.[1], "memo");
    assert.equal(CONTAINER.exec("export const seen = new Map<string, number>();")?.[1], "seen");
  });
});

describe("the process's directory and environment", () => {
  it("are read in the entry layer only (src/cli, src/entry, src/config.ts, src/index.ts)", () => {
    const offenders: string[] = [];
    const read = /\bprocess\.env\b|\bprocess\.cwd\(|\bprocess\.chdir\(|\bhomedir\(|\bprocessEnv\(/;
    for (const { relative, lines } of sources()) {
      if (inEntryLayer(relative) || Object.hasOwn(ENVIRONMENT_READS, relative)) continue;
      for (const { line, text } of lines)
        if (read.test(text)) offenders.push(`src/${relative}:${line}: ${text.trim()}`);
    }
    assert.deepEqual(offenders, [], "take cwd and env as arguments; the entry layer hands them in");
  });
});
