/**
 * Request trees: the spans of whole requests as columns (parent, start, duration, edge, host,
 * structure), built from span records or store columns, and synthetic ones for tests.
 */
export { requestTreesFromColumns } from './columns';
export { randomTraceSpans } from './random-traces';
export { shapeHash } from './shapes';
export {
  ROOT_PARENT_KEY,
  SPAN_KIND_CODE,
  type SpanColumns,
  spanColumnsFor,
  spanColumnsFromSpans,
  spanDescriptor,
  type SpanDescriptor,
} from './span-columns';
export { synthesizeRequests, type SyntheticRequestsOptions } from './synthetic-requests';
export {
  pack,
  type RequestTreeNode,
  type RequestTrees,
  requestTreesFromSpans,
  STRUCTURE_CODE,
  type TreeEdge,
} from './trees';
