// The closing line `npm test` ends with (scripts/summary-reporter.mjs), fed the events node:test
// reports, in this process.
import assert from "node:assert/strict";
import { describe, it } from "node:test";

// A reporter is a default export, which the type checker does not see through an .mjs file.
type Reporter = (source: AsyncIterable<unknown>) => AsyncGenerator<string>;
const reporterFile: string = "../../scripts/summary-reporter.mjs";

async function closingLine(events: { type: string; data: Record<string, unknown> }[]): Promise<string> {
  async function* source() {
    yield* events;
  }
  const { default: summaryReporter } = (await import(reporterFile)) as { default: Reporter };
  let text = "";
  for await (const chunk of summaryReporter(source())) text += chunk;
  return text.trim().split("\n").at(-1) ?? "";
}

const suite = { type: "suite" };

describe("the test summary line", () => {
  it("counts a skipped suite as skipped, where its tests report nothing (the browser tests without chromium)", async () => {
    const line = await closingLine([
      { type: "test:pass", data: { name: "the pages in a browser", skip: "no chromium", details: suite } },
      { type: "test:pass", data: { name: "a test", details: {} } },
      { type: "test:pass", data: { name: "a suite that ran", details: suite } },
      { type: "test:pass", data: { name: "a skipped test", skip: true, details: {} } },
      { type: "test:fail", data: { name: "a failing test", file: "t.test.ts", details: {} } },
      { type: "test:fail", data: { name: "its suite", file: "t.test.ts", details: suite } },
    ]);
    assert.equal(line, "1 passed, 1 failed, 2 skipped");
  });
});
