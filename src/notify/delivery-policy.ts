/** How hard a notification is pushed: a few attempts, each with a timeout, with growing pauses between them. */
export interface DeliveryPolicy {
  /** How many times a URL is tried (a notify command runs once: it may not be safe to repeat). */
  attempts: number;
  /** How long one attempt may take, a notify command's whole run included (ms). */
  timeoutMs: number;
  /** The pause before the second attempt; each later pause doubles it (ms). */
  backoffMs: number;
}

/** Three attempts of at most 5 s each, 0.5 s then 1 s apart. */
export const DEFAULT_DELIVERY: DeliveryPolicy = Object.freeze({
  attempts: 3,
  timeoutMs: 5_000,
  backoffMs: 500,
});

/** The pause before attempt `attempt` (2, 3, …). */
export function backoffBefore(policy: DeliveryPolicy, attempt: number): number {
  return policy.backoffMs * 2 ** (attempt - 2);
}

/** The longest one notification's delivery can take under the policy: every attempt timing out, every pause. */
export function longestDelivery(policy: DeliveryPolicy): number {
  let total = policy.attempts * policy.timeoutMs;
  for (let attempt = 2; attempt <= policy.attempts; attempt++) total += backoffBefore(policy, attempt);
  return total;
}
