import { raw, type Sql } from '../sql/template';

/**
 * The spans table and its trace-id time-range table in SQL text: Identifier parameters that
 * every Store binds to its own names (TAILSCOPE_TRACES_TABLE, default `otel_traces`, and
 * `<name>_trace_id_ts`, as the Collector's clickhouseexporter names them). Builders stay pure
 * text, their snapshots show the placeholder, and the name passes checkIdent once, in openStore.
 */
export const TRACES_PARAM = 'tracesTable';
export const TRACE_ID_TS_PARAM = 'traceIdTsTable';

export const TRACES: Sql = raw(`{${TRACES_PARAM}:Identifier}`);
export const TRACE_ID_TS: Sql = raw(`{${TRACE_ID_TS_PARAM}:Identifier}`);
