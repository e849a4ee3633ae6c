// Prints the plain closing line CI reads (`N passed, N failed[, N skipped]`) from Vitest's JSON
// report; exits non-zero when any test failed, a test file failed to load, or none ran.
import { readFileSync } from 'node:fs';

const file = process.argv[2] ?? '.ci/vitest-results.json';
let report;
try {
  report = JSON.parse(readFileSync(file, 'utf8'));
} catch (err) {
  console.log(`no test report at ${file}: ${err.message}`);
  console.log('0 passed, 1 failed');
  process.exit(1);
}
const passed = report.numPassedTests ?? 0;
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
// A file that fails before its tests run (an import error) has no assertion results: count it.
const brokenFiles = (report.testResults ?? []).filter(
  (r) => r.status === 'failed' && (r.assertionResults ?? []).length === 0,
).length;
const failed = (report.numFailedTests ?? 0) + brokenFiles;
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
