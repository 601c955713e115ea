// Everything the model tests need from the package, in one module the test files load at run time (see load.ts).
export { ralphMachine } from '../../src/machines/ralph.machine.js';
export {
  CoverageLedger,
  rootTransitionKeys,
  stateNodeIds,
  stateNodesOf,
  transitionKey,
  transitionKeys,
} from './coverage.js';
export {
  ACCEPTED_CALLS,
  ASK_CALLS,
  declaredProvider,
  EVALUATOR_CALLS,
  GUARD_RAIL_CALLS,
  machineInputFor,
  REFUSED_ASK_CALLS,
  REFUSED_CALLS,
  REFUSED_EVALUATOR_CALLS,
} from './input-variants.js';
export { describePath, EVENT, pathsOf } from './ralph-model.js';
export { replayPath } from './replay.js';
export { machineSource, statelyImportProblems } from './stately-import.js';
