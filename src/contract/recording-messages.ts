/** The texts of reading a run recording whose format is not this package's own. */

/**
 * Refusal: the recording names a format version newer than this package reads (a later ralph-machine wrote it).
 * It names the version needed and the package that wrote it.
 */
export function recordingFormatTooNew(version: number, packageVersion: string, reads: number): string {
  return `the recording has format version ${version}, written by ralph-machine ${packageVersion}; this ralph reads format versions 1 to ${reads}: read it with a ralph that reads format version ${version}`;
}

/** Refusal: the header's formatVersion is not a version number at all. */
export const RECORDING_FORMAT_MISSING =
  'the header names no format version (formatVersion, a whole number from 1)';

/**
 * Refusal of a replay: the current machine, taking a migrated recording's events, does not end the run as the
 * recording's own machine did.
 */
export function migratedEndingDiffers(from: string, recorded: string, replayed: string): string {
  return `the recording (format ${from}) ends the run ${recorded}; today's machine, taking its events, ends it ${replayed}`;
}
