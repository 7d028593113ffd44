// What importing each package entry loads, seen from a child process that records every module it
// resolves: the root (and every entry but `memdir/mcp`) must load no model SDK and no MCP SDK, so a
// static SDK import that becomes reachable from them fails here. Clients import their SDK on first use.
// The root loads even less: no YAML parser, date parser, zod, lexical engine or writer (docs/design.md#lazy-entry).
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { addAnchoredMemory } from "./helpers/anchored-memory.ts";
import { runProcess } from "./helpers/cli.ts";
import { cliNodeArgs, nodeArgsFor } from "./helpers/node-entry.ts";
import { publicEntries } from "./helpers/public-api.ts";
import { makeTempDir } from "./helpers/temp.ts";
import { waitFor } from "./helpers/wait.ts";

const recorder = path.join(import.meta.dirname, "fixtures/load-recorder/register.mjs");
const requireRecorder = path.join(import.meta.dirname, "fixtures/load-recorder/require-log.cjs");
const MODEL_SDKS = ["@anthropic-ai/sdk", "openai"];
const MCP_SDK = "@modelcontextprotocol/sdk";

const repo = path.resolve(import.meta.dirname, "..");
const logs = makeTempDir("memdir-load-");
let runs = 0;

/** Every module URL (ES modules and CommonJS) a fresh process loads when it imports `source`. */
function modulesLoadedBy(source: string): string[] {
  const log = path.join(logs, `resolved-${runs++}.txt`);
  fs.writeFileSync(log, "");
  const args = ["--require", requireRecorder, "--import", recorder, ...nodeArgsFor(source)];
  const child = spawnSync(process.execPath, args, {
    env: { ...process.env, MEMDIR_LOAD_LOG: log },
    encoding: "utf8",
  });
  assert.equal(child.status, 0, child.stderr);
  return fs.readFileSync(log, "utf8").split("\n");
}

/** The packages under node_modules a fresh process loads when it imports `source`. */
function packagesLoadedBy(source: string): Set<string> {
  const packages = new Set<string>();
  for (const url of modulesLoadedBy(source)) {
    const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    if (match) packages.add(match[1]);
  }
  return packages;
}

const entries = publicEntries();
const entry = (subpath: string) => entries.find((candidate) => candidate.subpath === subpath)!.source;

