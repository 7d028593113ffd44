/**
 * `memdir/dream` — consolidation: the gates that decide when it runs, a run (with a model, or
 * the offline de-duplication), proposals to review before applying, and the history to undo.
 *
 * @example
 * import { runOfflineConsolidation, listHistory, undoChange } from "memdir/dream";
 */

export {
  type AutoConsolidationOptions,
  type ConsolidationOptions,
  type ConsolidationResult,
  maybeStartConsolidation,
  runConsolidation,
  runOfflineConsolidation,
} from "../dream/consolidate.ts";
export {
  type DreamDecision,
  type DreamGateSettings,
  evaluateDreamGates,
  type GateInput,
  SessionScanThrottle,
} from "../dream/gate.ts";
export { changeRecorder, type HistoryOptions, listHistory, undoChange } from "../dream/history.ts";
export type { FileChange, HistoryEntry, HistoryKind } from "../dream/history-types.ts";
export {
  acceptProposal,
  changeDiff,
  expireProposals,
  type InboxChange,
  type InboxItem,
  inboxItem,
  listInbox,
  rejectProposal,
} from "../dream/inbox.ts";
export type { ProcessProbe } from "../dream/lock.ts";
export { applyProposal, changedSincePlanned } from "../dream/proposal.ts";
export {
  isPending,
  listProposals,
  loadProposal,
  type Proposal,
  type ProposalSource,
  type ProposedChange,
} from "../memdir/write/proposal-store.ts";
export { proposeChanges } from "../memdir/write/scratch.ts";
