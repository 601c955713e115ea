// Run recording, reading, replay and the run model: what the package root exports of src/inspect.
export { machineHash } from './machine-hash.js';
export {
  createRunRecorder,
  RECORDING_FAILED,
  type RunRecorder,
  type RunRecorderOptions,
} from './recorder.js';
export { openRecordingFile, type RecordingFile } from './recording-file.js';
export {
  FORCED_EXIT_TYPE,
  RECORDING_FORMAT_VERSION,
  RECORDING_HEADER_TYPE,
  type RecordedActorLine,
  type RecordedEventLine,
  type RecordedEventObject,
  type RecordedForcedExitLine,
  type RecordedLine,
  type RecordedMicrostepLine,
  type RecordedSnapshotLine,
  type RecordedTransition,
  type RecordingHeader,
  type RecordingLine,
  type RecordingSink,
  stateKey,
} from './recording-format.js';
export {
  parseRecordedLine,
  parseRecordingHeader,
  type Recording,
  RecordingError,
  readRecording,
} from './recording-reader.js';
export { type ReplayResult, type ReplayStep, replayRecording } from './replay.js';
export { type RecordedResume, RunSettledError, resumePointOf } from './resume-point.js';
export type { RunEnding, RunModel, RunModelQuestion, RunModelRound } from './run-model.js';
export { buildRunModel, createRunModelBuilder, type RunModelBuilder } from './run-model-builder.js';
