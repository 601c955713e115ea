#!/bin/sh
# A fake `claude` that answers at once, for bench/peers. Every call appends a line to $FAKE_CLAUDE_LOG ("round" or
# "version"); the count of "round" lines so far is this call's round. It answers in the format its caller asked for:
# `--output-format json` (ralph) gets one result whose structured_output is a valid report (continue, then complete
# at round $FAKE_CLAUDE_ROUNDS); anything else (the peers: stream-json, or ralph-tui's plain --print, which only
# searches stdout) gets stream-json lines carrying the done signal the peers look for.
log=${FAKE_CLAUDE_LOG:?FAKE_CLAUDE_LOG must name the invocation log}
if [ "${1:-}" = --version ]; then
  # A peer's probe for the CLI, not a round: logged apart so the rounds can be counted.
  echo "version $$" >>"$log"
  echo "2.1.0 (Claude Code)"
  exit 0
fi
echo "round $$" >>"$log"
round=$(grep -c '^round' "$log")
format=text
prev=
for arg in "$@"; do
  case $prev in --output-format) format=$arg ;; esac
  prev=$arg
done
if [ "$format" = json ]; then
  if [ "$round" -ge "${FAKE_CLAUDE_ROUNDS:-20}" ]; then
    report='{"status":"complete","summary":"all done","evidence":["fake check passed"],"nextSteps":[],"blocker":null}'
  else
    report='{"status":"continue","summary":"round done","evidence":[],"nextSteps":["do the next round"],"blocker":null}'
  fi
  printf '{"type":"result","subtype":"success","is_error":false,"result":"ok","structured_output":%s}\n' "$report"
  exit 0
fi
# Otherwise stream-json lines. The text carries <promise>COMPLETE</promise> at the last round, or at every round with
# FAKE_CLAUDE_PROMISE=every (ralph-tui reads it as "this task is done" and moves to the next of the PRD's tasks).
# ralphy needs no signal: it ticks the PRD task itself after every successful call.
text="Round $round done."
if [ "$round" -ge "${FAKE_CLAUDE_ROUNDS:-20}" ] || [ "${FAKE_CLAUDE_PROMISE:-}" = every ]; then
  text="$text <promise>COMPLETE</promise>"
fi
printf '{"type":"system","subtype":"init","session_id":"fake","tools":[],"model":"fake"}\n'
printf '{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"%s"}]},"session_id":"fake"}\n' "$text"
printf '{"type":"result","subtype":"success","is_error":false,"duration_ms":1,"num_turns":1,"result":"%s","session_id":"fake","total_cost_usd":0,"usage":{"input_tokens":1,"output_tokens":1}}\n' "$text"
