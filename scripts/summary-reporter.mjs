// A node:test reporter that prints one closing line CI reads: "N passed, N failed, N skipped".
export default async function* summaryReporter(source) {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const failures = [];
  for await (const event of source) {
    if (event.type !== "test:pass" && event.type !== "test:fail") continue;
    // Suites report too; count only leaf tests (a suite's details carry type "suite").
    if (event.data.details?.type === "suite") continue;
    if (event.type === "test:pass") {
      if (event.data.skip || event.data.todo) skipped++;
      else passed++;
    } else {
      failed++;
      failures.push(`${event.data.file ?? ""} › ${event.data.name}`);
    }
  }
  if (failures.length > 0) yield `failed tests:\n${failures.map((f) => `  - ${f}`).join("\n")}\n`;
  yield `${passed} passed, ${failed} failed, ${skipped} skipped\n`;
}
