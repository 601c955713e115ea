import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A server of someone else on 127.0.0.1, on a port of its own, that a browser is sent to. */
export interface LoopbackNeighbour {
  /** Its page: it fetches `/probe` from its own server with the browser's credentials, as any page may. */
  url: string;
  /** Every request it received, as its target and its headers (JSON), in order. */
  requests: string[];
  /** Resolves once the page's `/probe` request arrived: everything the browser sent is in `requests`. */
  probed: Promise<void>;
  close(): Promise<void>;
}

const PAGE = `<!doctype html><title>neighbour</title><script>fetch('/probe', { credentials: 'include' });</script>`;

/**
 * Starts a server on 127.0.0.1 that records every request a browser makes to it, headers (cookies) included: what
 * another local user's server would learn from a visit after the browser used one of ralph's pages.
 */
export async function startLoopbackNeighbour(): Promise<LoopbackNeighbour> {
  const requests: string[] = [];
  let arrived: () => void = () => {};
  const probed = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const server = createServer((request, response) => {
    requests.push(`${request.url} ${JSON.stringify(request.headers)}`);
    if (request.url === '/probe') arrived();
    response.writeHead(200, { 'content-type': request.url === '/' ? 'text/html' : 'text/plain' });
    response.end(request.url === '/' ? PAGE : 'ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    probed,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
