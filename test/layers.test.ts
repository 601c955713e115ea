import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = fileURLToPath(new URL('../src/', import.meta.url));

/** The package's entry points: the library's, the fleet's, the AI SDK's. Nothing inside src/ imports them. */
const ENTRY_POINTS = new Set(['index.ts', 'fleet.ts', 'ai-sdk.ts']);

/** The layers every host (the hosts, the fleet, the CLI) may build on. */
const BENEATH_HOSTS = [
  'contract',
  'machines',
  'inspect',
  'process',
  'workspace',
  'providers',
  'actors',
  'notify',
  'trace',
  'github',
];

/**
 * Which layers each layer may import (its own modules aside): dependencies point one way, contract ← machines ←
 * actors ← run ← hosts, with render on contract alone, and the CLI over everything.
 */
const MAY_IMPORT: Record<string, readonly string[]> = {
  contract: [],
  'package-root': [],
  render: ['contract'],
  machines: ['contract'],
  inspect: ['contract', 'machines', 'package-root'],
  visualize: ['contract', 'render', 'machines', 'inspect'],
  process: ['contract'],
  trace: ['contract'],
  workspace: ['contract', 'process'],
  providers: ['contract', 'process', 'workspace', 'package-root'],
  actors: ['contract', 'machines', 'inspect', 'process', 'workspace'],
  notify: ['contract', 'render', 'process'],
  github: ['contract'],
  // The ralph tool and its progress listeners: what every host and the fleet run a loop through.
  run: [...BENEATH_HOSTS, 'render'],
  // The local batch runtime: a batch's loops run through the tool (run/); it never imports a host.
  batch: [...BENEATH_HOSTS, 'run', 'render', 'package-root'],
  hosts: [...BENEATH_HOSTS, 'render', 'run', 'batch'],
  // The worker prints database values in its log lines, with render's control-character stripping (as the CLI's).
  // It stands on the tool (run/), never on a host: no arrow runs back up a floor.
  fleet: [...BENEATH_HOSTS, 'run', 'render', 'package-root'],
  'hosts/cli': [...BENEATH_HOSTS, 'render', 'visualize', 'run', 'batch', 'hosts', 'fleet', 'package-root'],
};

/** Every module of src/, as a path relative to it. */
const modules = (readdirSync(src, { recursive: true }) as string[])
  .filter((file) => file.endsWith('.ts'))
  .map((file) => file.split('\\').join('/'));

/** The layer a module belongs to: its top folder (the CLI a layer of its own), or the file at the top. */
function layerOf(module: string): string {
  const parts = module.split('/');
  if (parts[0] === 'hosts' && parts[1] === 'cli') return 'hosts/cli';
  return parts.length === 1 ? (parts[0] as string).replace(/\.ts$/, '') : (parts[0] as string);
}

/** The modules of src/ that `module` imports (static, type-only, re-exported or dynamic), by relative specifier. */
function importsOf(module: string): string[] {
  const text = readFileSync(join(src, module), 'utf8');
  return [...text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((match) =>
    relative(src, normalize(join(src, dirname(module), match[1] as string)))
      .split('\\')
      .join('/')
      .replace(/\.js$/, '.ts'),
  );
}

const graph = new Map(modules.map((module) => [module, importsOf(module)]));

describe('the modules of src/ depend one way, layer on layer', () => {
  it('every import names a module of src/', () => {
    expect(graph.size).toBeGreaterThan(100);
    const missing = [...graph].flatMap(([module, imports]) =>
      imports.filter((target) => !graph.has(target)).map((target) => `${module} → ${target}`),
    );
    expect(missing).toEqual([]);
  });

  it('each layer imports only the layers beneath it, and nothing imports an entry point', () => {
    const wrong = [...graph].flatMap(([module, imports]) =>
      imports
        .filter((target) => {
          if (ENTRY_POINTS.has(target)) return true;
          const from = layerOf(module);
          const to = layerOf(target);
          if (ENTRY_POINTS.has(module) || from === to) return false;
          return !(MAY_IMPORT[from] ?? []).includes(to);
        })
        .map((target) => `${module} → ${target}`),
    );
    expect(wrong).toEqual([]);
  });

  it('no module imports itself through others (no cycles)', () => {
    const cycles: string[] = [];
    const done = new Set<string>();
    const onPath: string[] = [];
    const visit = (module: string): void => {
      const at = onPath.indexOf(module);
      if (at >= 0) {
        cycles.push([...onPath.slice(at), module].join(' → '));
        return;
      }
      if (done.has(module)) return;
      onPath.push(module);
      for (const target of graph.get(module) ?? []) visit(target);
      onPath.pop();
      done.add(module);
    };
    for (const module of graph.keys()) visit(module);
    expect(cycles).toEqual([]);
  });
});
