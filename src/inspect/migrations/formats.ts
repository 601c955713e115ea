import type { RecordingFormat } from './migration.js';

// Every recording format this package has written, oldest first. Format version 1 was written by ten machines in
// turn (the header's formatVersion stayed 1 while the machine changed): each is told by its machine's hash. The
// commit is the first on main whose machine wrote it (git log --first-parent main).

const v1 = (machineHash: string, since: string): RecordingFormat => ({
  formatVersion: 1,
  machineHash,
  since,
});

/** Version 1 of the first recordings: the flat chart (1cd57b5, the recording's merge). */
export const V1_RECORDING = v1(
  'sha256:33b267123a2c6a346aa45ad2a020d107053ce53d5b10aaf8a758560cd90da0d1',
  "1cd57b5 Merge branch 'h-record'",
);
/** Version 1 with resume points (the machine's resume input). */
export const V1_RESUME = v1(
  'sha256:581891a75a7cb1daa051ebdfff9b453d51bf4765684bf632e5d559426ad2b55a',
  '63f9ded Resume: ralph resume FILE continues a recorded run',
);
/** Version 1 with the guard rails (time, cost, idle, verify). */
export const V1_GUARD_RAILS = v1(
  'sha256:9e14cb95d7955e0f33d2d3c42d0e1e787a6e3a01a7f27bdaf44c96c669bbe30d',
  "88f8807 Merge branch 'h-guard'",
);
/** Version 1 with usage, the call nested in `context.call`. */
export const V1_USAGE = v1(
  'sha256:3a55e36ac0f8a76f6178ee133629b7932ba5e10b2e12aa42f02ecd3c46a3f7d4',
  "31e45dc Merge branch 'h-usage'",
);
/** Version 1 with the cost budget. */
export const V1_MONEY = v1(
  'sha256:96fb650b6befd264e6b305065c5a7956debbc07692adcd1c9268504f70d5ef8f',
  "cb3dbcf Merge branch 'h-money'",
);
/** Version 1 after the round-report rename. */
export const V1_ROUND_REPORT = v1(
  'sha256:af0b09dfdbab4413e02c66483b833b83b55c52ae2502a6df2829db288bef3310',
  "d7d035d Merge branch 'h-machine'",
);
/** Version 1 of the nested chart (running.round.awaitingReport …); issues 21 to 30 wrote it. */
export const V1_NESTED = v1(
  'sha256:f6a1ff5daaaeb56a5a78d8ec0eda8f717a556a83ca2049c4dd2407b6fc25d74c',
  "daf7b0e Merge branch 'h-hier'",
);
/** Version 1 with the independent evaluator (issue 31). */
export const V1_EVALUATOR = v1(
  'sha256:5be5130347bcbf565e26bb98dfd3af0b1fae5a0793e696bcbfc3ac9f65625955',
  'f4451d7 An independent evaluator (issue 31)',
);
/** Version 1 with the sandbox (issue 32). */
export const V1_SANDBOX = v1(
  'sha256:017ec517e931990112332430f4144cba6453e3f944a1392e1f6eae8b875ed32e',
  'd8670a0 The sandbox core (issue 32)',
);
/** Version 1 with asking a person (issues 33 and 34: the last release to write version 1). */
export const V1_ASK = v1(
  'sha256:67cef0bed1e34270ced62aa54a640979ea8c0fe401175349d2e5d9cf61c00f03',
  '9550d1d Asking a person (issue 33)',
);
/** Version 2: the same machine as V1_ASK; the first version that names one machine (issue 35). */
export const V2 = { ...V1_ASK, formatVersion: 2, since: 'issue 35: recordings carry their format' };
/**
 * Version 3: one actor a round (issue 35): `runRound` on the `round` box tells CHILD_STARTED and brings the report,
 * where `startChild` and `awaitReport` were two.
 */
export const V3: RecordingFormat = {
  formatVersion: 3,
  machineHash: 'sha256:d47f241bf5e62c212f2e53ad790e9840002d62fe43b7e58c3a4f2dd0e9edb836',
  since: 'issue 35: one actor a round',
};
