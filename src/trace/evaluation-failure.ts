import { evaluatorChangedWorkspace } from '../contract/evaluator-messages.js';

/**
 * How many files the failure of an evaluation that changed the workspace names (`a.ts (changed), b (added) and 3 more`
 * is 5), read back from its message, the one place the run says it; 0 when the failure is not that one. A file name
 * holding `, ` counts as two: the count is what the message words, as a person would read it.
 */
export function changedFilesNamed(message: string, round: number): number {
  const lead = evaluatorChangedWorkspace(round, []);
  const at = message.indexOf(lead);
  if (at < 0) return 0;
  const named = message.slice(at + lead.length);
  if (named === '') return 0;
  const more = /^(.*) and (\d+) more$/s.exec(named);
  return more === null ? named.split(', ').length : (more[1] as string).split(', ').length + Number(more[2]);
}
