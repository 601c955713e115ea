import { describe, expect, it } from 'vitest';
import { generateVisualizations } from '../../src/visualize/visualizations.js';

const files = new Map((await generateVisualizations()).map((file) => [file.name, file.content]));

/** Pixels per point: a browser shows an SVG sized in pt at 96 px to 72 pt. */
const PX_PER_PT = 4 / 3;

/** What a picture measures at its natural scale: its size in px, its arrows (edge groups) and its bytes. */
function measure(name: string): { width: number; height: number; edges: number; bytes: number; svg: string } {
  const svg = files.get(name);
  const size = svg === undefined ? null : /<svg width="([\d.]+)pt" height="([\d.]+)pt"/.exec(svg);
  if (svg === undefined || size === null) throw new Error(`${name}: no generated SVG with a size in pt`);
  return {
    width: Number(size[1]) * PX_PER_PT,
    height: Number(size[2]) * PX_PER_PT,
    edges: svg.match(/<g id="edge-[^"]*" class="edge[ "]/g)?.length ?? 0,
    bytes: Buffer.byteLength(svg),
    svg,
  };
}

/**
 * Each picture's bounds, with what it measured before its refusals (the guarded branches of one event between two
 * states, and a state's loops) became one arrow and its final states one column: a change to the drawing or the machine that brings the
 * old sprawl back fails here, and one that needs more room has to say so by moving the bound.
 */
const BOUNDS = [
  {
    name: 'ralph.svg',
    edges: 90,
    width: 2_400,
    height: 4_400,
    bytes: 200_000,
    why: 'was 109 arrows, 2,971 × 5,048 px: sixteen refusals side by side and finals all over the sheet',
  },
  {
    name: 'batch.svg',
    edges: 8,
    width: 1_280,
    height: 720,
    bytes: 40_000,
    why: 'was 15 arrows, 1,087 × 508 px: seven loops on running, their labels over each other',
  },
  {
    name: 'merge-queue.svg',
    edges: 28,
    width: 2_400,
    height: 900,
    bytes: 60_000,
    why: 'was 24 arrows, 3,060 × 981 px',
  },
] as const;

describe("each machine's picture stays within its stated size", () => {
  for (const bound of BOUNDS)
    it(`${bound.name}: at most ${bound.edges} arrows, ${bound.width} × ${bound.height} px at its natural scale and ${bound.bytes / 1000} kB (${bound.why})`, () => {
      const picture = measure(bound.name);
      expect(picture.edges).toBeLessThanOrEqual(bound.edges);
      expect(picture.width).toBeLessThanOrEqual(bound.width);
      expect(picture.height).toBeLessThanOrEqual(bound.height);
      expect(picture.bytes).toBeLessThanOrEqual(bound.bytes);
    });
});

describe('ralph.svg reads at 1,280 px', () => {
  const ralph = measure('ralph.svg');
  /** How tall a text of `points` is, in px, when the picture is shown 1,280 px wide (as the run report fits it). */
  const fitted = (points: number): number => points * PX_PER_PT * (1_280 / ralph.width);
  const sizes = [...ralph.svg.matchAll(/<text [^>]*font-size="([\d.]+)"/g)].map(([, size]) => Number(size));

  it('fit to 1,280 px wide, every state name (13 pt) is at least 9.5 px tall, where it was 7.5 px', () => {
    expect(sizes).toContain(13);
    expect(fitted(13)).toBeGreaterThanOrEqual(9.5);
  });

  it('fit to 1,280 px wide, its smallest print (9 pt: arrow labels, descriptions) is at least 6.5 px, where it was 5.2 px', () => {
    expect(Math.min(...sizes)).toBe(9);
    expect(fitted(9)).toBeGreaterThanOrEqual(6.5);
  });

  it('draws the sixteen refusals of validating as one arrow to rejected, listing every guard', () => {
    const refusals = [
      ...ralph.svg.matchAll(
        /<g id="edge-validating-\d+" class="edge transition from-validating to-rejected">/g,
      ),
    ];
    expect(refusals).toHaveLength(1);
    for (const guard of ['objectiveIsEmpty', 'maxRoundsIsInvalid', 'resumePointIsInvalid'])
      expect(ralph.svg).toMatch(new RegExp(`>(always |or )?\\[${guard}\\]</text>`));
  });

  it('keeps the final states together: one column, inside one frame', () => {
    const finals = ['complete', 'blocked', 'budgetLimited', 'failed', 'rejected', 'cancelled'];
    const frame = /<g id="final-states" class="cluster final-states">[\s\S]*?<path [^>]*d="([^"]+)"/.exec(
      ralph.svg,
    );
    if (frame === null) throw new Error('no frame around the final states');
    const xsOf = (d: string): number[] =>
      (d.match(/-?\d+(?:\.\d+)?/g) ?? []).map(Number).filter((_, i) => i % 2 === 0);
    const [left, right] = [Math.min(...xsOf(frame[1] as string)), Math.max(...xsOf(frame[1] as string))];
    for (const state of finals) {
      const node = new RegExp(
        `<g id="state-${state}" class="node state final[^"]*">[\\s\\S]*?points="([^"]+)"`,
      ).exec(ralph.svg);
      const xs = xsOf(node?.[1] ?? '');
      expect(xs.length, state).toBeGreaterThan(0);
      expect(Math.min(...xs), state).toBeGreaterThan(left);
      expect(Math.max(...xs), state).toBeLessThan(right);
    }
  });
});
