// ADAPTER (issue 9): the one place `ralph report` turns a recording into a run model. The coordinator points it at
// the recording reader and run-model builder of src/inspect/ (helper H) once they are merged; until then every
// recording is refused with the message below.
import { RalphError } from '../../contract/errors.js';
import type { RunModel } from '../../inspect/run-model.js';

/** Refusal: this build cannot read recordings yet. */
export const RECORDING_READER_MISSING =
  'ralph report cannot read recordings yet: the recording reader arrives with ralph run --record';

/** The run model of a recording's text (`file` names it in messages); refused when it is no readable recording. */
export function runModelOfRecording(_text: string, _file: string): RunModel {
  throw new RalphError({ code: 'refused', message: RECORDING_READER_MISSING });
}
