/**
 * Renders DOT to SVG in-process with the WASM build of Graphviz, so no system package is needed. `@viz-js/viz` (about
 * 1 MB of WASM) loads on the first call only, from the installed dependency: the CLI bundle keeps it external, and
 * nothing but `ralph viz` and the run report asks for it.
 */
export async function dotToSvg(dot: string): Promise<string> {
  const { instance } = await import('@viz-js/viz');
  const viz = await instance();
  // Graphviz writes every `-` of an id or class as `&#45;` (for the sake of its comments, where `--` may not stand);
  // spelled plainly they read, and grep, as the ids the DOT gave.
  return viz
    .renderString(dot, { format: 'svg', engine: 'dot' })
    .replace(
      / (id|class)="([^"]*)"/g,
      (_, name: string, value: string) => ` ${name}="${value.replace(/&#45;/g, '-')}"`,
    );
}
