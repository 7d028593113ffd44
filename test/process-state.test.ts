import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";

const SRC = path.resolve(import.meta.dirname, "../src");
// Entry points may hand the process's environment on; everything else takes an `env` option and
// falls back to `processEnv()` of config.ts, the one file that reads environment variables.
const ALLOWED = ["config.ts", "cli/", "mcp/", "hooks/"];

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

describe("process-wide state", () => {
  it("is not kept in module-level variables outside entry points (a Memdir owns it)", () => {
    const offenders: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const relative = path.relative(SRC, file).split(path.sep).join("/");
      if (ALLOWED.some((allowed) => relative.startsWith(allowed))) continue;
      for (const { line, text } of codeLines(fs.readFileSync(file, "utf8")))
        if (/^(export )?(let|var) /.test(text)) offenders.push(`src/${relative}:${line}: ${text.trim()}`);
    }
    assert.deepEqual(offenders, [], "keep per-directory state in a Memdir (src/memdir/instance.ts)");
  });
});

describe("environment variables", () => {
  it("are read in src/config.ts and entry points only", () => {
    const offenders: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const relative = path.relative(SRC, file).split(path.sep).join("/");
      if (ALLOWED.some((allowed) => relative === allowed || relative.startsWith(allowed))) continue;
      for (const { line, text } of codeLines(fs.readFileSync(file, "utf8")))
        if (/\bprocess\.env\b/.test(text)) offenders.push(`src/${relative}:${line}: ${text.trim()}`);
    }
    assert.deepEqual(offenders, [], "read the environment through config.ts (processEnv, an env option)");
  });
});
