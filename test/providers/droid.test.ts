import { describe, expect, it } from 'vitest';
import { readDroidUsage } from '../../src/providers/droid.js';

/** The result line `droid exec -o json` (0.225.2) printed for a three-turn round on the scripted server. */
const DROID_RESULT =
  '{"type":"result","subtype":"success","is_error":false,"duration_ms":245,"num_turns":3,"result":"done",' +
  '"session_id":"d4c590fb-6b45-4ad1-a2f7-a0cefa37aec6","usage":{"input_tokens":30,"output_tokens":30,' +
  '"cache_read_input_tokens":0,"cache_creation_input_tokens":0,"factory_credits":0,"ttft_ms":8.67}}\n';

describe("the droid preset reads each round's usage off droid's -o json result", () => {
  it('its tokens, cache tokens, turns and duration; its credits are not dollars, so no cost', async () => {
    expect(await readDroidUsage({ reportFile: '', stdout: DROID_RESULT, stderr: '', exitCode: 0 })).toEqual({
      inputTokens: 30,
      outputTokens: 30,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      turns: 3,
      durationMs: 245,
    });
  });

  it('no result object (the process was stopped mid-round): no usage', async () => {
    expect(await readDroidUsage({ reportFile: '', stdout: '', stderr: '', exitCode: 130 })).toBeNull();
  });
});
