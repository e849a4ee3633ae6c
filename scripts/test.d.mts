/** The file names of the long tier (scripts/long-tests.txt), comments and blank lines dropped. */
export function longTests(): string[];
