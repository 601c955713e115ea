import { describe, expect, it } from 'vitest';
import { commandProvider, createProviderRegistry, createRalphTool } from '../../src/index.js';
import { agentCommand, cleanEnv, useScratch } from '../support/processes.js';

const MiB = 1024 * 1024;
const FLOOD_MIB = 512;

const s = useScratch();

describe('output kept in memory is bounded', () => {
  it(`a child printing ${FLOOD_MIB} MiB on stdout grows the host by far less than that`, async () => {
    const providers = createProviderRegistry();
    providers.register(
      commandProvider({
        command: agentCommand('flood.mjs', String(FLOOD_MIB)),
        baseEnv: cleanEnv(),
        env: { FIXTURE_PID_LOG: s.pidLog },
      }),
    );
    const tool = createRalphTool({ subagentProvider: 'command' }, { providers });

    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 5);
    try {
      const envelope = await tool.execute({ objective: 'flood' }, { agent: { id: 'p', cwd: s.workspace } });
      expect(envelope.result.status).toBe('complete');
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, process.memoryUsage().rss);
    const grownMiB = (peak - before) / MiB;
    console.log(`host RSS grew by ${grownMiB.toFixed(1)} MiB while the child printed ${FLOOD_MIB} MiB`);
    // Keeping it all would take at least FLOOD_MIB. Kept: 1 MiB a stream, plus read buffers not yet collected
    // (about 40-55 MiB here, whatever the flood's size).
    expect(grownMiB).toBeLessThan(FLOOD_MIB / 4);
  });
});
