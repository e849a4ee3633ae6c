/**
 * The compiled plan of the whole-request replay: the target edge's blocks and every ancestor's
 * recorded-only work computed once, so each replay only re-times (the shape programs plan
 * requests of one shape together).
 */
export { buildRequestPlan, type PlanOptions, planState, type RequestPlan, runPlan } from './plan';
