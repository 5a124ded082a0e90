import { once } from 'node:events';
import { AddressInfo, createServer, Server } from 'node:net';
import { explainListenError, ListenError } from './listen-error';

/** The error Node gives a second listener on `host`:`port`. */
async function listenError(host: string, port: number): Promise<unknown> {
  const server = createServer().listen(port, host);
  const [error] = (await once(server, 'error')) as unknown[];
  return error;
}

describe('explainListenError', () => {
  const servers: Server[] = [];
  const taken = async (host: string): Promise<number> => {
    const server = createServer().listen(0, host);
    servers.push(server);
    await once(server, 'listening');
    return (server.address() as AddressInfo).port;
  };

  afterAll(() => servers.forEach((server) => server.close()));

  it('turns a taken port into one line naming the variable, the address and the port', async () => {
    const port = await taken('127.0.0.1');
    const explained = explainListenError(await listenError('127.0.0.1', port), 'METRICS_PORT');
    expect(explained).toBeInstanceOf(ListenError);
    expect(explained).toEqual(
      new Error(`Cannot listen on 127.0.0.1:${port} (METRICS_PORT): address already in use`),
    );
  });

  it('writes an IPv6 address in brackets', async () => {
    const port = await taken('::1');
    expect(explainListenError(await listenError('::1', port), 'PORT')).toEqual(
      new Error(`Cannot listen on [::1]:${port} (PORT): address already in use`),
    );
  });

  it('says a port the process may not take is denied', () => {
    const denied = Object.assign(new Error('listen EACCES: permission denied 0.0.0.0:80'), {
      syscall: 'listen',
      code: 'EACCES',
      address: '0.0.0.0',
      port: 80,
    });
    expect(explainListenError(denied, 'PORT')).toEqual(
      new Error('Cannot listen on 0.0.0.0:80 (PORT): permission denied'),
    );
  });

  it('leaves any other error as it is, for its stack', () => {
    const lookup = Object.assign(new Error('getaddrinfo ENOTFOUND nowhere'), {
      syscall: 'getaddrinfo',
      code: 'ENOTFOUND',
    });
    const other = new TypeError('boom');
    expect(explainListenError(lookup, 'PORT')).toBe(lookup);
    expect(explainListenError(other, 'PORT')).toBe(other);
    expect(explainListenError(undefined, 'PORT')).toBeUndefined();
  });
});
