import express from 'express';
import { once } from 'node:events';
import { createServer, request as httpRequest } from 'node:http';
import { clientAddress, clientKey } from './client-key';
import { listenOnLoopback } from '../testing/http';

const request = (ip: string | undefined, remoteAddress?: string) =>
  ({ ip, socket: { remoteAddress } }) as Parameters<typeof clientKey>[0];

describe('clientKey', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['::ffff:127.0.0.2', '127.0.0.2'],
    ['::1', '::1'],
    ['2001:db8:1:2:aaaa::1', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:db8:1:3::1', '2001:db8:1:3::/64'],
    ['2001:DB8:1:3::2', '2001:db8:1:3::/64'],
    ['fe80::1%eth0', 'fe80::/64'],
  ])('keys %s as %s', (ip, key) => {
    expect(clientKey(request(ip))).toBe(key);
  });

  it("falls back to the socket's address, then to one shared key", () => {
    expect(clientKey(request(undefined, '10.0.0.1'))).toBe('10.0.0.1');
    expect(clientKey(request(undefined, undefined))).toBe('unknown');
  });

  it.each([
    ['10.9.9.9:1234', '10.9.9.9'],
    ['10.9.9.9:65535', '10.9.9.9'],
    ['[2001:db8:1:2::7]:443', '2001:db8:1:2::/64'],
    ['[2001:db8:1:2::7]', '2001:db8:1:2::/64'],
    ['[::ffff:10.9.9.9]:80', '10.9.9.9'],
  ])('drops the port a proxy appended: %s is %s', (ip, key) => {
    expect(clientKey(request(ip, '127.0.0.9'))).toBe(key);
  });

  it.each(['10.9.9.09', '010.9.9.9', 'unknown', 'client.example', '10.9.9.9:x', ''])(
    'keys a forwarded value that is not an address (%p) as the socket address',
    (ip) => {
      expect(clientKey(request(ip, '127.0.0.9'))).toBe('127.0.0.9');
    },
  );
});

describe('clientAddress', () => {
  it.each([
    ['10.9.9.9:1234', '127.0.0.9', '10.9.9.9'],
    ['2001:db8:1:2:aaaa::1', '127.0.0.9', '2001:db8:1:2:aaaa::1'],
    ['unknown', '127.0.0.9', '127.0.0.9'],
    [undefined, '127.0.0.9', '127.0.0.9'],
    [undefined, undefined, undefined],
  ])('resolves %p (socket %p) as %p', (ip, socket, address) => {
    expect(clientAddress(request(ip, socket))).toBe(address);
  });
});

describe('resolving the client of the request being handled', () => {
  it('reads req.ip once an ask, and is right for each request when they interleave', () => {
    let reads = 0;
    const counted = (ip: string) => ({
      socket: { remoteAddress: '127.0.0.9' } as Parameters<typeof clientKey>[0]['socket'],
      get ip() {
        reads += 1;
        return ip;
      },
    });
    const [a, b] = [counted('10.0.0.1'), counted('2001:db8:1:2::7')];
    expect([clientKey(a), clientKey(a), clientAddress(a)]).toEqual([
      '10.0.0.1',
      '10.0.0.1',
      '10.0.0.1',
    ]);
    expect(reads).toBe(3);
    expect([clientKey(b), clientAddress(a), clientKey(b)]).toEqual([
      '2001:db8:1:2::/64',
      '10.0.0.1',
      '2001:db8:1:2::/64',
    ]);
  });
});

describe("the peer as Express's req.ip, without reading it when the peer is not a trusted proxy", () => {
  const peerOnly = (trusted: boolean, ip: string) => {
    let reads = 0;
    const request = {
      socket: { remoteAddress: '127.0.0.9' } as Parameters<typeof clientKey>[0]['socket'],
      app: { get: (setting: string) => setting === 'trust proxy fn' && (() => trusted) },
      get ip() {
        reads += 1;
        return ip;
      },
    };
    return { address: clientAddress(request), reads };
  };

  it('takes the peer at once when Express does not trust it, and reads req.ip when it does', () => {
    expect(peerOnly(false, '10.0.0.1')).toEqual({ address: '127.0.0.9', reads: 0 });
    expect(peerOnly(true, '10.0.0.1')).toEqual({ address: '10.0.0.1', reads: 1 });
  });

  it.each([false, true, 'loopback', 1, 2, '10.0.0.0/8'])(
    'resolves the client as req.ip does with trust proxy %p, on a real Express application',
    async (trust) => {
      const app = express();
      app.set('trust proxy', trust);
      const seen: Array<[string | undefined, string | undefined]> = [];
      app.use((req, res) => {
        // The same request as the service's code sees it, and as it would through req.ip alone.
        seen.push([clientAddress(req), clientAddress({ ip: req.ip, socket: req.socket })]);
        res.end();
      });
      const server = createServer(app);
      const port = await listenOnLoopback(server);
      for (const forwarded of [undefined, '203.0.113.7', '203.0.113.7, 10.1.2.3', 'junk']) {
        const headers = forwarded === undefined ? {} : { 'X-Forwarded-For': forwarded };
        const sent = httpRequest({ host: '127.0.0.1', port, headers });
        sent.end();
        const [response] = (await once(sent, 'response')) as [{ resume(): void }];
        response.resume();
      }
      server.close();
      expect(seen).toHaveLength(4);
      for (const [shortcut, throughIp] of seen) expect(shortcut).toBe(throughIp);
    },
  );
});
