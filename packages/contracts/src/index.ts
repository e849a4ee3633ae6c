/**
 * The REST contract of /api/v1: TypeBox schemas of every request and response, the types
 * derived from them, and the route descriptions the API registers (and documents) as they are.
 */
export * from './bounds';
export * from './edges';
export * from './episodes';
export * from './incidents';
export * from './sampling';
export * from './fanouts';
export * from './stragglers';
export * from './hosts';
export * from './leaves';
export * from './traces';
export * from './critical-path';
export * from './stats';
export * from './whatif';
export * from './capacity';
export * from './report';
export * from './session';
export * from './paths';
export * from './endpoints';
export * from './client';
export * from './first-questions';
