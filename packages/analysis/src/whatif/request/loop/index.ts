/**
 * The closed-loop load model of the whole-request replay: a serialized operation fed by N
 * clients, detected in the recorded traces and replayed.
 */
export { type LoopDetection } from './loop-model';
export { detectLoop, type LoopHook, loopModelFor, type LoopReport } from './loop-report';
