import type { IndexedMemory } from "./memory-record.ts";

/**
 * Per posting slot, what the term-bridge stage (stage-bridges.ts) found for the current query:
 * reused between queries, so a query that names a common concept at 20,000 memories allocates
 * nothing per memory. A slot's entries are valid only while its stamp is the query's.
 */
export class BridgeScratch {
  /** The query being scored (an object per query: rank.ts's context). */
  owner: object | null = null;
  query = 0;
  /** Per slot: the query it was last touched in, its summed evidence, its memory. */
  stamp: Uint32Array = new Uint32Array(0);
  total: Float64Array = new Float64Array(0);
  memory: (IndexedMemory | undefined)[] = [];
  /** Per slot: the strongest concept's evidence and which concept and term gave it (`--explain`). */
  strongest: Float64Array = new Float64Array(0);
  strongestConcept: Int32Array = new Int32Array(0);
  strongestTarget: Int32Array = new Int32Array(0);
  /** Per slot, for the concept being scored: its run's stamp, best evidence and best term. */
  conceptStamp: Uint32Array = new Uint32Array(0);
  conceptBest: Float64Array = new Float64Array(0);
  conceptTarget: Int32Array = new Int32Array(0);
  conceptRun = 0;
  /** Per slot: stamped with the query when the memory is already a candidate. */
  candidateStamp: Uint32Array = new Uint32Array(0);
  /** The slots touched by the current query, and by the current concept. */
  touched: number[] = [];
  conceptTouched: number[] = [];

  /** Starts a query owned by `owner`. */
  begin(owner: object): void {
    this.owner = owner;
    this.query++;
    this.conceptRun++;
    if (this.query === 0xffffffff || this.conceptRun === 0xffffffff) {
      this.stamp.fill(0);
      this.conceptStamp.fill(0);
      this.candidateStamp.fill(0);
      this.query = 1;
      this.conceptRun = 1;
    }
    // Let go of the last query's memories (one may have been removed from the index since).
    for (const slot of this.touched) this.memory[slot] = undefined;
    this.touched.length = 0;
    this.conceptTouched.length = 0;
  }

  /** Makes room for slot `slot`. */
  fit(slot: number): void {
    if (slot < this.stamp.length) return;
    const size = Math.max(1024, slot + 1, this.stamp.length * 2);
    const grown = <T extends Uint32Array | Float64Array | Int32Array>(old: T, make: (n: number) => T): T => {
      const next = make(size);
      next.set(old);
      return next;
    };
    this.stamp = grown(this.stamp, (n) => new Uint32Array(n));
    this.total = grown(this.total, (n) => new Float64Array(n));
    this.strongest = grown(this.strongest, (n) => new Float64Array(n));
    this.strongestConcept = grown(this.strongestConcept, (n) => new Int32Array(n));
    this.strongestTarget = grown(this.strongestTarget, (n) => new Int32Array(n));
    this.conceptStamp = grown(this.conceptStamp, (n) => new Uint32Array(n));
    this.conceptBest = grown(this.conceptBest, (n) => new Float64Array(n));
    this.conceptTarget = grown(this.conceptTarget, (n) => new Int32Array(n));
    this.candidateStamp = grown(this.candidateStamp, (n) => new Uint32Array(n));
  }
}
