import { describe, expect, it } from 'vitest';
import { prettyLogLine } from './log-stream';

describe('prettyLogLine', () => {
  const time = Date.UTC(2026, 0, 5, 12, 3, 4, 120);

  it('shows a request as method, url, status and time', () => {
    const completed = JSON.stringify({
      level: 30,
      time,
      reqId: 'req-1',
      res: { statusCode: 200 },
      req: { method: 'GET', url: '/api/v1/fanouts?from=1' },
      responseTime: 12.345,
      msg: 'request completed',
    });
    expect(prettyLogLine(completed)).toBe(
      '12:03:04.120 INFO  GET /api/v1/fanouts?from=1 200 12.3 ms',
    );
  });

  it('keeps the message and error of other lines, and passes non-JSON through', () => {
    const err = JSON.stringify({ level: 50, time, msg: 'boom', err: { message: 'store down' } });
    expect(prettyLogLine(err)).toBe('12:03:04.120 ERROR boom : store down');
    expect(prettyLogLine('plain text')).toBe('plain text');
  });
});
