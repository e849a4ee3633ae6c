/** Bits of `PlantedCalls.effects`: why a call took as long as it did. */
export const CallEffect = {
  /** The call drew a `tail` component of the leaf latency mixture (e.g. the 1 s outlier). */
  tail: 1,
  /** Its host's sharing mode added an oversleep. */
  oversleep: 2,
  /** It started during its host's sick episode. */
  episode: 4,
  /** A background activity with an effect overlapped it and slowed it. */
  background: 8,
} as const;
