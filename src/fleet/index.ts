export type { FleetBatchStatus, FleetBatchSubmission, FleetBatchTaskStatus } from './batch-client.js';
export type { BatchTaskResult, FleetBatchTask } from './batch-input.js';
export type { BatchTaskOutcome } from './batch-task.js';
export {
  createRalphFleet,
  type FleetRunState,
  type FleetRunStatus,
  isSettledState,
  type RalphFleet,
} from './client.js';
export { DEFAULT_LEASE_MS, FLEET_APP_VERSION, FLEET_QUEUE } from './constants.js';
export { FleetError } from './database.js';
export type { FleetQuestion } from './fleet-question.js';
export type { WorkerLease } from './leases.js';
export { type PrunedUnit, pruneFleet } from './prune.js';
export type {
  FleetGuardRails,
  FleetJson,
  FleetOutcome,
  FleetProviderFactory,
  FleetRunInput,
  FleetSubmission,
} from './run-input.js';
export type { FleetRunSandbox, FleetSandboxAsk } from './run-sandbox.js';
export { type RalphWorker, type RalphWorkerOptions, startRalphWorker } from './worker.js';
