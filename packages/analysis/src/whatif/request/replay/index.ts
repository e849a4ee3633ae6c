/**
 * The recorded re-timing of a request's ancestors from their children's times (blocks, groups,
 * gaps), and the recorded request times and weights the answers adjust by.
 */
export { loopAdjust, recordedRequestMs, weightsFor } from './adjust';
export { type TargetOptions } from './replay';
