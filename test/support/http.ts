import { request } from 'node:http';

/** One plain HTTP request, with any Host header; resolves with the status and body, rejects when nothing listens. */
export function httpGet(
  url: string,
  options: { host?: string; method?: string } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers = options.host === undefined ? {} : { host: options.host };
    const req = request(new URL(url), { method: options.method ?? 'GET', headers }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
