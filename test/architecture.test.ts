// Keeps the folder layering of src/ honest (AGENTS.md, Layers): reads every import of every file
// (static, `export … from`, dynamic `import(…)` and type-position `import(…)`, through the
// TypeScript scanner, so imports inside comments and strings do not count) and fails on an arrow
// that points up or sideways in the layer table, on a cycle between folders, and on a cycle
// between files.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import ts from "typescript";

const SRC = path.resolve(import.meta.dirname, "../src");

/**
 * The layers of src/, top to bottom. A file may import from its own folder and from any folder
 * in a lower layer; never from a higher layer, and never from another folder of its own layer
 * (siblings stay independent). A top-level file is a "folder" of its own, named with `.ts`.
 * A new folder must be placed here before its first import is accepted.
 */
const LAYERS: readonly (readonly string[])[] = [
  // Public entry points: the root export and the subpath exports (`src/entry/`) re-export what
  // is below; the fake model server (`memdir/testing`) is a test double, so nothing in src/ may
  // depend on it.
  ["index.ts", "entry", "testing"],
  // The `memdir` command: it starts the MCP server (`memdir mcp`) and runs the hooks (`memdir hook`).
  ["cli"],
  // The other entry points: the MCP server, the hook handlers, Anthropic's memory tool on a
  // memory dir (`memdir/anthropic`), the local web view (`memdir ui`), and the memory helper that
  // answers hooks warm over a unix socket (`memdir helper`; it runs the CLI's `main`, handed in).
  ["mcp", "hooks", "memory-tool", "ui", "helper"],
  // One agent session: the agent loop with extraction and consolidation wired in as hooks.
  ["session"],
  // `memdir import` from other memory tools and `memdir export`: it writes through the single
  // writer and uses the consolidation's duplicate test and history, so it sits above them.
  ["import"],
  // Background extraction and consolidation: both run forked agents, neither knows the other.
  // Sync (memory over git) sits beside them: it knows files and git, not agents.
  ["extract", "dream", "sync"],
  // The agent engine every agent runs on (the main one and the forks): the loop, forked agents,
  // hooks, permissions, the file tools and the memory tools, transcripts.
  ["agent"],
  // What the loop calls: recall (prefetch, selectors, surfacing) and the instruction files.
  ["recall", "instructions"],
  // Prompt text (pure functions), the neutral model client with its providers, and the agents
  // memdir runs in (`hosts/`: each one's hooks, answers, transcripts, setup files and native
  // memory behind one `Host` interface, docs/design.md#hosts), which hooks, agent, import and cli read.
  ["prompts", "model", "hosts"],
  // The on-disk format: paths, frontmatter, scan, read, MEMORY.md, the single writer.
  ["memdir"],
  // The base every layer uses.
  ["errors.ts", "config.ts", "event-loop.ts"],
  // The shared types and their pure helpers (settings name memory types and modes too), and the
  // process-wide memos (process-memo.ts: imports nothing).
  ["types.ts", "process-memo.ts"],
];

/**
 * The second level: inside a folder split into sub-folders, the same rule between its parts, top
 * to bottom. A part is a sub-folder, or the folder's own files (named as the folder itself: for
 * `memdir`, `instance.ts`, the face every entry point opens). Each folder with sub-folders is
 * listed here, so a new sub-folder gets its place before its first import is accepted.
 */
const SUBLAYERS: Readonly<Record<string, readonly (readonly string[])[]>> = {
  // The agent engine above its memory tools (also the MCP server's), which are specs of the same
  // shape as the file tools.
  agent: [["agent"], ["agent/memory-tools"], ["agent/tools"]],
  // The `memdir` command: `main.ts` loads one command file on demand; every command uses the
  // shared options, output and location rules in `support/`; `setup/` is what `memdir setup` writes.
  cli: [["cli"], ["cli/commands"], ["cli/setup", "cli/support"]],
  // The commands, grouped by what a user does with them.
  "cli/commands": [["cli/commands/memories", "cli/commands/hosts", "cli/commands/upkeep"]],
  // The hosts: the registry above one folder per agent, above what they share (`shared/`: the
  // `Host` interface, memdir's hook events and the config-file edits).
  hosts: [
    ["hosts"],
    [
      "hosts/claude-code",
      "hosts/codex",
      "hosts/gemini",
      "hosts/qwen",
      "hosts/copilot",
      "hosts/opencode",
      "hosts/cursor",
      "hosts/cline",
    ],
    ["hosts/shared"],
  ],
  // `memdir import`: the plan and the write above the readers, one per source format.
  import: [["import"], ["import/sources"]],
  // The on-disk layer: checks and repairs (`health/`) above the single writer (`write/`), which
  // scans; the scan uses the cache files (`cache/`) and reads provenance (`trust/`); trust knows
  // where a project's files are (`location/`); format and location rest on safe file access (`fs/`).
  memdir: [
    ["memdir"],
    ["memdir/health"],
    ["memdir/write"],
    ["memdir/scan"],
    ["memdir/cache", "memdir/trust"],
    ["memdir/location", "memdir/format"],
    ["memdir/fs"],
  ],
  // Recall's own files (prefetch, selectors, surfacing) above the lexical engine.
  recall: [["recall"], ["recall/lexical"]],
  // The lexical engine: ranking and the query above the stages, which score over the index, which
  // is built from the words (`text/`: tokenizing, dates, word vectors, the bridge table).
  "recall/lexical": [
    ["recall/lexical"],
    ["recall/lexical/stages"],
    ["recall/lexical/index"],
    ["recall/lexical/text"],
  ],
};