describe("what importing an entry loads", () => {
  it("the root loads no model SDK and no MCP SDK", () => {
    const loaded = packagesLoadedBy(entry("."));
    for (const sdk of [...MODEL_SDKS, MCP_SDK]) assert.ok(!loaded.has(sdk), `import "memdir" loaded ${sdk}`);
  });

  it("the root loads no YAML parser, date parser, zod or commander, and none of the lexical engine or the writer", () => {
    const loaded = modulesLoadedBy(entry("."));
    const packages = packagesLoadedBy(entry("."));
    for (const name of ["yaml", "chrono-node", "zod", "commander"])
      assert.ok(!packages.has(name), `import "memdir" loaded ${name}`);
    // Our own modules, as sources (tsx) or as the build: what loads on first use only.
    const own = loaded.filter((url) => !url.includes("/node_modules/"));
    for (const module of [
      "recall/lexical/",
      "recall/recall.",
      "recall/select-lexical.",
      "memdir/write/",
      "memdir/location/",
    ])
      assert.ok(!own.some((url) => url.includes(`/${module}`)), `import "memdir" loaded ${module}`);
    // The control: the recorder sees our modules and CommonJS packages at all.
    assert.ok(
      own.some((url) => url.includes("/memdir/instance.")),
      "the Memdir class loads with the root",
    );
    const cli = modulesLoadedBy(path.join(repo, "src/cli/main.ts"));
    assert.ok(
      cli.some((url) => url.endsWith("/commander/lib/command.js")),
      "commander's CommonJS files are seen",
    );
  });

  it("the root loads five of our modules: itself and what it must share with the library", () => {
    // Everything else it exports loads on first use (docs/design.md#lazy-entry); a static import
    // added to one of these files shows up here.
    const own = modulesLoadedBy(entry("."))
      .filter((url) => url.startsWith("file:") && url.includes("/src/") && !url.includes("/node_modules/"))
      .map((url) => /\/src\/(.+)\.[jt]s$/.exec(new URL(url).pathname)?.[1] ?? url);
    assert.deepEqual([...new Set(own)].sort(), ["config", "errors", "index", "memdir/instance", "types"]);
  });

  it("the root loads no Node module that importing an empty file does not load", () => {
    // Node's own modules a fresh process loads for `await import(url)`, from process.moduleLoadList:
    // `node:fs`'s ES module facade alone loads the stream modules, `node:os`, `node:crypto` and
    // `node:v8` load theirs; the root takes none of them at import.
    const probe = path.join(logs, "probe.mjs");
    fs.writeFileSync(
      probe,
      "const before = new Set(process.moduleLoadList);\nawait import(process.argv[2]);\n" +
        "console.log(JSON.stringify(process.moduleLoadList.filter((m) => !before.has(m))));\n",
    );
    const empty = path.join(logs, "empty.mjs");
    fs.writeFileSync(empty, "export {};\n");
    const loadedBy = (file: string): string[] => {
      const args = nodeArgsFor(entry("."));
      const child = spawnSync(process.execPath, [...args.slice(0, -1), probe, pathToFileURL(file).href], {
        encoding: "utf8",
      });
      assert.equal(child.status, 0, child.stderr);
      return JSON.parse(child.stdout);
    };
    const compiledRoot = nodeArgsFor(entry(".")).at(-1)!;
    const byEmpty = new Set(loadedBy(empty));
    const byRoot = loadedBy(compiledRoot);
    assert.deepEqual(
      byRoot.filter((name) => !byEmpty.has(name)),
      [],
      "loaded by the root only",
    );
    const withV8 = path.join(logs, "with-v8.mjs");
    fs.writeFileSync(withV8, 'import "node:v8";\nexport {};\n');
    assert.ok(loadedBy(withV8).includes("NativeModule v8"), "the control: the probe sees node:v8 load");
  });

  it("no entry loads a model SDK, and only memdir/mcp loads the MCP SDK", () => {
    for (const { subpath, source } of entries) {
      if (subpath === ".") continue; // the test above
      const loaded = packagesLoadedBy(source);
      for (const sdk of MODEL_SDKS) assert.ok(!loaded.has(sdk), `memdir/${subpath.slice(2)} loaded ${sdk}`);
      // The control: it proves the recorder sees packages at all.
      assert.equal(loaded.has(MCP_SDK), subpath === "./mcp", `memdir/${subpath.slice(2)} and ${MCP_SDK}`);
    }
  });

  it("the prompt hook loads no YAML parser and no zod, also for a memory it surfaces whose frontmatter has anchors", async () => {
    // A memory the writer stamped with anchors (a list of maps in its frontmatter) on a real
    // repository; then its file vanishes, so surfacing it must read the anchors to say so.
    const { home, project, file } = await addAnchoredMemory();
    assert.match(fs.readFileSync(file, "utf8"), /^anchors:\n {2}- path: src\/auth\/login\.ts$/m);
    fs.rmSync(path.join(project, "src/auth/login.ts"));
    const log = path.join(logs, `resolved-${runs++}.txt`);
    fs.writeFileSync(log, "");
    const hook = await runProcess(
      process.execPath,
      ["--require", requireRecorder, "--import", recorder, ...cliNodeArgs(), "hook", "user-prompt-submit"],
      {
        cwd: project,
        env: { PATH: process.env.PATH ?? "", HOME: home, MEMDIR_HELPER: "0", MEMDIR_LOAD_LOG: log },
        input: JSON.stringify({
          hook_event_name: "UserPromptSubmit",
          cwd: project,
          prompt: "where does token refresh live?",
        }),
      },
    );
    assert.equal(hook.code, 0, hook.stderr);
    assert.match(hook.stdout, /src\/auth\/login\.ts no longer exists/, "the anchors were read");
    const loaded = fs.readFileSync(log, "utf8").split("\n");
    // Its package.json is read for the caches' fingerprint (the parser's version); the parser is not loaded.
    assert.ok(!loaded.some((url) => url.includes("/node_modules/yaml/dist/")), "the prompt hook loaded yaml");
    // zod's ~95 modules cost a hook run without the helper ~65 ms (docs/design.md#the-prompt-hook-process):
    // only a model side query needs it, and that imports it on first use.
    assert.ok(!loaded.some((url) => url.includes("/node_modules/zod/")), "the prompt hook loaded zod");
    assert.ok(
      loaded.some((url) => url.includes("/commander/")),
      "the control: the recorder sees the hook's packages",
    );
  });
});

describe("memdir mcp's handshake", () => {
  it("answers tools/list before loading the recall engine, which loads on the first memory_recall", async () => {
    // Hosts give an MCP server 1-3 s to start (Codex about 1 s): what the handshake loads is what they wait for.
    const home = makeTempDir("memdir-mcp-load-");
    const memoryDir = path.join(home, "memory");
    fs.mkdirSync(memoryDir);
    fs.writeFileSync(
      path.join(memoryDir, "user-editor.md"),
      "---\nname: editor\ndescription: the user's editor\ntype: user\n---\nThe user edits in helix.\n",
    );
    const log = path.join(logs, `resolved-${runs++}.txt`);
    fs.writeFileSync(log, "");
    const child = spawn(
      process.execPath,
      ["--require", requireRecorder, "--import", recorder, ...cliNodeArgs(), "mcp", "--dir", memoryDir],
      {
        env: { PATH: process.env.PATH ?? "", HOME: home, MEMDIR_LOAD_LOG: log },
        stdio: ["pipe", "pipe", "ignore"],
      },
    );
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    const answered = (id: number) =>
      waitFor(() => stdout.includes(`"id":${id}`), { what: `the answer to request ${id}` });
    const recallModules = () =>
      fs
        .readFileSync(log, "utf8")
        .split("\n")
        .filter((url) => /\/recall\/(recall|select-lexical|lexical\/index\/lexical-index)\.[jt]s$/.test(url));
    try {
      send({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } },
      });
      await answered(1);
      send({ jsonrpc: "2.0", method: "notifications/initialized" });
      send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
      await answered(2);
      assert.match(stdout, /"name":"memory_recall"/);
      assert.deepEqual(recallModules(), [], "tools/list waited for the recall engine");
      send({
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "memory_recall", arguments: { query: "which editor does the user use?" } },
      });
      await answered(3);
      assert.match(stdout, /helix/);
      assert.equal(recallModules().length, 3, "the control: the recorder sees recall load on its first call");
    } finally {
      child.stdin.end();
      child.kill();
    }
  });
});
