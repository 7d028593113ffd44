import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { HeaderCache } from "../../../src/memdir/scan/header-cache.ts";
import { scanHeaders } from "../../../src/memdir/scan/scan.ts";
import { LexicalIndexCache } from "../../../src/recall/lexical/index/lexical-index.ts";
import { createLexicalSelector } from "../../../src/recall/select-lexical.ts";
import { memory } from "../../helpers/memory.ts";
import { makeTempDir } from "../../helpers/temp.ts";

// A prompt writes "log out", "sign up", "set up" where memories write one word (logout, signup,
// setup); the particle is a stop word, so only the joined word can match (src/recall/lexical/query.ts).
describe("words a prompt writes apart", () => {
  it("finds the memory that writes them as one word: log out → logout, sign-up → signup, set up → setup", async () => {
    const memoryDir = path.join(makeTempDir("memdir-joined-"), "memory");
    fs.mkdirSync(memoryDir, { recursive: true });
    const files: Record<string, string> = {
      "project-logout.md": memory(
        "Logout revokes the Redis session server-side",
        "Logout deletes the session key.",
      ),
      "project-signup.md": memory(
        "Signup sends the welcome email through Resend",
        "Signup is in app/signup.",
      ),
      "project-setup.md": memory("Setup script seeds the local Postgres", "Run the setup script once."),
      "project-other.md": memory("Tailwind classes, no inline styles", "Style with classes."),
    };
    for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(memoryDir, file), text);
    const headers = await scanHeaders(memoryDir, { cache: new HeaderCache() });
    const selector = createLexicalSelector({ cache: new LexicalIndexCache() });
    for (const [query, expected] of [
      ["how do I log out users?", "project-logout.md"],
      ["the sign-up flow is broken", "project-signup.md"],
      ["how do I set up the database locally", "project-setup.md"],
    ]) {
      const { picks } = await selector.select({ query, headers, k: 3, memoryDir });
      assert.equal(picks[0]?.file, expected, `${query}: ${JSON.stringify(picks)}`);
    }
  });
});

// A verb and its particle that developers also write as one word (docs/design.md#phrasal-verbs).
describe("phrasal verbs", () => {
  async function picksFor(files: Record<string, string>, queries: string[]) {
    const memoryDir = path.join(makeTempDir("memdir-phrasal-"), "memory");
    fs.mkdirSync(memoryDir, { recursive: true });
    for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(memoryDir, file), text);
    const headers = await scanHeaders(memoryDir, { cache: new HeaderCache() });
    const selector = createLexicalSelector({ cache: new LexicalIndexCache() });
    const picked: Record<string, string[]> = {};
    for (const query of queries)
      picked[query] = (await selector.select({ query, headers, k: 5, memoryDir })).picks.map(
        (pick) => pick.file,
      );
    return picked;
  }

  it("a prompt that says 'set up' is not about the Redis SET command", async () => {
    const picked = await picksFor(
      {
        "project-redis.md": memory(
          "Redis caching",
          "We cache sessions in redis with SET and a TTL of 15 minutes.",
        ),
        "project-frontend.md": memory("Frontend dev server", "The frontend runs on vite; start it in web/."),
        "project-payments.md": memory("Payments retries", "A failed charge is retried three times."),
      },
      ["how do I set up the frontend", "set the session ttl in redis"],
    );
    assert.deepEqual(picked["how do I set up the frontend"], ["project-frontend.md"]);
    assert.equal(
      picked["set the session ttl in redis"][0],
      "project-redis.md",
      "the verb alone still finds SET",
    );
  });

  it("finds a memory that writes the pair apart by the joined word, and the other way round", async () => {
    const picked = await picksFor(
      {
        "project-ci.md": memory("CI runners", "We set up the CI runners on Hetzner boxes last spring."),
        "project-gateway.md": memory("Gateway limits", "The gateway timeout is 30 seconds for uploads."),
        "project-auth.md": memory("Magic links", "Users log in with a magic link sent by email."),
        "project-style.md": memory("Style", "Tailwind classes, no inline styles."),
      },
      ["how was the setup done", "why does it keep timing out", "where does the login redirect go"],
    );
    assert.equal(picked["how was the setup done"][0], "project-ci.md");
    assert.equal(picked["why does it keep timing out"][0], "project-gateway.md");
    assert.equal(picked["where does the login redirect go"][0], "project-auth.md");
  });
});

describe("words a prompt runs together", () => {
  it("finds the memory that writes them apart, and never cuts a word whose parts no one memory says", async () => {
    const memoryDir = path.join(makeTempDir("memdir-run-together-"), "memory");
    fs.mkdirSync(memoryDir, { recursive: true });
    const files: Record<string, string> = {
      "project-healthz.md": memory("Health check", "The /healthz health check must not call Postgres."),
      "project-poetry.md": memory("Poetry only", "Never pipe curl into a shell to install Poetry."),
      "project-style.md": memory("Line length", "Black with a line length of 100."),
      "project-ci.md": memory("GitHub Actions", "CI runs on GitHub Actions; main must stay green."),
    };
    for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(memoryDir, file), text);
    const headers = await scanHeaders(memoryDir, { cache: new HeaderCache() });
    const selector = createLexicalSelector({ cache: new LexicalIndexCache() });
    const pick = async (query: string) =>
      (await selector.select({ query, headers, k: 3, memoryDir })).picks.map((p) => p.file);
    assert.equal((await pick("what does our healthcheck do"))[0], "project-healthz.md");
    // "pipe" is one memory's word and "line" another's: "pipeline" is neither.
    const pipeline = await pick("the pipeline keeps failing");
    assert.ok(!pipeline.includes("project-poetry.md"), `pipeline: ${pipeline}`);
    assert.ok(!pipeline.includes("project-style.md"), `pipeline: ${pipeline}`);
  });
});
