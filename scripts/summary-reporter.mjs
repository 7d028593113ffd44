// A node:test reporter that prints one closing line CI reads: "N passed, N failed, N skipped".
// With MEMDIR_TEST_SUMMARY set it keeps that file up to date after every result, synchronously:
// under --test-force-exit the runner may exit before a reporter's stream is flushed or its
// generator resumed.
import fs from "node:fs";

export default async function* summaryReporter(source) {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const failures = [];
  const text = () =>
    (failures.length > 0 ? `failed tests:\n${failures.map((f) => `  - ${f}`).join("\n")}\n` : "") +
    `${passed} passed, ${failed} failed, ${skipped} skipped\n`;
  for await (const event of source) {
    if (event.type !== "test:pass" && event.type !== "test:fail") continue;
    // Suites report too; count only leaf tests (a suite's details carry type "suite"). A skipped
    // suite (the browser tests without chromium) runs none of its tests and reports none of them:
    // it counts as one skipped, or the closing line would hide it.
    if (event.data.details?.type === "suite") {
      if (event.type === "test:pass" && event.data.skip) skipped++;
      else continue;
    } else if (event.type === "test:pass") {
      if (event.data.skip || event.data.todo) skipped++;
      else passed++;
    } else {
      failed++;
      failures.push(`${event.data.file ?? ""} › ${event.data.name}`);
    }
    if (process.env.MEMDIR_TEST_SUMMARY) fs.writeFileSync(process.env.MEMDIR_TEST_SUMMARY, text());
  }
  yield text();
}
