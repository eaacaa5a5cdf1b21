import { findJemalloc, hostEnvironment, restoreUserEnvironment } from '../src/allocator';

const JEMALLOC = '/usr/lib/x86_64-linux-gnu/libjemalloc.so.2';

test('without jemalloc the host starts in the caller’s environment as it is', () => {
  const env = { PATH: '/bin', LD_PRELOAD: 'mine.so' };
  expect(hostEnvironment(env, null)).toBe(env);
});

test.each([
  ['unset', {}],
  ['set by the user', { LD_PRELOAD: 'libfaketime.so.1', MALLOC_CONF: 'narenas:3' }],
])('with jemalloc, variables %s are preloaded for the host and put back as they were', (_, own: Record<string, string>) => {
  const env: NodeJS.ProcessEnv = { PATH: '/bin', ...own };
  const forHost = hostEnvironment(env, JEMALLOC);
  expect(forHost.LD_PRELOAD).toBe(own.LD_PRELOAD ? `${JEMALLOC} ${own.LD_PRELOAD}` : JEMALLOC);
  expect(forHost.MALLOC_CONF).toMatch(/dirty_decay_ms/);
  expect(env).toEqual({ PATH: '/bin', ...own }); // the caller's own is untouched
  restoreUserEnvironment(forHost);
  expect(forHost).toEqual({ PATH: '/bin', ...own });
});

test('a saved environment that is not JSON removes the allocator variables rather than keep the host’s', () => {
  const env: NodeJS.ProcessEnv = { LD_PRELOAD: JEMALLOC, MALLOC_CONF: 'x', PANEFLOW_HOST_SAVED_ENV: '{broken' };
  restoreUserEnvironment(env);
  expect(env).toEqual({});
});

test('an environment the host did not make is left alone', () => {
  const env: NodeJS.ProcessEnv = { LD_PRELOAD: 'mine.so' };
  restoreUserEnvironment(env);
  expect(env).toEqual({ LD_PRELOAD: 'mine.so' });
});

test('jemalloc is looked for where Linux distributions put it, first match wins', () => {
  const seen: string[] = [];
  expect(findJemalloc((path) => (seen.push(path), path === '/usr/lib64/libjemalloc.so.2'))).toBe(process.platform === 'linux' ? '/usr/lib64/libjemalloc.so.2' : null);
  if (process.platform === 'linux' && process.arch === 'x64') expect(seen).toEqual([JEMALLOC, '/usr/lib64/libjemalloc.so.2']);
  expect(findJemalloc(() => false)).toBeNull();
});

test('PANEFLOW_HOST_JEMALLOC=0 starts the host on glibc malloc even where jemalloc is', () => {
  const env = { PATH: '/bin', PANEFLOW_HOST_JEMALLOC: '0' };
  expect(hostEnvironment(env)).toBe(env);
});
