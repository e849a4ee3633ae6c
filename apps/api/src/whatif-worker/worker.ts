import { runJob, toJobError, type AnalysisJob, type AnalysisResult, type JobError } from './jobs';

export type JobReply = { ok: true; result: AnalysisResult } | { ok: false; error: JobError };

/**
 * The worker thread's task (Piscina calls the default export once per job). Errors travel
 * back as data, not as thrown values: a thrown error crossing threads loses its class and the
 * policy error's field.
 */
export default function analyse(job: AnalysisJob): JobReply {
  try {
    return { ok: true, result: runJob(job) };
  } catch (err) {
    return { ok: false, error: toJobError(err) };
  }
}
