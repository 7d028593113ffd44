// Imported into every test process (scripts/run-tests.mjs). With --test-force-exit and a
// concurrency above 1, Node's test runner exits a test file's process as soon as its tests are
// done, before the last test events have gone through the reporter stream to the parent: the
// parent then counts fewer tests than ran and exits 0 (nodejs/node#64833). Measured here with
// 40 files of 50 passing tests, 5 runs each: Node 20 reported 1,972-1,988 of the 2,000, Node 24
// 1,777-1,865; a CI run of this suite on Node 24 lost the last two tests and two suites of one
// file. A last hook gives the stream a few turns of the event loop and waits for stdout to take
// what it got: 2,000 of 2,000 in 10 runs each on both (one turn alone, a 30 ms wait, or only the
// stdout callback still lost some on Node 24).
import { after } from "node:test";

after(async () => {
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => process.stdout.write("", resolve));
});
