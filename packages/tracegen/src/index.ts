/**
 * @tailscope/tracegen: seeded synthetic fan-out traces with planted causes, as OTLP.
 * See docs/tracegen.md for the scenarios and the shape of the truth.
 */
export { createRandom, type Random } from './random';
export {
  distribution,
  type Distribution,
  type LatencySpec,
  type MixtureComponent,
} from './distributions';
export {
  TracegenError,
  sharingModes,
  type ScenarioSpec,
  type SharingMode,
  type Shape,
  type Correlation,
  type WidthSpec,
  type Slowdown,
  type OversleepSpec,
  type EpisodeSpec,
  type BackgroundSpec,
  type AppSpec,
} from './spec';
export { validateSpec } from './validate';
export {
  presets,
  presetNames,
  fanoutPresetNames,
  presetSpec,
  describePresets,
  isPresetName,
  type PresetName,
  type PresetParams,
} from './presets';
export type { GeneratorOptions, LeafHost, Plan } from './plan';
export { defaultStart, parseStart, type StartInput } from './time';
export { CallEffect } from './effects';
export { SpanBatch } from './batch';
export type { ScenarioTruth, Effect, Dimension } from './truth';
export type { AppTruth, EdgeTruth, EdgeStructure } from './app-truth';
export { createGenerator, type TraceGenerator, type PlantedCalls } from './generator';
export { encodeOtlpProtobuf } from './otlp-protobuf';
export { encodeOtlpJson } from './otlp-json';
export {
  writeOtlpFiles,
  postOtlp,
  truthJson,
  parseRetryAfter,
  type OtlpFormat,
  type Progress,
  type FileOptions,
  type PostOptions,
} from './sink';
