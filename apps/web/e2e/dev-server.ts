// A server with demo-like data for working on the dashboard by hand:
//   npx tsx apps/web/e2e/dev-server.ts [scenario] [requests]
// Prints the URL; stops by itself after 20 minutes (or on Ctrl-C).
import { ensureBuilt, sendScenario, startServer } from './harness';

const scenario = process.argv[2] ?? 'sick-host';
const requests = Number(process.argv[3] ?? '3000');
const built = ensureBuilt();
if (built > 0) console.log(`built the web app in ${Math.round(built)} ms`);
const server = await startServer();
const sent = await sendScenario(server, scenario, { requests });
console.log(`${scenario}: ${sent.spans} spans stored in ${Math.round(sent.ms)} ms`);
console.log(`dashboard: ${server.url}`);
const stop = async () => {
  await server.close();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
setTimeout(() => void stop(), 20 * 60_000);
