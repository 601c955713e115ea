import { type IncomingHttpHeaders, request } from 'node:http';

/** One plain HTTP request, with any Host header; resolves with the status and body, rejects when nothing listens. */
export function httpGet(
  url: string,
  options: { host?: string; method?: string; cookie?: string } = {},
): Promise<{ status: number; body: string; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    if (options.host !== undefined) headers.host = options.host;
    if (options.cookie !== undefined) headers.cookie = options.cookie;
    const req = request(new URL(url), { method: options.method ?? 'GET', headers }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, body, headers: response.headers }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/** An open response that may never end (an event stream): its status, the first chunk of its body, and a close. */
export interface OpenResponse {
  status: number;
  first: string;
  close(): void;
}

/** Requests `url` and resolves once the response's status and first chunk (or its end) are in; close() hangs up. */
export function httpOpen(url: string): Promise<OpenResponse> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(url), (response) => {
      const close = () => req.destroy();
      response.setEncoding('utf8');
      response.once('data', (chunk: string) =>
        resolve({ status: response.statusCode ?? 0, first: chunk, close }),
      );
      response.once('end', () => resolve({ status: response.statusCode ?? 0, first: '', close }));
    });
    req.on('error', reject);
    req.end();
  });
}
