// The shared table of path escape attempts (docs/design.md#path-safety). Every entry point that
// takes a path (the single writer, agent tools, MCP tools, the CLI) runs the same cases:
//
//   const fixture = makeHostileFixture();            // fresh dirs per case
//   const { memoryDir, requested } = prepareHostileCase(testCase, fixture);
//   const before = snapshotOutside(fixture);
//   …call the entry point with memoryDir + requested, expect a refusal…
//   assert.deepEqual(snapshotOutside(fixture), before);
import fs from "node:fs";
import path from "node:path";
import { makeTempDir } from "../helpers/temp.ts";

/** Directories one case runs in: a memory dir inside a root, and a sentinel dir outside it. */
export interface HostileFixture {
  /** Holds everything; snapshots cover it all except the memory dir's own contents. */
  base: string;
  root: string;
  memoryDir: string;
  /** Sentinel directory an escape would land in; starts with `victim.md`. */
  outside: string;
}

export interface HostileCase {
  name: string;
  /** The path handed to the entry point. */
  requested: (fixture: HostileFixture) => string;
  /** Plants links before the call; may return a different memory dir (e.g. a symlinked one). */
  setup?: (fixture: HostileFixture) => { memoryDir?: string } | undefined;
}

/** A fresh fixture in a new temp dir (removed after the test file). */
export function makeHostileFixture(): HostileFixture {
  const base = makeTempDir("memdir-hostile-");
  const root = path.join(base, "root");
  const memoryDir = path.join(root, "projects", "-work-shop", "memory");
  const outside = path.join(base, "outside");
  fs.mkdirSync(memoryDir, { recursive: true });
  fs.mkdirSync(outside, { recursive: true });
  fs.writeFileSync(path.join(outside, "victim.md"), "original victim content\n");
  fs.writeFileSync(path.join(memoryDir, "MEMORY.md"), "- [Existing](existing.md) — already here\n");
  fs.writeFileSync(
    path.join(memoryDir, "existing.md"),
    "---\ndescription: existing\ntype: user\n---\nbody\n",
  );
  return { base, root, memoryDir, outside };
}

/** Runs the case's setup and returns the memory dir and path to use. */
export function prepareHostileCase(
  testCase: HostileCase,
  fixture: HostileFixture,
): { memoryDir: string; requested: string } {
  const changed = testCase.setup?.(fixture);
  return { memoryDir: changed?.memoryDir ?? fixture.memoryDir, requested: testCase.requested(fixture) };
}

/**
 * Every entry under `fixture.base` except inside the real memory dir: path → file content,
 * `dir`, or `link -> target`. Equal snapshots before and after mean nothing was written outside.
 */
export function snapshotOutside(fixture: HostileFixture): Record<string, string> {
  const snapshot: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (full === fixture.memoryDir) continue;
      const relative = path.relative(fixture.base, full);
      if (entry.isSymbolicLink()) snapshot[relative] = `link -> ${fs.readlinkSync(full)}`;
      else if (entry.isDirectory()) {
        snapshot[relative] = "dir";
        walk(full);
      } else snapshot[relative] = fs.readFileSync(full, "utf8");
    }
  };
  walk(fixture.base);
  return snapshot;
}

const link = (target: string, at: string) => {
  fs.mkdirSync(path.dirname(at), { recursive: true });
  fs.symlinkSync(target, at);
};

