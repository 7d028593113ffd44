// `import … from "memdir"` in a program of its own, in a real child process: the package found
// by name under node_modules and resolved through its "exports", as a user installs it. The root
// loads its implementation on first use (docs/design.md#lazy-entry); nothing a program does with
// it may notice: the names and their kinds, `new Memdir`, `instanceof`, subclasses, counters,
// errors as rejections of the root's `MemdirError`, and every function's result.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { makeTempDir } from "./helpers/temp.ts";

const repo = path.resolve(import.meta.dirname, "..");
const tsxLoader = import.meta.resolve("tsx");

/**
 * A folder with `node_modules/memdir`: the repo's package.json over the test build's JavaScript
 * (what `npm test` compiles, the layout of dist/), or over the sources through tsx when the test
 * runs alone. Node arguments to run `script` (copied into the folder) with it.
 */
function installedPackage(script: string): { cwd: string; args: string[] } {
  const cwd = makeTempDir("memdir-user-");
  const build = process.env.MEMDIR_TEST_BUILD;
  const compiled = build !== undefined && fs.existsSync(path.join(build, "src/index.js"));
  const manifest = JSON.parse(fs.readFileSync(path.join(repo, "package.json"), "utf8"));
  if (!compiled)
    for (const target of Object.values(manifest.exports) as { import: string }[])
      target.import = target.import.replace(/\.js$/, ".ts");
  const installed = path.join(cwd, "node_modules", "memdir");
  fs.mkdirSync(installed, { recursive: true });
  fs.writeFileSync(path.join(installed, "package.json"), JSON.stringify(manifest));
  fs.symlinkSync(compiled ? path.join(build, "src") : path.join(repo, "src"), path.join(installed, "dist"));
  fs.copyFileSync(script, path.join(cwd, path.basename(script)));
  const run = path.join(cwd, path.basename(script));
  return { cwd, args: compiled ? [run] : ["--import", tsxLoader, run] };
}

describe('a program that imports "memdir"', () => {
  it("gets the same names, classes, errors and results as the functions the root loads", () => {
    const { cwd, args } = installedPackage(
      path.join(import.meta.dirname, "fixtures/package-user/use-memdir.mjs"),
    );
    const home = makeTempDir("memdir-user-home-");
    const child = spawnSync(process.execPath, [...args, home], {
      cwd,
      env: { PATH: process.env.PATH, HOME: home },
      encoding: "utf8",
      timeout: 120_000,
    });
    assert.equal(child.status, 0, child.stderr);
    const seen = JSON.parse(child.stdout.trim().split("\n").at(-1)!);

    const functions = [
      "createAgentSession",
      "createHybridSelector",
      "createLexicalSelector",
      "createModelSelector",
      "isMemdirError",
      "Memdir",
      "MemdirError",
      "openMemdir",
      "readMemoryCapped",
      "recall",
      "removeMemory",
      "resolveMemoryLocation",
      "saveMemory",
      "scanHeaders",
    ];
    assert.deepEqual(seen.names, [...functions, "MEMORY_TYPES"].sort());
    assert.deepEqual(seen.kinds, {
      ...Object.fromEntries(functions.map((f) => [f, "function"])),
      MEMORY_TYPES: "object",
    });
    assert.deepEqual(seen.memoryTypes, ["user", "feedback", "project", "reference"]);

    assert.equal(
      seen.memoryDir,
      path.join(".mem", "projects", path.join(home, "shop").replace(/[^A-Za-z0-9]/g, "-"), "memory"),
    );
    assert.equal(seen.saved, "feedback-login-integration-tests-hit-real-database.md");
    assert.equal(seen.read, true);
    assert.deepEqual(seen.scanned, [seen.saved, "user-prefers-terse-answers.md"].sort());

    assert.deepEqual(seen.instance, { memoryDir: true, clock: 7, cacheMode: "persisted" });
    const zero = { hits: 0, misses: 0 };
    assert.deepEqual(seen.statsBefore, {
      cache: { headers: zero, index: zero },
      watch: { watchedRescans: 0, watchSetsBuilt: 0 },
    });
    assert.equal(seen.scannedByInstance, 2);
    assert.deepEqual(seen.recalled, [seen.saved]);
    // recall scanned and indexed through the program's own instance: its counters moved.
    assert.deepEqual(seen.statsAfter.cache.headers, { hits: 2, misses: 2 });
    assert.equal(
      seen.statsAfter.cache.index.misses,
      2,
      "the lexical index was built in the program's Memdir",
    );
    assert.deepEqual(seen.subclass, { memdir: true, label: "kept", scanned: 2 });
    assert.equal(seen.opened, true);

    assert.equal(seen.removed, true);
    assert.deepEqual(seen.missing, { isClass: true, is: true, name: "MemdirError", code: "not-found" });
    assert.equal(seen.badTypeIsPromise, true, "bad input rejects; the call itself does not throw");
    assert.equal(seen.badType.isClass, true);
    assert.equal(typeof seen.badType.code, "string");
    assert.equal(seen.ownError, "memdir: disk trouble");

    assert.deepEqual(seen.selectorNames, ["model", "hybrid", "lexical"]);
    assert.equal(seen.requestsBeforeSelect, 0, "making selectors asks the model nothing");
    assert.deepEqual(seen.hybridPicks, ["b.md"]);
    assert.equal(seen.sessionText, "hello from the fake model");
    assert.deepEqual(seen.noModel, { isClass: true, code: "no-model" });
  });
});
