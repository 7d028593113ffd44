import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { resolveConfig } from "../../src/config.ts";
import { planStopHook } from "../../src/hooks/stop.ts";
import { makeTempDir } from "../helpers/temp.ts";

function setup(env: Record<string, string>) {
  const home = makeTempDir("memdir-stop-");
  const transcript = path.join(home, "session.jsonl");
  fs.writeFileSync(transcript, "");
  const config = resolveConfig({ cwd: home, home, env: { HOME: home, ...env } });
  return { home, transcript, config };
}

describe("planStopHook", () => {
  it("runs `memdir extract --transcript` for the session when a model is configured", () => {
    const { home, transcript, config } = setup({
      ANTHROPIC_API_KEY: "test-key",
      MEMDIR_PROVIDER: "anthropic",
    });
    assert.deepEqual(planStopHook({ transcriptPath: transcript, cwd: home, config, root: "/r" }), {
      run: ["extract", "--transcript", transcript, "--cwd", home, "--root", "/r"],
    });
  });

  it("skips without the configured provider's key, saying the host did not pass it: extraction needs one", () => {
    const { home, transcript, config } = setup({ MEMDIR_PROVIDER: "anthropic" });
    const plan = planStopHook({ transcriptPath: transcript, cwd: home, config });
    assert.ok(
      "skip" in plan &&
        /configured for anthropic .* but ANTHROPIC_API_KEY is not in this hook's environment/.test(plan.skip),
      JSON.stringify(plan),
    );
    assert.ok(/extraction needs one/.test(plan.skip));
  });

  it("skips without a model when the provider memdir was told is unknown", () => {
    const { home, transcript, config } = setup({ MEMDIR_PROVIDER: "mistral", ANTHROPIC_API_KEY: "k" });
    const plan = planStopHook({ transcriptPath: transcript, cwd: home, config });
    assert.ok("skip" in plan && /no model configured/.test(plan.skip), JSON.stringify(plan));
  });

  it("skips when only the host's API key is there: memdir itself must be configured for a model", () => {
    const { home, transcript, config } = setup({ ANTHROPIC_API_KEY: "host-key" });
    const plan = planStopHook({ transcriptPath: transcript, cwd: home, config });
    assert.ok("skip" in plan && /not configured for a model/.test(plan.skip), JSON.stringify(plan));
  });

  it("skips when auto memory is off", () => {
    const { home, transcript, config } = setup({ ANTHROPIC_API_KEY: "k", MEMDIR_DISABLE: "1" });
    const plan = planStopHook({ transcriptPath: transcript, cwd: home, config });
    assert.ok("skip" in plan && /auto memory is off/.test(plan.skip));
  });

  it("skips when the transcript is missing or not named", () => {
    const { home, config } = setup({ ANTHROPIC_API_KEY: "k", MEMDIR_MODEL: "claude-haiku-5-5" });
    const missing = planStopHook({ transcriptPath: path.join(home, "gone.jsonl"), cwd: home, config });
    assert.ok("skip" in missing && /no transcript/.test(missing.skip));
    const unnamed = planStopHook({ transcriptPath: undefined, cwd: home, config });
    assert.ok("skip" in unnamed && /transcript_path/.test(unnamed.skip));
  });
});
