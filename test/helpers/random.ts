import { randomInt } from "node:crypto";

/** Set it to the seed a failed run printed to replay that run's random choices. */
export const TEST_SEED_ENV = "MEMDIR_TEST_SEED";

/** mulberry32: a small seeded source of 32-bit unsigned integers (reproducible, not secure). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

/** Like `Math.random` (a number in [0, 1)), but the same sequence for the same seed. */
export function seededRandom(seed: number): () => number {
  const next = mulberry32(seed);
  return () => next() / 4294967296;
}

/**
 * The seed of this test run: `MEMDIR_TEST_SEED` when set, else a fresh one, so runs keep
 * exploring while any failure can be replayed. Print it with the test's output
 * (`t.diagnostic`) and in failure messages.
 */
export function testSeed(env: NodeJS.ProcessEnv = process.env): number {
  const given = env[TEST_SEED_ENV];
  if (given === undefined || given === "") return randomInt(2 ** 31);
  const seed = Number(given);
  if (!Number.isSafeInteger(seed) || seed < 0) throw new Error(`${TEST_SEED_ENV}=${given} is not a seed`);
  return seed;
}
