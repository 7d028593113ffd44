import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { isMemdirError } from "../../src/errors.ts";
import { assertInsideMemoryDir, resolveInsideMemoryDir } from "../../src/memdir/fs/safe-path.ts";
import { removeMemory, saveMemory, writeMemoryText } from "../../src/memdir/write/write.ts";
import { counted } from "../helpers/reliability-counts.ts";
import {
  HOSTILE_PATH_CASES,
  type HostileCase,
  makeHostileFixture,
  prepareHostileCase,
  snapshotOutside,
} from "./hostile-path-cases.ts";

/** Runs one entry point on one case and checks it refused and left everything outside alone. */
function expectRefusedAndNothingOutside(
  testCase: HostileCase,
  call: (memoryDir: string, requested: string) => Promise<unknown>,
): Promise<void> {
  return counted("escapes", () => refusedAndNothingOutside(testCase, call));
}

async function refusedAndNothingOutside(
  testCase: HostileCase,
  call: (memoryDir: string, requested: string) => Promise<unknown>,
): Promise<void> {
  const fixture = makeHostileFixture();
  const { memoryDir, requested } = prepareHostileCase(testCase, fixture);
  const before = snapshotOutside(fixture);
  const indexBefore = fs.readFileSync(path.join(fixture.memoryDir, "MEMORY.md"), "utf8");
  await assert.rejects(call(memoryDir, requested), (error: unknown) => {
    assert.ok(isMemdirError(error, "path-outside"), `expected a path-outside refusal, got: ${String(error)}`);
    return true;
  });
  assert.deepEqual(
    snapshotOutside(fixture),
    before,
    `${testCase.name}: something outside the memory dir changed`,
  );
  assert.equal(
    fs.readFileSync(path.join(fixture.memoryDir, "MEMORY.md"), "utf8"),
    indexBefore,
    `${testCase.name}: MEMORY.md changed although the write was refused`,
  );
}

describe("hostile paths", () => {
  it("has at least 30 escape attempts in the shared table", () => {
    assert.ok(HOSTILE_PATH_CASES.length >= 30, `only ${HOSTILE_PATH_CASES.length} cases`);
  });

  describe("resolveInsideMemoryDir refuses with a readable reason", () => {
    for (const testCase of HOSTILE_PATH_CASES) {
      it(testCase.name, async () => {
        const fixture = makeHostileFixture();
        const { memoryDir, requested } = prepareHostileCase(testCase, fixture);
        const result = await resolveInsideMemoryDir(memoryDir, requested);
        assert.equal(result.ok, false, `accepted ${JSON.stringify(requested)}`);
        if (!result.ok) assert.match(result.reason, /\w{3,} \w{3,}/, "the reason should be a sentence");
        await assert.rejects(assertInsideMemoryDir(memoryDir, requested), (error: unknown) =>
          isMemdirError(error, "path-outside"),
        );
      });
    }
  });

  describe("saveMemory refuses and writes nothing outside", () => {
    for (const testCase of HOSTILE_PATH_CASES) {
      it(testCase.name, () =>
        expectRefusedAndNothingOutside(testCase, (memoryDir, requested) =>
          saveMemory(memoryDir, {
            file: requested,
            type: "feedback",
            description: "a hostile write attempt",
            body: "written where it must not be",
          }),
        ),
      );
    }
  });

  describe("writeMemoryText refuses and writes nothing outside", () => {
    for (const testCase of HOSTILE_PATH_CASES) {
      it(testCase.name, () =>
        expectRefusedAndNothingOutside(testCase, (memoryDir, requested) =>
          writeMemoryText(memoryDir, requested, "written where it must not be\n"),
        ),
      );
    }
  });

  describe("removeMemory refuses and deletes nothing outside", () => {
    for (const testCase of HOSTILE_PATH_CASES) {
      it(testCase.name, () =>
        expectRefusedAndNothingOutside(testCase, (memoryDir, requested) =>
          removeMemory(memoryDir, requested),
        ),
      );
    }
  });
});
