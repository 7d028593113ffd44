import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { classifyStatement, describeStatement } from "../../src/extract/statement-type.ts";

describe("classifyStatement and describeStatement", () => {
  it("types rules as feedback, facts about the user as user, pointers as reference", () => {
    assert.equal(classifyStatement("never mock the database in integration tests"), "feedback");
    assert.equal(classifyStatement("I prefer short answers"), "user");
    assert.equal(classifyStatement("bugs are tracked in the LINEAR project INGEST"), "reference");
    assert.equal(classifyStatement("the auth rewrite is driven by compliance"), "project");
  });

  it("keeps the description to one short line", () => {
    assert.equal(describeStatement("first line\nsecond line"), "first line");
    const long = "x".repeat(400);
    const described = describeStatement(long);
    assert.ok(described.length <= 150);
    assert.ok(described.endsWith("…"));
  });
});
