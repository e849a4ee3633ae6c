import { describe, expect, it } from 'vitest';
import { otlpAddresses } from './addresses';

describe('otlpAddresses', () => {
  it('shows the ports the server says it listens on', () => {
    expect(
      otlpAddresses(
        {
          api: 'http://127.0.0.1:8080',
          otlpHttp: 'http://127.0.0.1:41234',
          otlpGrpc: '127.0.0.1:41235',
        },
        'localhost',
      ),
    ).toEqual({ http: 'http://127.0.0.1:41234/v1/traces', grpc: '127.0.0.1:41235' });
  });

  it("replaces a wildcard bind address by the page's host, and says nothing without listen", () => {
    expect(
      otlpAddresses(
        { api: 'http://0.0.0.0:8080', otlpHttp: 'http://0.0.0.0:4318', otlpGrpc: ':::4317' },
        'tailscope.internal',
      ),
    ).toEqual({
      http: 'http://tailscope.internal:4318/v1/traces',
      grpc: 'tailscope.internal:4317',
    });
    expect(otlpAddresses(undefined, 'x')).toBeNull();
  });
});
