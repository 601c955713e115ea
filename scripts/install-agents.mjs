// Installs the pinned real agent programs (Claude Code, Codex, Qwen Code, Gemini CLI, OpenCode, Copilot CLI, Droid) into .agents-cache/, which git ignores, for the agents
// tier (npm run test:agents). They are never dependencies of the package: a plain `npm ci` stays small. A registry
// that cannot be reached fails the install loudly; the tier does not skip.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The versions the tier verifies; change them here (and in docs/testing.md) when moving to a newer CLI. */
export const AGENT_PACKAGES = {
  '@anthropic-ai/claude-code': '2.1.332',
  '@openai/codex': '0.171.0',
  '@qwen-code/qwen-code': '0.15.10',
  '@google/gemini-cli': '0.61.0',
  'opencode-ai': '1.18.33',
  '@github/copilot': '1.0.102',
  // Droid: the registry's platform package is a patch ahead of the main one (no cli-linux-x64@0.225.1 exists), so
  // both are pinned; the main package's bin runs the platform program (`droid --version` says 0.225.2).
  '@factory/cli': '0.225.1',
  '@factory/cli-linux-x64': '0.225.2',
};

const root = fileURLToPath(new URL('..', import.meta.url));
export const AGENTS_CACHE = join(root, '.agents-cache');
const stamp = join(AGENTS_CACHE, 'installed.json');
const wanted = JSON.stringify(AGENT_PACKAGES);

if (existsSync(stamp) && readFileSync(stamp, 'utf8') === wanted) {
  process.stdout.write(
    `agents: ${Object.entries(AGENT_PACKAGES)
      .map(([n, v]) => `${n}@${v}`)
      .join(', ')} already in .agents-cache\n`,
  );
} else {
  mkdirSync(AGENTS_CACHE, { recursive: true });
  if (!existsSync(join(AGENTS_CACHE, 'package.json')))
    writeFileSync(join(AGENTS_CACHE, 'package.json'), '{ "name": "ralph-agents-cache", "private": true }\n');
  execFileSync(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--no-save',
      '--prefix',
      AGENTS_CACHE,
      ...Object.entries(AGENT_PACKAGES).map(([name, version]) => `${name}@${version}`),
    ],
    { stdio: 'inherit' },
  );
  writeFileSync(stamp, wanted);
}
