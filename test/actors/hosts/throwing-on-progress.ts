// A host whose onProgress throws on every event: it runs two calls, then prints what it saw as one JSON line.
// Run as its own process by engine.test.ts, because before the fix the listener's error killed the process.
import { createProviderRegistry, createRalphTool, createScriptedProvider } from '../../../src/index.js';
import { completeReport, continueReport } from '../../support/round-reports.js';
import { agent } from '../../support/tool.js';

const warnings: { name: string; code: string | undefined; message: string }[] = [];
process.on('warning', (warning: Error & { code?: string }) => {
  warnings.push({ name: warning.name, code: warning.code, message: warning.message });
});

const runs: { status: string; seen: string[] }[] = [];
for (const objective of ['first call', 'second call']) {
  const providers = createProviderRegistry();
  providers.register(createScriptedProvider([{ report: continueReport() }, { report: completeReport() }]));
  const tool = createRalphTool({ subagentProvider: 'scripted' }, { providers });
  const seen: string[] = [];
  const envelope = await tool.execute(
    { objective },
    {
      agent,
      onProgress: (event) => {
        seen.push(`${event.type} ${event.round}`);
        throw new Error(`host bug on ${event.type}`);
      },
    },
  );
  runs.push({ status: envelope.result.status, seen });
}
// Errors XState re-throws from a listener are thrown from timers queued before this one: let them fire first.
await new Promise((resolve) => setTimeout(resolve, 0));
await new Promise((resolve) => setImmediate(resolve));
process.stdout.write(`${JSON.stringify({ runs, warnings })}\n`);
