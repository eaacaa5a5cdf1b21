import {
  codexMcpState,
  hooksState,
  managedGroup,
  shellQuote,
  withCodexMcp,
  withHooks,
  withoutCodexMcp,
  withoutHooks,
} from '../src/agent-config';
import { INSTALLED_HOOK_EVENTS as HOOKED_EVENTS } from '@paneflow/protocol/hooks';

const group = (event: string) => managedGroup('/opt/pf hook/paneflow-ai-hook', event, 'claude');

describe('hook groups in an agent’s settings', () => {
  test('the managed group, its command quoted for sh', () => {
    expect(group('Stop')).toEqual({ _paneflow_managed: true, hooks: [{ type: 'command', command: "'/opt/pf hook/paneflow-ai-hook' Stop", timeout: 5 }] });
    expect(managedGroup('/x', 'Stop', 'codex').hooks).toEqual([{ type: 'command', command: "'/x' --tool codex Stop", timeout: 5 }]);
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });

  test('merging twice is merging once; duplicates of a managed group collapse to one, in place', () => {
    const user = { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'a' }] }] }, other: 1 };
    const once = withHooks(user, group);
    expect(withHooks(once, group)).toEqual(once);
    expect(once.hooks).toMatchObject({ Stop: [user.hooks.Stop[0], group('Stop')] });
    const doubled = { hooks: { Stop: [group('Stop'), { hooks: [] }, group('Stop')] } };
    expect((withHooks(doubled, group).hooks as Record<string, unknown[]>).Stop).toEqual([group('Stop'), { hooks: [] }]);
    expect(user.hooks.Stop).toHaveLength(1); // the input is not mutated
  });

  test('removing leaves the user’s groups and drops what it emptied', () => {
    const user = { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'a' }] }] } };
    expect(withoutHooks(withHooks(user, group))).toEqual(user);
    expect(withoutHooks(withHooks({}, group))).toEqual({});
    expect(withoutHooks({ x: 1 })).toEqual({ x: 1 });
  });

  test('state', () => {
    const installed = withHooks({}, group);
    expect(hooksState({}, group)).toBe('absent');
    expect(hooksState(installed, group)).toBe('installed');
    expect(hooksState(installed, (e) => managedGroup('/elsewhere', e, 'claude'))).toBe('outdated');
    const partial = structuredClone(installed) as { hooks: Record<string, unknown> };
    delete partial.hooks[HOOKED_EVENTS[0]];
    expect(hooksState(partial, group)).toBe('partial');
  });

  test('hooks that are not the documented shape are not rewritten', () => {
    expect(() => withHooks({ hooks: [] }, group)).toThrow('"hooks" is not an object');
    expect(() => withHooks({ hooks: { Stop: {} } }, group)).toThrow('"hooks.Stop" is not an array');
  });
});

describe('the Codex MCP table, edited as text', () => {
  const text = '# top\nmodel = "o4"\n\n[mcp_servers.paneflow]\ncommand = "/old"\nargs = ["x"]\n\n[mcp_servers.paneflow.env]\nA = "1"\n\n[profiles.fast]\nmodel = "mini" # fast\n';

  test('an existing table keeps the user’s keys and sub-tables: only command and args change', () => {
    const next = withCodexMcp(text, '/new/paneflow-mcp');
    expect(next).toBe('# top\nmodel = "o4"\n\n[mcp_servers.paneflow]\ncommand = "/new/paneflow-mcp"\nargs = []\n\n[mcp_servers.paneflow.env]\nA = "1"\n\n[profiles.fast]\nmodel = "mini" # fast\n');
    expect(codexMcpState(next, '/new/paneflow-mcp')).toBe('installed');
    expect(codexMcpState(text, '/new/paneflow-mcp')).toBe('outdated');
    expect(withCodexMcp(next, '/new/paneflow-mcp')).toBe(next);
  });

  test('removing takes the table and its sub-tables, and leaves the comments of the next table', () => {
    expect(withoutCodexMcp(text)).toBe('# top\nmodel = "o4"\n\n[profiles.fast]\nmodel = "mini" # fast\n');
    expect(codexMcpState(withoutCodexMcp(text), '/x')).toBe('absent');
    expect(withoutCodexMcp('[mcp_servers.paneflow]\ncommand = "x"\nargs = []\n\n# the fast profile\n[profiles.fast]\nmodel = "m"\n')).toBe('# the fast profile\n[profiles.fast]\nmodel = "m"\n');
  });

  test('a multi-line args array is replaced with the whole table', () => {
    const multi = '[mcp_servers.paneflow]\ncommand = "/old"\nargs = [\n  "x",\n]\n';
    expect(withCodexMcp(multi, '/n')).toBe('[mcp_servers.paneflow]\ncommand = "/n"\nargs = []\n');
  });

  test('an empty file gets the table alone; paths are TOML strings', () => {
    expect(withCodexMcp('', '/a "b"\\c')).toBe('[mcp_servers.paneflow]\ncommand = "/a \\"b\\"\\\\c"\nargs = []\n');
    expect(codexMcpState(withCodexMcp('', '/a "b"\\c'), '/a "b"\\c')).toBe('installed');
  });

  test('an inline definition it cannot edit is refused, not duplicated', () => {
    expect(() => withCodexMcp('mcp_servers = { paneflow = { command = "x" } }\n', '/y')).toThrow(/form Paneflow does not edit/);
    expect(() => withCodexMcp('mcp_servers = { docs = { command = "x" } }\n', '/y')).toThrow(/inline/i);
  });
});
