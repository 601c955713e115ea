import { backoffBefore, type DeliveryPolicy } from './delivery-policy.js';

/** A response that trying again will not change: a client error other than a timeout or a rate limit. */
function isPermanent(status: number): boolean {
  return status >= 400 && status < 500 && status !== 408 && status !== 429;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** One POST; resolves with null when the receiver took it (2xx), else with why not and whether to try again. */
async function postOnce(
  url: URL,
  body: string,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<{ problem: string; retry: boolean } | null> {
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'ralph-machine' },
      body,
      redirect: 'error',
      signal: AbortSignal.any([signal, timeout]),
    });
    // The receiver's answer is not read: only its status counts, and the connection is let go at once.
    await response.body?.cancel().catch(() => {});
    if (response.ok) return null;
    return { problem: `HTTP ${response.status}`, retry: !isPermanent(response.status) };
  } catch (error) {
    if (timeout.aborted && !signal.aborted)
      return { problem: `no answer within ${timeoutMs} ms`, retry: true };
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return { problem: cause?.code ?? cause?.message ?? (error as Error).message, retry: true };
  }
}

/**
 * POSTs `body` to `url` under the policy: up to `attempts` tries, each bounded by `timeoutMs`, with doubling pauses
 * between them; a 4xx other than 408 or 429 is not tried again. Resolves with null once delivered, else with why
 * the last attempt failed. Never rejects; an abort ends it at once.
 */
export async function postWithRetries(
  url: URL,
  body: string,
  policy: DeliveryPolicy,
  signal: AbortSignal,
): Promise<string | null> {
  let problem = 'not tried';
  for (let attempt = 1; attempt <= policy.attempts; attempt++) {
    if (attempt > 1) await pause(backoffBefore(policy, attempt), signal);
    if (signal.aborted) return problem;
    const outcome = await postOnce(url, body, policy.timeoutMs, signal);
    if (outcome === null) return null;
    problem = `${outcome.problem} (attempt ${attempt} of ${policy.attempts})`;
    if (!outcome.retry) return problem;
  }
  return problem;
}
