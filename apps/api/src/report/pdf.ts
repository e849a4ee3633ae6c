import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where Debian (and most distributions) put Chromium; `TAILSCOPE_CHROMIUM` overrides. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const candidates = [
    env.TAILSCOPE_CHROMIUM,
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/usr/bin/google-chrome',
  ];
  return candidates.find((c): c is string => c !== undefined && c !== '' && existsSync(c));
}

/**
 * Prints the HTML report to PDF with headless Chromium. The HTML is self-contained (inline CSS
 * and SVG), so nothing is fetched while printing.
 */
export async function htmlToPdf(
  html: string,
  outFile: string,
  chromium = findChromium(),
): Promise<void> {
  if (!chromium) {
    throw new Error(
      'PDF export needs Chromium: install it (Debian: apt-get install chromium) or set TAILSCOPE_CHROMIUM',
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'tailscope-report-'));
  try {
    const page = join(dir, 'report.html');
    writeFileSync(page, html);
    const args = [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--no-pdf-header-footer',
      `--user-data-dir=${join(dir, 'profile')}`,
      `--print-to-pdf=${outFile}`,
      `file://${page}`,
    ];
    await new Promise<void>((resolve, reject) => {
      const child = spawn(chromium, args, { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.on('error', reject);
      child.on('exit', (code) => {
        clearTimeout(timer);
        if (code === 0 && existsSync(outFile)) resolve();
        else
          reject(
            new Error(
              `chromium exited with ${String(code)} while printing the PDF: ${stderr.slice(-500)}`,
            ),
          );
      });
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
