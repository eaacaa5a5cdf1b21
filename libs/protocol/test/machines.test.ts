import { isMachineName, MachineSpec, splitMachineSelector, sshOptionFault } from '../src/machines';
import { nameFault } from '../src/names';
import { validate } from '../src/schema';

// The words of many machines (issue 32) that every face reads alike.

test('the compact selector @NAME:SEL names a machine and its selector; anything else names none', () => {
  expect(splitMachineSelector('@devbox:api')).toEqual({ machine: 'devbox', selector: 'api' });
  expect(splitMachineSelector('@gpu.1:cmdline:claude')).toEqual({ machine: 'gpu.1', selector: 'cmdline:claude' });
  expect(splitMachineSelector('@devbox:cwd:/a:b')).toEqual({ machine: 'devbox', selector: 'cwd:/a:b' });
  expect(splitMachineSelector('@devbox:7')).toEqual({ machine: 'devbox', selector: '7' });
  for (const plain of ['api', 'cmdline:@x:y', 'cwd:/@x:y', '@devbox', '@devbox:', '@:api', '@-bad:api', '@a b:api', '7']) expect([plain, splitMachineSelector(plain)]).toEqual([plain, null]);
});

test('a pane name that the compact form would read as a machine is refused, so no pane hides behind one', () => {
  expect(nameFault('@devbox:api')?.reason).toBe('unselectable_name');
  expect(nameFault('@:x')?.reason).toBe('unselectable_name');
  expect(nameFault('@home')).toBeNull();
  expect(nameFault('api@devbox:1')).toBeNull();
});

test('machine names are short and printable; destinations never start like an option', () => {
  for (const name of ['devbox', 'gpu-1', 'a.b_c', 'X9']) expect([name, isMachineName(name)]).toEqual([name, true]);
  for (const name of ['', '-x', '.x', 'a b', 'a:b', '@a', 'x'.repeat(33), 'dev\u001bbox']) expect([name, isMachineName(name)]).toEqual([name, false]);
  expect(validate(MachineSpec, { destination: 'me@devbox' })).toBeNull();
  expect(validate(MachineSpec, { destination: '-oProxyCommand=touch /tmp/x' })?.field).toBe('destination');
  expect(validate(MachineSpec, { destination: 'host name' })?.field).toBe('destination');
  expect(validate(MachineSpec, { destination: 'h', ssh_options: ['-v'] })?.field).toBe('ssh_options/0');
  expect(validate(MachineSpec, { destination: 'h', extra: 1 })).not.toBeNull();
});

test('ssh options that run a command on this machine are refused, whatever their case or spacing', () => {
  for (const option of ['ProxyCommand=nc %h %p', 'proxycommand nc', ' LocalCommand=id', 'PermitLocalCommand=yes', 'KnownHostsCommand=x', 'Match exec true', 'Include /tmp/x', 'RemoteCommand=x']) {
    expect([option, sshOptionFault(option)]).toEqual([option, expect.stringContaining('~/.ssh/config')]);
  }
  for (const option of ['Port=2222', 'ProxyJump=bastion', 'User=me', 'IdentityFile=~/.ssh/id', 'Compression=yes']) expect([option, sshOptionFault(option)]).toEqual([option, null]);
});
