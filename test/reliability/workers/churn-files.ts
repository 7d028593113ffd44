// Child process for bad-input.test.ts: creates and deletes memory files in a loop, so a scan in
// another process keeps finding files that vanish between its listing and its read.
// Usage: node --import tsx churn-files.ts <memoryDir> <milliseconds>
import fs from "node:fs";
import path from "node:path";

const [memoryDir, durationText] = process.argv.slice(2);
const until = Date.now() + Number(durationText);
let cycles = 0;
process.stdout.write("started\n");
while (Date.now() < until) {
  for (let i = 0; i < 20; i++) {
    fs.writeFileSync(
      path.join(memoryDir, `churn-${i}.md`),
      `---\ndescription: churn file ${i}\ntype: project\n---\nhere for a moment\n`,
    );
  }
  for (let i = 0; i < 20; i++) fs.rmSync(path.join(memoryDir, `churn-${i}.md`), { force: true });
  cycles++;
  await new Promise((resolve) => setImmediate(resolve));
}
process.stdout.write(`${JSON.stringify({ cycles })}\n`);
