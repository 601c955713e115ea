export { createChildRoundActors } from './actors/child-round.js';
export {
  createRalphEngine,
  type RalphEngine,
  type RalphEngineOptions,
  type RalphRun,
  type RalphRunRequest,
} from './actors/engine.js';
export * from './contract/index.js';
export {
  createRalphTool,
  type RalphExec,
  type RalphTool,
  type RalphToolArgs,
  type RalphToolDeps,
} from './hosts/tool.js';
export {
  type ChildStarted,
  KILL_MARGIN_MS,
  type ProviderSnapshot,
  type RalphContext,
  type RalphEvent,
  type RalphMachine,
  type RalphMachineInput,
  type RalphOutput,
  type RoundRef,
  ralphMachine,
} from './machines/ralph.machine.js';
export { createProviderRegistry, type ProviderRegistry } from './providers/registry.js';
export {
  createScriptedProvider,
  type ScriptedProvider,
  type ScriptedProviderOptions,
  type ScriptedStep,
} from './providers/scripted.js';
export { type PendingCard, type ResultCard, renderPendingCard, renderResultCard } from './render/cards.js';
export { renderFullResultText, renderResultText, resultLabel } from './render/result-text.js';
export { truncateText } from './render/truncate.js';
