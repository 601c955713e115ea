/** The test hook of a landing (docs/testing.md), shared with the fleet's landings in `src/process/`. */
export { pauseAfterLandForTests } from '../../process/pause-after-land.js';
