import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { resolveModelConfig } from "../../src/config.ts";
import { isMemdirError } from "../../src/errors.ts";
import { createModelClientFromConfig, requireModel } from "../../src/model/factory.ts";
import { responseText } from "../../src/model/json-repair.ts";
import { startFakeModelServer } from "../../src/testing/index.ts";

describe("createModelClientFromConfig", () => {
  const closers: (() => Promise<void>)[] = [];
  after(async () => {
    await Promise.all(closers.map((close) => close()));
  });

  it("is offline (null) when no provider is configured", () => {
    assert.equal(createModelClientFromConfig(resolveModelConfig({})), null);
    assert.equal(
      createModelClientFromConfig(resolveModelConfig({ OPENAI_BASE_URL: "http://127.0.0.1:1/v1" })),
      null,
    );
  });

  it("picks Anthropic from its key, Sonnet for the agent and Haiku for side queries", () => {
    const config = resolveModelConfig({ ANTHROPIC_API_KEY: "x" });
    assert.equal(createModelClientFromConfig(config)?.name, "anthropic:claude-sonnet-5-5");
    assert.equal(
      createModelClientFromConfig(config, { purpose: "selector" })?.name,
      "anthropic:claude-haiku-5-5",
    );
  });

  it("uses MEMDIR_MODEL for both purposes unless MEMDIR_SELECTOR_MODEL is set", () => {
    const one = resolveModelConfig({ ANTHROPIC_API_KEY: "x", MEMDIR_MODEL: "claude-opus-5" });
    assert.equal(createModelClientFromConfig(one, { purpose: "selector" })?.name, "anthropic:claude-opus-5");
    const two = resolveModelConfig({
      OPENAI_API_KEY: "x",
      MEMDIR_MODEL: "gpt-5",
      MEMDIR_SELECTOR_MODEL: "gpt-5-nano",
    });
    assert.equal(createModelClientFromConfig(two)?.name, "openai:gpt-5");
    assert.equal(createModelClientFromConfig(two, { purpose: "selector" })?.name, "openai:gpt-5-nano");
  });

  it("talks to a keyless local OpenAI-compatible server named by OPENAI_BASE_URL", async () => {
    const server = await startFakeModelServer(["local reply"]);
    closers.push(server.close);
    const config = resolveModelConfig({
      MEMDIR_PROVIDER: "openai",
      OPENAI_BASE_URL: server.openaiBaseURL,
      MEMDIR_MODEL: "qwen3:8b",
    });
    const client = createModelClientFromConfig(config, { maxRetries: 0 });
    assert.equal(client?.name, "openai:qwen3:8b");
    const reply = await client!.complete({
      messages: [{ id: "1", role: "user", content: "hi" }],
      maxTokens: 10,
    });
    assert.equal(responseText(reply), "local reply");
    assert.equal(server.requests[0]!.body?.model, "qwen3:8b");
  });

  it("points Anthropic at ANTHROPIC_BASE_URL", async () => {
    const server = await startFakeModelServer(["proxied"]);
    closers.push(server.close);
    const config = resolveModelConfig({
      ANTHROPIC_API_KEY: "k",
      ANTHROPIC_BASE_URL: server.anthropicBaseURL,
    });
    const client = createModelClientFromConfig(config, { maxRetries: 0 });
    const reply = await client!.complete({
      messages: [{ id: "1", role: "user", content: "hi" }],
      maxTokens: 10,
    });
    assert.equal(responseText(reply), "proxied");
    assert.equal(server.requests[0]!.path, "/v1/messages");
  });
});

describe("requireModel", () => {
  it("says in one line which variable to set when nothing is configured", () => {
    assert.throws(
      () => requireModel(resolveModelConfig({})),
      (error) =>
        isMemdirError(error, "no-model") &&
        !error.message.includes("\n") &&
        error.message.startsWith("memdir: no model configured: set ANTHROPIC_API_KEY") &&
        error.message.includes("OPENAI_BASE_URL"),
    );
  });

  it("names a provider it does not know, and where it was set, instead of asking for a key that is there", () => {
    assert.throws(
      () => requireModel(resolveModelConfig({ MEMDIR_PROVIDER: "antropic", ANTHROPIC_API_KEY: "k" })),
      (error) =>
        isMemdirError(error, "no-model") &&
        error.message.includes('the provider "antropic" (MEMDIR_PROVIDER) is not one memdir knows') &&
        !error.message.includes("set ANTHROPIC_API_KEY"),
    );
    assert.match(
      resolveModelConfig({}, {}, { user: { memdirProvider: "gpt" } }).unknownProvider ?? "",
      /"gpt" \(memdirProvider in user settings\)/,
    );
    assert.equal(resolveModelConfig({ MEMDIR_PROVIDER: "OpenAI" }).unknownProvider, undefined);
  });

  it("names the missing key of the chosen provider", () => {
    assert.throws(
      () => requireModel(resolveModelConfig({ MEMDIR_PROVIDER: "anthropic" })),
      (error) => isMemdirError(error, "no-model") && /set ANTHROPIC_API_KEY/.test(error.message),
    );
    assert.throws(
      () => requireModel(resolveModelConfig({ MEMDIR_PROVIDER: "openai" })),
      (error) =>
        isMemdirError(error, "no-model") && /set OPENAI_API_KEY, or OPENAI_BASE_URL/.test(error.message),
    );
  });

  it("returns the client when a model is configured", () => {
    assert.equal(requireModel(resolveModelConfig({ OPENAI_API_KEY: "k" })).name, "openai:gpt-4.1-mini");
  });
});
