// The real Claude Code and Codex as evaluators (`--evaluator claude`, `--evaluator codex`), each against the agents
// tier's scripted model server (test/agents/support: the Anthropic Messages API for claude, the Responses API for
// codex), found where the tier finds them (.agents-cache, installed by scripts/install-agents.mjs).
//
// What the scripted model does, per evaluation: its first turn reads the first file the objective names with the
// CLI's own tool (claude's Read, codex's exec_command `cat`); its second turn answers the verdict through the CLI's
// native structured output (claude's StructuredOutput tool under --json-schema, codex's final message under
// --output-schema), and that verdict is the careful reviewer's (reviewer.mjs), run by the server in the bench's
// process on the workspace of the run under way. So the figures measure the real CLI's start, its two model turns,
// its tool call and its schema-checked verdict inside ralph's loop: the cost and the plumbing, not a model's
// judgement.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { tsImport } from 'tsx/esm/api';
import { objectiveOfPrompt, review } from './reviewer.mjs';

const support = (file) => tsImport(`../../test/agents/support/${file}`, import.meta.url);

/** The first path the objective names, for the model's one look at the workspace. */
const firstNamedPath = (objective) => /`([\w.-]+(?:\/[\w.-]+)*\.[a-z]{1,4})`/.exec(objective)?.[1] ?? '.';

/**
 * The state both scripted models share with the bench: the workspace of the run under way (set before each run),
 * and how long the reviews took (the model's "thinking", to tell apart from the CLI's own cost).
 */
function reviewDesk() {
  const desk = {
    workspace: undefined,
    reviewMs: [],
    verdictOf(objective) {
      const started = performance.now();
      const verdict = review(desk.workspace, objective);
      desk.reviewMs.push(performance.now() - started);
      return verdict;
    },
  };
  return desk;
}

/** Claude Code as the evaluator, against the scripted Anthropic server; undefined when it is not installed. */
export async function claudeEvaluator() {
  const { claudePath, claudeHome } = await support('claude-env.ts');
  if (!existsSync(claudePath)) return undefined;
  const { startAnthropicServer, hasTool, isFirstTurn, messageText, toolResults } =
    await support('anthropic-server.ts');
  const desk = reviewDesk();
  let objective;
  const isEvaluation = (request) => {
    if (!hasTool(request, 'StructuredOutput')) return false;
    objective = objectiveOfPrompt(messageText(request.messages[0]));
    return objective !== undefined;
  };
  const server = await startAnthropicServer([
    {
      when: (request) => isEvaluation(request) && isFirstTurn(request),
      repeat: true,
      get reply() {
        return {
          toolUse: { name: 'Read', input: { file_path: join(desk.workspace, firstNamedPath(objective)) } },
        };
      },
    },
    {
      when: (request) => isEvaluation(request) && toolResults(request).length > 0,
      repeat: true,
      get reply() {
        return { toolUse: { name: 'StructuredOutput', input: desk.verdictOf(objective) } };
      },
    },
  ]);
  const home = await claudeHome(server.url);
  return {
    name: 'claude',
    evaluator: { preset: 'claude', path: claudePath },
    env: home.env,
    desk,
    /** Model requests no scripted turn answered (none is expected). */
    unmatched: () => server.unmatched.length,
    async close() {
      await server.close();
      await home.cleanup();
    },
  };
}

/** The text of a Responses request's input messages. */
function inputText(body) {
  return (body.input ?? [])
    .flatMap((item) =>
      typeof item.content === 'string'
        ? [item.content]
        : Array.isArray(item.content)
          ? item.content.map((part) => part?.text ?? '')
          : [],
    )
    .join('\n');
}

/** Codex as the evaluator, against the scripted Responses server; undefined when it is not installed. */
export async function codexEvaluator() {
  const { codexPath, codexHome } = await support('codex-env.ts');
  if (!existsSync(codexPath)) return undefined;
  const { startResponsesServer, call, say } = await support('responses-server.ts');
  const desk = reviewDesk();
  let unmatched = 0;
  const server = await startResponsesServer((body) => {
    const objective = objectiveOfPrompt(inputText(body));
    if (objective === undefined) {
      unmatched += 1;
      return { kind: 'status', status: 599, message: 'the scripted model answers evaluator prompts only' };
    }
    const looked = (body.input ?? []).some((item) => item.type === 'function_call_output');
    if (!looked) return call('exec_command', { cmd: `cat ${firstNamedPath(objective)}` });
    return say(JSON.stringify(desk.verdictOf(objective)));
  });
  const home = await codexHome({ baseUrl: server.baseUrl });
  return {
    name: 'codex',
    evaluator: { preset: 'codex', path: codexPath },
    env: home.env,
    desk,
    unmatched: () => unmatched,
    async close() {
      await server.close();
      await home.cleanup();
    },
  };
}
