// Incidents: co-occurring episodes joined along call edges, and their ranked root causes.
export {
  groupEpisodes,
  withRootEpisodes,
  type EpisodeGroup,
  type IncidentEpisode,
  type ServiceEdge,
} from './group';
export {
  CAUSE_TIE_MARGIN,
  rankRootCauses,
  type CauseEvidence,
  type CauseKind,
  type CauseSpan,
  type RankOptions,
  type RootCause,
} from './causes';
export { criticalPathDifference, type PathDiffRow } from './path-diff';
export { withMetricEvidence, type HostSignals } from './evidence';
