import type { RunModel } from '../inspect/run-model.js';
import { escapeHtml } from './report-page-text.js';

/**
 * The states the run went through, as text beside the statechart: at a page width of 1,280 pixels the whole
 * diagram is drawn about a third of its size, too small to read its labels, so the path it highlights is also
 * listed here, each state once in the order the run first entered it, with how often it did and where the run is
 * or ended.
 */
export function pathList(model: RunModel | null): string {
  const path = model?.path ?? [];
  if (path.length === 0) return '<h3>Path</h3><p class="none">No state entered yet.</p>';
  const visits = new Map<string, number>();
  for (const { state } of path) visits.set(state, (visits.get(state) ?? 0) + 1);
  const last = model?.ending?.finalState ?? (path.at(-1) as { state: string }).state;
  const where = model?.ending === null ? 'now' : 'ended here';
  const items = [...visits].map(([state, count]) => {
    const times = count > 1 ? ` <span class="times">×${count}</span>` : '';
    const mark = state === last ? ` <span class="where">${where}</span>` : '';
    return `<li${state === last ? ' class="last"' : ''}><code>${escapeHtml(state)}</code>${times}${mark}</li>`;
  });
  return `<h3>Path</h3><ol class="path-states">${items.join('')}</ol>`;
}
