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