/** ≥ 30 escape attempts; each must be refused and leave everything outside the memory dir alone. */
export const HOSTILE_PATH_CASES: readonly HostileCase[] = [
  { name: "parent segment", requested: () => "../escape.md" },
  { name: "two parent segments", requested: () => "../../escape.md" },
  { name: "parent after a folder", requested: () => "notes/../../escape.md" },
  { name: "bare ..", requested: () => ".." },
  { name: "dot then parent", requested: () => "./../escape.md" },
  { name: "parent into a sibling project", requested: () => "../../-other-project/memory/escape.md" },
  { name: "absolute path elsewhere", requested: (f) => path.join(f.outside, "escape.md") },
  { name: "absolute path to an existing file", requested: (f) => path.join(f.outside, "victim.md") },
  { name: "absolute path with .. from the memory dir", requested: (f) => `${f.memoryDir}/../escape.md` },
  {
    name: "absolute path sharing the memory dir as prefix",
    requested: (f) => `${f.memoryDir}-evil/escape.md`,
  },
  { name: "many parents then absolute", requested: (f) => `/../../../..${f.outside}/escape.md` },
  { name: "home-relative", requested: () => "~/escape.md" },
  { name: "NUL byte truncation", requested: () => "ok.md\u0000../../escape.md" },
  { name: "trailing NUL byte", requested: () => "escape.md\u0000" },
  { name: "newline in the name", requested: () => "a\n../escape.md" },
  { name: "URL-encoded ../", requested: () => "%2e%2e%2fescape.md" },
  { name: "URL-encoded dots only", requested: () => "%2e%2e/escape.md" },
  { name: "URL-encoded slash", requested: () => "..%2fescape.md" },
  { name: "upper-case URL encoding", requested: () => "%2E%2E%2Fescape.md" },
  { name: "double URL encoding", requested: () => "%252e%252e%252fescape.md" },
  { name: "URL-encoded backslash", requested: () => "..%5cescape.md" },
  {
    name: "URL-encoded absolute path",
    requested: (f) => encodeURIComponent(path.join(f.outside, "escape.md")),
  },
  { name: "full-width dots and slash", requested: () => "．．／escape.md" },
  { name: "full-width dots, ASCII slash", requested: () => "．．/escape.md" },
  { name: "ASCII dots, full-width slash", requested: () => "..／escape.md" },
  { name: "full-width backslashes", requested: () => "＼..＼escape.md" },
  { name: "two-dot leader", requested: () => "‥/escape.md" },
  { name: "one-dot leaders", requested: () => "․․/escape.md" },
  { name: "division slash", requested: () => "..∕escape.md" },
  { name: "backslash parent", requested: () => "..\\escape.md" },
  { name: "backslashes after a folder", requested: () => "notes\\..\\..\\escape.md" },
  { name: "Windows drive with backslash", requested: () => "C:\\Windows\\escape.md" },
  { name: "Windows drive with slash", requested: () => "C:/escape.md" },
  { name: "UNC share", requested: () => "\\\\server\\share\\escape.md" },
  { name: "name over 255 bytes", requested: () => `${"a".repeat(300)}.md` },
  { name: "multi-byte name over 255 bytes", requested: () => `${"記".repeat(90)}.md` },
  {
    name: "symlinked file pointing outside",
    setup: (f) => {
      link(path.join(f.outside, "victim.md"), path.join(f.memoryDir, "link.md"));
      return undefined;
    },
    requested: () => "link.md",
  },
  {
    name: "symlinked folder pointing outside",
    setup: (f) => {
      link(f.outside, path.join(f.memoryDir, "linked"));
      return undefined;
    },
    requested: () => "linked/escape.md",
  },
  {
    name: "deeper symlinked parent",
    setup: (f) => {
      link(f.outside, path.join(f.memoryDir, "a", "b"));
      return undefined;
    },
    requested: () => "a/b/c/escape.md",
  },
  {
    name: "relative symlink climbing out",
    setup: (f) => {
      link("../../../../outside", path.join(f.memoryDir, "up"));
      return undefined;
    },
    requested: () => "up/escape.md",
  },
  {
    name: "dangling symlinked file",
    setup: (f) => {
      link(path.join(f.outside, "not-yet.md"), path.join(f.memoryDir, "dangling.md"));
      return undefined;
    },
    requested: () => "dangling.md",
  },
  {
    name: "dangling symlinked folder",
    setup: (f) => {
      link(path.join(f.outside, "nope"), path.join(f.memoryDir, "ghost"));
      return undefined;
    },
    requested: () => "ghost/escape.md",
  },
  {
    name: "symlink loop",
    setup: (f) => {
      link("loop.md", path.join(f.memoryDir, "loop.md"));
      return undefined;
    },
    requested: () => "loop.md",
  },
  {
    name: "memory dir that is a symlink to elsewhere",
    setup: (f) => {
      const linkedMemory = path.join(f.root, "projects", "-work-linked", "memory");
      link(f.outside, linkedMemory);
      return { memoryDir: linkedMemory };
    },
    requested: () => "escape.md",
  },
];
