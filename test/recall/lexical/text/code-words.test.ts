import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HeaderCache } from "../../../../src/memdir/scan/header-cache.ts";
import { scanHeaders } from "../../../../src/memdir/scan/scan.ts";
import { LexicalIndexCache } from "../../../../src/recall/lexical/index/lexical-index.ts";
import type { LexicalPick } from "../../../../src/recall/lexical/index/types.ts";
import { pathFragmentTerms, pathOnlyTerms } from "../../../../src/recall/lexical/text/code-words.ts";
import { createLexicalSelector } from "../../../../src/recall/select-lexical.ts";
import { memory } from "../../../helpers/memory.ts";
import { makeTempDir, writeTree } from "../../../helpers/temp.ts";

async function select(memoryDir: string, query: string, tuning = {}): Promise<LexicalPick[]> {
  const headers = await scanHeaders(memoryDir, { cache: new HeaderCache() });
  const selector = createLexicalSelector({ cache: new LexicalIndexCache(), tuning });
  return (await selector.select({ query, headers, k: 5, memoryDir })).picks as LexicalPick[];
}

describe("code-common words in a small directory", () => {
  // Twelve memories; two name TypeScript files under src/ in their description, one holds the rule
  // the prompt needs and says its word once, in a long body.
  function project(): string {
    const dir = makeTempDir();
    writeTree(dir, {
      "build-output.md": memory(
        "src/**/*.ts compiles to dist/",
        "Sources in src/*.ts compile with tsc.",
        "project",
      ),
      "entry.md": memory(
        "The CLI loads src/main.ts",
        "bin/cli.js loads src/main.ts through the loader.",
        "project",
      ),
      "utc.md": memory(
        "Timestamps are stored in UTC",
        "Convert to the user's zone only when showing them. Parsing and formatting of dates goes " +
          "through date-fns; moment is not allowed anywhere in the code base.",
        "feedback",
      ),
      "pnpm.md": memory("Use pnpm", "npm is not allowed here.", "feedback"),
      "release.md": memory("Releases on Tuesdays", "Nothing ships on Fridays.", "project"),
      "staging.md": memory("Staging resets nightly", "QA signs off there.", "reference"),
      "user.md": memory("Backend engineer", "New to React.", "user"),
      "grafana.md": memory("Latency dashboard in Grafana", "Alert above 800 ms.", "reference"),
      "style.md": memory("Named exports only", "Biome enforces it.", "feedback"),
      "vault.md": memory("Secrets in Vault", "Under kv/shop.", "reference"),
      "flags.md": memory("Feature flags in LaunchDarkly", "Remove them after rollout.", "reference"),
      "commits.md": memory("Conventional Commits", "feat:, fix:, chore:.", "feedback"),
    });
    return dir;
  }
  const query = "wrong dates in src/orders/view.ts";

  it("ranks the memory with the request's word above one sharing only src and ts of its path", async () => {
    // The stages that add other evidence (related words, saved together) off: what the words weigh.
    // utc.md ranks second, under build-output.md (src and ts twice in each field). Its first place
    // here came from the feedback word `user`, which counted as a word of two memories only
    // because user.md's name and type said it (docs/design.md#memory-types-are-no-evidence).
    const wordsOnly = { relatedWeight: 0, relatedPassageWeight: 0, neighborWeight: 0 };
    const files = (await select(project(), query, wordsOnly)).map((pick) => pick.file);
    assert.ok(
      files.indexOf("utc.md") >= 0 && files.indexOf("utc.md") < files.indexOf("entry.md"),
      files.join(", "),
    );
  });

  it("and with every stage on", async () => {
    const picks = await select(project(), query);
    assert.equal(picks[0]?.file, "utc.md", JSON.stringify(picks));
  });

  it("weighs only the code-common words a prompt writes inside a path, and not those it also says", () => {
    const fragments = (query: string) => [...pathFragmentTerms(pathOnlyTerms(query))].sort();
    assert.deepEqual(fragments("fix src/auth/login.ts"), ["src", "ts"]);
    assert.deepEqual(fragments("edit .buildkite/pipeline.yml"), ["yml"]);
    assert.deepEqual(fragments("the ts types in src/types.ts"), ["src"]);
    assert.deepEqual(fragments("修复src/auth/login.ts的测试"), ["src", "ts"]);
    // A version number is no path.
    assert.deepEqual(fragments("what coverage does CI want for v1.2"), []);
  });
});
