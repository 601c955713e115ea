import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';

/** A fake batch agent or check in test/fixtures/batch-agents/. */
export const batchFixture = (name: string): string =>
  fileURLToPath(new URL(`../fixtures/batch-agents/${name}`, import.meta.url));

/** The fake agent that does what its objective's directive lines say (edit-agent.mjs), as an agent command. */
export const EDIT_AGENT = quote([process.execPath, batchFixture('edit-agent.mjs')]);

/** The pids the fake agents logged (`start <pid>` / `end <pid>` lines), and those that started and did not end. */
export function agentPids(agentLines: () => string[]) {
  const pidsOf = (kind: 'start' | 'end') =>
    agentLines()
      .filter((line) => line.startsWith(kind))
      .map((line) => Number(line.split(' ')[1]));
  const alive = () => pidsOf('start').filter((pid) => !pidsOf('end').includes(pid));
  return { pidsOf, alive };
}
