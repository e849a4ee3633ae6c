import { Command, Option } from 'commander';
import { loadSettings, serve, serveReadOnly } from '@tailscope/api';

/** Flags shared by every command that starts the server (`serve`, `demo`). */
export function addServerOptions(cmd: Command): Command {
  return cmd
    .addOption(
      new Option('--data-dir <dir>', 'embedded store directory')
        .env('TAILSCOPE_DATA_DIR')
        .default('./data'),
    )
    .addOption(
      new Option('--host <addr>', 'bind address').env('TAILSCOPE_HOST').default('127.0.0.1'),
    )
    .addOption(new Option('--port <port>', 'API and UI port').env('TAILSCOPE_PORT').default('8080'))
    .addOption(
      new Option('--otlp-http-port <port>', 'OTLP/HTTP port')
        .env('TAILSCOPE_OTLP_HTTP_PORT')
        .default('4318'),
    )
    .addOption(
      new Option('--otlp-grpc-port <port>', 'OTLP/gRPC port')
        .env('TAILSCOPE_OTLP_GRPC_PORT')
        .default('4317'),
    )
    .addOption(
      new Option('--otlp-max-bytes <bytes>', 'largest OTLP request body, also after decompression')
        .env('TAILSCOPE_OTLP_MAX_BYTES')
        .default(String(64 * 1024 * 1024)),
    )
    .addOption(
      new Option('--clickhouse-url <url>', 'ClickHouse server (unset: embedded engine)').env(
        'CLICKHOUSE_URL',
      ),
    )
    .addOption(
      new Option('--self-trace', "send Tailscope's own traces to its OTLP endpoint").env(
        'TAILSCOPE_SELF_TRACE',
      ),
    )
    .addOption(
      // Not .env(): Commander turns any value of a boolean's variable into true, and
      // TAILSCOPE_INSECURE=0 must mean off; loadSettings reads the variable itself.
      new Option(
        '--insecure',
        'listen on a non-loopback --host without TAILSCOPE_API_TOKENS / TAILSCOPE_INGEST_TOKENS (env: TAILSCOPE_INSECURE=1)',
      ),
    );
}

export interface ServerFlags {
  dataDir: string;
  host: string;
  port: string;
  otlpHttpPort: string;
  otlpGrpcPort: string;
  otlpMaxBytes: string;
  clickhouseUrl?: string;
  selfTrace?: boolean;
  insecure?: boolean;
}

export function settingsFromFlags(flags: ServerFlags) {
  return loadSettings(process.env, {
    dataDir: flags.dataDir,
    host: flags.host,
    port: flags.port,
    otlpHttpPort: flags.otlpHttpPort,
    otlpGrpcPort: flags.otlpGrpcPort,
    otlpMaxBytes: flags.otlpMaxBytes,
    clickhouseUrl: flags.clickhouseUrl,
    selfTrace: flags.selfTrace === undefined ? undefined : String(flags.selfTrace),
    insecure: flags.insecure ? 'true' : undefined,
  });
}

/** Stops cleanly on SIGINT/SIGTERM: the write queue drains to the store before exit. */
export function onShutdown(close: () => Promise<void>): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`tailscope: ${signal}, draining and stopping`);
    close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(err);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => {
    stop('SIGINT');
  });
  process.on('SIGTERM', () => {
    stop('SIGTERM');
  });
}

export function buildCli(): Command {
  const program = new Command('tailscope')
    .description('Fan-out tail latency analysis for OpenTelemetry traces')
    .showHelpAfterError();

  addServerOptions(
    program
      .command('serve')
      .description('start the OTLP receivers (HTTP and gRPC), the REST API and the web app'),
  ).action(async (flags: ServerFlags) => {
    const settings = settingsFromFlags(flags);
    // Read-only: the API over a table the Collector writes; no receivers, no migrations.
    const running = settings.readOnly
      ? await serveReadOnly(settings, { log: true })
      : await serve(settings, { log: true });
    onShutdown(() => running.close());
  });

  for (const register of extraCommands) register(program);
  return program;
}

/** Commands contributed by other modules (generate, demo, report) register here. */
export const extraCommands: ((program: Command) => void)[] = [];
