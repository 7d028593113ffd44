import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import YAML from "yaml";
import { provenanceOf } from "../../src/memdir/provenance.ts";
import { runCli } from "../helpers/cli.ts";
import { writeMemory } from "../helpers/memory.ts";
import { seededRandom, testSeed } from "../helpers/random.ts";
import { makeTempDir } from "../helpers/temp.ts";

const repo = path.resolve(import.meta.dirname, "../..");

// Frontmatter shapes a memory dir holds: memdir's own (plain, quoted, stamped with provenance),
// Claude Code's (provenance and type under metadata:), and what the plain reader leaves to yaml
// (lists, anchors, multi-line values, numbers, comments, broken YAML).
const SHAPES: ((i: number) => string)[] = [
  (i) => `description: plain note ${i}\ntype: feedback`,
  (i) => `description: "quoted: note ${i}"\ntype: user\nsource: cli`,
  (i) =>
    `name: n-${i}\ndescription: 'it''s note ${i}'\ntype: project\nsource: extraction\nsession: 8f2c-${i}`,
  (i) =>
    `name: n-${i}\ndescription: claude ${i}\nmetadata:\n  type: reference\n  source: agent\n  session: s-${i}`,
  (i) => `description: listed ${i}\ntype: user\ntags: [a, b]\nsource: mcp`,
  (i) =>
    `description: anchored ${i}\ntype: feedback\nanchors:\n  - path: src/a.ts\n    hash: abc\nsource: sync`,
  (i) => `description: |\n  multi\n  line ${i}\ntype: feedback\nsession: 12345`,
  (i) => `description: &d anchored alias ${i}\ntype: user\nsource: *d`,
  (i) => `description: commented ${i} # not part of it\ntype: user\nsource: consolidation`,
  (i) => `description: [broken ${i}\ntype: user\nsource: cli`,
  (i) => `description: dup ${i}\ndescription: again\nsource: cli`,
  (i) => `description: "escaped \\"${i}\\""\ntype: user\nsession: "  spaced  "`,
];

/** What BASE's list did for a file's provenance: yaml over its frontmatter (within 30 lines). */
function referenceProvenance(text: string): { source: string | null; session: string | null } {
  const lines = text.split("\n");
  const close = lines.findIndex((line, i) => i > 0 && line === "---");
  if (lines[0] !== "---" || close < 0 || close >= 30) return { source: null, session: null };
  try {
    const data: unknown = YAML.parse(lines.slice(1, close).join("\n"), { prettyErrors: false });
    return data && typeof data === "object" && !Array.isArray(data)
      ? provenanceOf(data as Record<string, unknown>)
      : { source: null, session: null };
  } catch {
    return { source: null, session: null };
  }
}

describe("memdir list --json", () => {
  it("lists the same source and session from the header cache file as from the files, whatever their frontmatter", async (t) => {
    const seed = testSeed();
    t.diagnostic(`MEMDIR_TEST_SEED=${seed}`);
    const random = seededRandom(seed);
    const home = makeTempDir();
    const dir = path.join(home, "memory");
    // Enough memories for a cache file (headers.v8) at any threshold up to 500.
    const texts = new Map<string, string>();
    for (let i = 0; i < 520; i++) {
      const shape = SHAPES[Math.floor(random() * SHAPES.length)];
      const file = `${i % 7 === 0 ? "team/" : ""}m-${i}.md`;
      const text = `---\n${shape(i)}\n---\nbody ${i}\n`;
      texts.set(file, text);
      writeMemory(dir, file, text, new Date(Date.UTC(2026, 0, 1) + i * 60_000));
    }
    const list = (env: Record<string, string> = {}) =>
      runCli(["list", "--json", "--dir", dir], { home, cwd: repo, env });

    const cold = await list();
    assert.equal(cold.code, 0, cold.stderr);
    const cacheFile = path.join(dir, ".memdir-cache", "headers.v8");
    assert.ok(fs.existsSync(cacheFile), "the first list wrote the header cache file");
    const warm = await list();
    assert.equal(warm.stdout, cold.stdout, "from the cache file: byte for byte the same");
    const uncached = await list({ MEMDIR_NO_CACHE: "1" });
    assert.equal(uncached.stdout, cold.stdout, "without any cache: byte for byte the same");

    const entries = JSON.parse(warm.stdout) as Record<string, unknown>[];
    assert.equal(entries.length, texts.size);
    for (const entry of entries) {
      assert.deepEqual(Object.keys(entry), [
        "file",
        "path",
        "type",
        "description",
        "mtime",
        "source",
        "session",
      ]);
      const text = texts.get(entry.file as string) ?? "";
      assert.deepEqual(
        { source: entry.source, session: entry.session },
        referenceProvenance(text),
        `${entry.file}: ${JSON.stringify(text)} (MEMDIR_TEST_SEED=${seed})`,
      );
    }

    // A file changed behind the cache's back is read again.
    const changed = path.join(dir, "m-1.md");
    fs.writeFileSync(
      changed,
      "---\ndescription: rewritten\ntype: user\nsource: agent\nsession: new-one\n---\nb\n",
    );
    const after = JSON.parse((await list()).stdout) as Record<string, unknown>[];
    const entry = after.find((e) => e.file === "m-1.md");
    assert.deepEqual([entry?.description, entry?.source, entry?.session], ["rewritten", "agent", "new-one"]);
    const filtered = await runCli(["list", "--json", "--source", "agent", "--dir", dir], { home, cwd: repo });
    const agentFiles = (JSON.parse(filtered.stdout) as { file: string }[]).map((e) => e.file);
    assert.ok(agentFiles.includes("m-1.md"));
    assert.ok(
      agentFiles.every(
        (file) => referenceProvenance(fs.readFileSync(path.join(dir, file), "utf8")).source === "agent",
      ),
    );
  });
});
