import { parseVerifyCommand } from '../actors/verify-command.js';
import type { RalphConfigInput } from '../contract/config.js';
import { parseDuration } from '../contract/duration.js';
import { RalphError } from '../contract/errors.js';

/** The guard-rail options of `ralph run` and `ralph mcp`: deployment settings, never a call's arguments. */
export interface GuardRailOptions {
  roundTimeout?: string;
  maxTime?: string;
  verify?: string;
  verifyTimeout?: string;
  maxIdleRounds?: string;
  maxCost?: string;
  waitOnLimits?: boolean;
}

const refuse = (message: string): RalphError => new RalphError({ code: 'refused', message });

/** A positive amount of US dollars, as `--max-cost` takes it (`5`, `2.50`, `$5`). */
function dollars(text: string): number {
  const trimmed = text.trim().replace(/^\$/, '');
  const value = /^\d+(\.\d+)?$|^\.\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN;
  if (!Number.isFinite(value) || value <= 0)
    throw refuse(
      `--max-cost must be a positive amount of US dollars, e.g. 5 or 2.50 (got ${JSON.stringify(text)})`,
    );
  return value;
}

/** A whole number of rounds from 1 to 256, as `--max-idle-rounds` takes it. */
function idleRounds(text: string): number {
  const trimmed = text.trim();
  const value = /^\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < 1 || value > 256)
    throw refuse(`--max-idle-rounds must be a whole number from 1 to 256 (got ${JSON.stringify(text)})`);
  return value;
}

/** The config the guard-rail options set; a bad value is refused (exit 2) before anything starts. */
export function guardRailConfig(options: GuardRailOptions): Partial<RalphConfigInput> {
  const config: Partial<RalphConfigInput> = {};
  if (options.roundTimeout !== undefined)
    config.roundTimeoutMs = parseDuration(options.roundTimeout, '--round-timeout');
  if (options.maxTime !== undefined) config.maxWallTimeMs = parseDuration(options.maxTime, '--max-time');
  if (options.verifyTimeout !== undefined && options.verify === undefined)
    throw refuse('--verify-timeout needs --verify: it is the time the verify command may run');
  if (options.verify !== undefined)
    config.verify = {
      argv: parseVerifyCommand(options.verify),
      ...(options.verifyTimeout === undefined
        ? {}
        : { timeoutMs: parseDuration(options.verifyTimeout, '--verify-timeout') }),
    };
  if (options.maxIdleRounds !== undefined) config.maxIdleRounds = idleRounds(options.maxIdleRounds);
  if (options.maxCost !== undefined) config.maxCostUsd = dollars(options.maxCost);
  if (options.waitOnLimits === true) config.waitOnLimits = true;
  return config;
}
