/** Command-line flags of the benchmarks (`--name value`). */
const argv = process.argv.slice(2);

/** A positive number, or `fallback` when absent or not one. */
export function numberFlag(name: string, fallback: number): number {
  const i = argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(argv[i + 1]) : NaN;
  return Number.isFinite(v) && v > 0 ? v : fallback;
}

/** A word, or `fallback` when absent. */
export function stringFlag(name: string, fallback: string): string {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? (argv[i + 1] ?? fallback) : fallback;
}
