// What importing each package entry loads, seen from a child process that records every module it
// resolves: the root (and every entry but `memdir/mcp`) must load no model SDK and no MCP SDK, so a
// static SDK import that becomes reachable from them fails here. Clients import their SDK on first use.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { nodeArgsFor } from "./helpers/node-entry.ts";
import { publicEntries } from "./helpers/public-api.ts";
import { makeTempDir } from "./helpers/temp.ts";

const recorder = path.join(import.meta.dirname, "fixtures/load-recorder/register.mjs");
const MODEL_SDKS = ["@anthropic-ai/sdk", "openai"];
const MCP_SDK = "@modelcontextprotocol/sdk";

const logs = makeTempDir("memdir-load-");
let runs = 0;

/** The packages under node_modules a fresh process loads when it imports `source`. */
function packagesLoadedBy(source: string): Set<string> {
  const log = path.join(logs, `resolved-${runs++}.txt`);
  fs.writeFileSync(log, "");
  const child = spawnSync(process.execPath, ["--import", recorder, ...nodeArgsFor(source)], {
    env: { ...process.env, MEMDIR_LOAD_LOG: log },
    encoding: "utf8",
  });
  assert.equal(child.status, 0, child.stderr);
  const packages = new Set<string>();
  for (const url of fs.readFileSync(log, "utf8").split("\n")) {
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

  it("no entry loads a model SDK, and only memdir/mcp loads the MCP SDK", () => {
    for (const { subpath, source } of entries) {
      if (subpath === ".") continue; // the test above
      const loaded = packagesLoadedBy(source);
      for (const sdk of MODEL_SDKS) assert.ok(!loaded.has(sdk), `memdir/${subpath.slice(2)} loaded ${sdk}`);
      // The control: it proves the recorder sees packages at all.
      assert.equal(loaded.has(MCP_SDK), subpath === "./mcp", `memdir/${subpath.slice(2)} and ${MCP_SDK}`);
    }
  });
});