/** The most files a folder holds directly; past it, a folder is split by concept (AGENTS.md). */
const MAX_FILES_PER_FOLDER = 16;

/** One import: `from` imports `to`; both relative to src/. */
interface ImportEdge {
  from: string;
  to: string;
}

function sourceFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true })
    .map(String)
    .filter((file) => file.endsWith(".ts"))
    .map((file) => file.split(path.sep).join("/"))
    .sort();
}

/** Every import between two files of src/ (packages and `node:` modules are left out). */
function importEdges(): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of sourceFiles(SRC)) {
    const text = fs.readFileSync(path.join(SRC, file), "utf8");
    const { importedFiles } = ts.preProcessFile(text, true, true);
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith(".")) continue;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), fileName));
      if (target.startsWith("..")) continue;
      edges.push({ from: file, to: target.replace(/\.js$/, ".ts") });
    }
  }
  return edges;
}

/** The folder a file belongs to: its first path segment, or the file itself at the top. */
function folderOf(file: string): string {
  const slash = file.indexOf("/");
  return slash === -1 ? file : file.slice(0, slash);
}

/**
 * The part of `parent` a file belongs to: the sub-folder of `parent` it sits in, or `parent`
 * itself for the folder's own files; undefined for a file outside `parent`.
 */
function partOf(parent: string, file: string): string | undefined {
  if (!file.startsWith(`${parent}/`)) return undefined;
  const rest = file.slice(parent.length + 1);
  const slash = rest.indexOf("/");
  return slash === -1 ? parent : `${parent}/${rest.slice(0, slash)}`;
}

/** Each arrow the layer table forbids, as a readable line. */
function layerViolations(
  edges: readonly ImportEdge[],
  layers: readonly (readonly string[])[],
  groupOf: (file: string) => string = folderOf,
): string[] {
  const layerOf = new Map<string, number>();
  layers.forEach((folders, index) => {
    for (const folder of folders) layerOf.set(folder, index);
  });
  const problems = new Set<string>();
  for (const { from, to } of edges) {
    const source = groupOf(from);
    const target = groupOf(to);
    for (const folder of [source, target])
      if (!layerOf.has(folder)) problems.add(`${folder} is in no layer: add it to LAYERS (${from} → ${to})`);
    if (source === target || !layerOf.has(source) || !layerOf.has(target)) continue;
    const sourceLayer = layerOf.get(source) as number;
    const targetLayer = layerOf.get(target) as number;
    if (targetLayer === sourceLayer) problems.add(`${from} → ${to}: ${source} and ${target} are siblings`);
    else if (targetLayer < sourceLayer) problems.add(`${from} → ${to}: ${target} is above ${source}`);
  }
  return [...problems];
}

/** The strongly connected groups of more than one node (Tarjan), each sorted. */
function cycles(edges: readonly { from: string; to: string }[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    if (from === to) continue;
    if (!next.has(from)) next.set(from, new Set());
    if (!next.has(to)) next.set(to, new Set());
    next.get(from)?.add(to);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node) as number);
    stack.push(node);
    onStack.add(node);
    for (const target of next.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node) as number, low.get(target) as number));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node) as number, index.get(target) as number));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      group.push(member);
    } while (member !== node);
    if (group.length > 1) groups.push(group.sort());
  };
  for (const node of next.keys()) if (!index.has(node)) visit(node);
  return groups;
}

