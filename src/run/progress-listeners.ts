import type { RalphProgressEvent } from '../contract/types.js';

type Listener = (event: RalphProgressEvent) => void;

/** One `onProgress` from the listeners that are present (a host's own, a tracer, notifications), or none at all. */
export function onProgressOf(...listeners: (Listener | undefined)[]): { onProgress?: Listener } {
  const present = listeners.filter((listener) => listener !== undefined);
  if (present.length === 0) return {};
  if (present.length === 1) return { onProgress: present[0] };
  return {
    onProgress: (event) => {
      for (const listener of present) listener(event);
    },
  };
}
