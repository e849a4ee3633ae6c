import { buildCli } from './cli/index';
import './cli/commands';

await buildCli().parseAsync(process.argv);