describe("the checker", () => {
  const layers = [["cli"], ["agent", "extract"], ["memdir"], ["types.ts"]];

  it("accepts arrows that point down and imports inside a folder", () => {
    const edges = [
      { from: "cli/main.ts", to: "cli/support/common.ts" },
      { from: "cli/main.ts", to: "memdir/write/write.ts" },
      { from: "agent/loop.ts", to: "types.ts" },
    ];
    assert.deepEqual(layerViolations(edges, layers), []);
  });

  it("reports an arrow up, an arrow to a sibling and a folder missing from the table", () => {
    const edges = [
      { from: "memdir/write/write.ts", to: "agent/loop.ts" },
      { from: "extract/run.ts", to: "agent/fork.ts" },
      { from: "cli/main.ts", to: "bench/run.ts" },
    ];
    assert.deepEqual(layerViolations(edges, layers), [
      "memdir/write/write.ts → agent/loop.ts: agent is above memdir",
      "extract/run.ts → agent/fork.ts: extract and agent are siblings",
      "bench is in no layer: add it to LAYERS (cli/main.ts → bench/run.ts)",
    ]);
  });

  it("finds a cycle however long, and only the files in it", () => {
    const edges = [
      { from: "a.ts", to: "b.ts" },
      { from: "b.ts", to: "c.ts" },
      { from: "c.ts", to: "a.ts" },
      { from: "c.ts", to: "d.ts" },
    ];
    assert.deepEqual(cycles(edges), [["a.ts", "b.ts", "c.ts"]]);
    assert.deepEqual(cycles(edges.slice(0, 2)), []);
  });

  it("sees dynamic imports and export-from, and skips imports in comments", () => {
    const text = [
      '// import { x } from "./commented.ts";',
      'export { a } from "./a.ts";',
      'const b = async () => (await import("./b.ts")).b;',
      'let c: import("./c.ts").C;',
    ].join("\n");
    const names = ts.preProcessFile(text, true, true).importedFiles.map((file) => file.fileName);
    assert.deepEqual(names.sort(), ["./a.ts", "./b.ts", "./c.ts"]);
  });
});

describe("src/", () => {
  const edges = importEdges();

  it("has its imports read (a sanity check on the reader)", () => {
    assert.ok(edges.length > 300, `only ${edges.length} imports found`);
    assert.ok(
      edges.some((edge) => edge.from === "cli/main.ts" && edge.to === "cli/commands/hosts/run.ts"),
      "the CLI's lazy import(...) of its commands was not seen",
    );
  });

  it("imports only down the layer table", () => {
    assert.deepEqual(layerViolations(edges, LAYERS), []);
  });

  it("has no cycle between folders", () => {
    const folderEdges = edges.map(({ from, to }) => ({ from: folderOf(from), to: folderOf(to) }));
    assert.deepEqual(cycles(folderEdges), []);
  });

  it("has no cycle between files (besides the known ones listed above)", () => {
    assert.deepEqual(cycles(edges), []);
  });

  it("has CLI commands that never import main.ts (main.ts loads them)", () => {
    const wrong = edges.filter(({ from, to }) => from.startsWith("cli/commands/") && to === "cli/main.ts");
    assert.deepEqual(wrong, []);
  });

  it("imports only down the second-level table inside each split folder", () => {
    const problems = Object.entries(SUBLAYERS).flatMap(([parent, layers]) => {
      const inside = edges.filter(({ from, to }) => partOf(parent, from) && partOf(parent, to));
      return layerViolations(inside, layers, (file) => partOf(parent, file) as string);
    });
    assert.deepEqual(problems, []);
  });

  it("has no cycle between folders at any depth inside a top-level folder", () => {
    const folderEdges = edges
      .filter(({ from, to }) => folderOf(from) === folderOf(to))
      .map(({ from, to }) => ({ from: path.posix.dirname(from), to: path.posix.dirname(to) }));
    assert.deepEqual(cycles(folderEdges), []);
  });

  it("has every folder with sub-folders in the second-level table", () => {
    const split = new Set<string>();
    for (const file of sourceFiles(SRC)) {
      const parts = file.split("/").slice(0, -1);
      for (let depth = 1; depth < parts.length; depth++) split.add(parts.slice(0, depth).join("/"));
    }
    assert.deepEqual(
      [...split].filter((folder) => !(folder in SUBLAYERS)),
      [],
    );
  });

  it(`has no folder holding more than ${MAX_FILES_PER_FOLDER} files directly`, () => {
    const counts = new Map<string, number>();
    for (const file of sourceFiles(SRC)) {
      const folder = path.posix.dirname(file);
      counts.set(folder, (counts.get(folder) ?? 0) + 1);
    }
    const crowded = [...counts].filter(([folder, count]) => folder !== "." && count > MAX_FILES_PER_FOLDER);
    assert.deepEqual(crowded, []);
  });

  it("has every folder of src/ in the layer table", () => {
    const placed = new Set(LAYERS.flat());
    const folders = new Set(sourceFiles(SRC).map(folderOf));
    assert.deepEqual(
      [...folders].filter((folder) => !placed.has(folder)),
      [],
    );
  });
});
